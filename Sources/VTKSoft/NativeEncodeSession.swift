import CLibVA
import H264Bitstream
import H264Encoding
import JSONText
import VTKMedia

/// An encode context on vtksoft's own engine (H264Encoding): it turns each picture's VA buffers into an
/// ``EncodeRequest`` exactly as the client described it (headers, slices, QP, reference lists, surfaces),
/// and the engine's output into the coded buffer and the reconstructed surface.
///
/// Strictness, chosen per case as hardware behaves (checks at vaEndPicture, coding on the worker):
/// - a list entry or CurrPic naming no surface: VA_STATUS_ERROR_INVALID_SURFACE from vaEndPicture; an
///   INVALID entry inside num_ref_idx_active, or slices whose lists differ: VA_STATUS_ERROR_INVALID_PARAMETER;
/// - a reference surface holding no reconstruction, a list entry missing from ReferenceFrames, frame_num,
///   POC or idr_pic_id against 7.4.3, a packed slice header that disagrees with its slice parameters, a
///   packed SPS whose size disagrees with the sequence parameters: coded anyway as hardware does (the
///   surface's pixels are read as they are; the values are written as given; the slice data follows the
///   slice parameters behind the client's header) and reported as a violation (``EncodeViolations``);
/// - a coded buffer too small: found while coding, so vaEndPicture has succeeded; the segment is empty with
///   VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK (i965 flags it at vaMapBuffer; see Driver.write).
///
/// Rate control: CQP codes the slice QP (pic_init_qp + slice_qp_delta). CBR and VBR take the QP from
/// ``RateController`` and write it into every slice header's slice_qp_delta — also into a client's
/// packed slice header, which is parsed and re-packed with only slice_qp_delta changed (what iHD does
/// under BRC); under CQP the packed slice header goes out verbatim.
final class NativeEncodeSession {
    private let profile: VAProfile
    private let rateControlMode: UInt32
    private let packedHeaderFlags: UInt32
    /// What becomes of the client's packed headers and who writes SPS/PPS (the persona's driver).
    private let policy: PackedHeaderPolicy
    private var parameters = EncodeParameterState<VAEncSequenceParameterBufferH264>()
    /// SPS and PPS the client packed (kept across pictures: clients send them with IDRs only).
    private var packedSets = ParameterSets()
    /// Fields of the client's packed SPS the driver writes into its own (radeonsi 24), kept as packedSets.
    private var clientSequence: MesaSequenceFields?
    private var rateControl = RateControlledCoding()
    private var engine = H264PictureEncoder()
    /// The last source picture's planes, which the next one is converted into (no allocation per picture).
    private var spareSourcePlanes: [PaddedPlane] = []
    /// 7.4.3 state: the previous picture's IDR flag and idr_pic_id, and PrevRefFrameNum.
    private var previousIDRPicID: Int?
    private var previousWasIDR = false
    private var previousReferenceFrameNum: Int?

    init(profile: VAProfile, rateControl: UInt32, packedHeaders: UInt32, policy: PackedHeaderPolicy = .driverUnlessClient) {
        self.policy = policy
        self.profile = profile
        rateControlMode = rateControl
        packedHeaderFlags = packedHeaders
    }

    func codedBufferID(in buffers: [RenderedBuffer]) throws(VAError) -> VABufferID {
        guard let picture = buffers.last(where: { $0.type == VAEncPictureParameterBufferType }) else { throw VAError.invalidParameter.because("no picture parameter buffer") }
        return picture.element(as: VAEncPictureParameterBufferH264.self).coded_buf
    }

    /// One picture checked at vaEndPicture: what the engine needs, all but the pixels and the
    /// reconstructions of earlier pictures, which exist only once the worker has coded those. The
    /// codec-neutral part (``PreparedPicture``) reads as its own fields.
    @dynamicMemberLookup
    struct Prepared {
        let sps: SequenceParameterSet
        let pps: PictureParameterSet
        let derivedSPS: SequenceParameterSet
        let derivedPPS: PictureParameterSet
        let slices: [SliceRequest]
        let picOrderCnt: Int
        /// The sequence's ip_period > 1: the stream has B pictures (``H264PictureEncoder/streamHasBPictures``).
        let streamHasBPictures: Bool
        let widthInMbs: Int
        let heightInMbs: Int
        let coding: PreparedPicture

        subscript<T>(dynamicMember field: KeyPath<PreparedPicture, T>) -> T { coding[keyPath: field] }
    }

    /// vaEndPicture's part: reads the buffers, checks them (what hardware refuses throws; what it codes
    /// anyway is counted as a violation) and resolves every surface named. `surface` resolves surface ids.
    func prepare(_ rendered: [RenderedBuffer], source: Surface,
                 surface: (VASurfaceID) throws(VAError) -> Surface) throws(VAError) -> Prepared {
        var buffers = try EncodePictureBuffers(rendered)
        let log = ViolationLog()
        let violation = log.record
        if policy.readsPackedSequence { readClientSequence(buffers.packedHeaders, violation: violation) }
        buffers.packedHeaders = buffers.packedHeaders.filter { policy.inserts($0.kind) }
        let (seq, pic) = try parameters.picture(buffers)
        let s = seq.seq_fields.bits
        guard s.chroma_format_idc == 1, seq.bit_depth_luma_minus8 == 0, seq.bit_depth_chroma_minus8 == 0 else { throw .unsupportedRTFormat }
        guard s.frame_mbs_only_flag != 0 else { throw .unimplemented }  // no interlace
        guard seq.picture_width_in_mbs > 0, seq.picture_height_in_mbs > 0 else { throw VAError.invalidParameter.because("zero picture size") }

        let rcParameters = parameters.rateControlParameters(mode: rateControlMode, sequenceBitsPerSecond: seq.bits_per_second,
                                                            timing: EncodePictureBuffers.vuiFramesPerSecond(seq),
                                                            lumaSamples: Int(seq.picture_width_in_mbs) * Int(seq.picture_height_in_mbs) * 256)

        // Parameter sets: the client's packed ones where it sent them, else derived (as iHD).
        var packedSPSorPPS = false
        for header in buffers.packedHeaders where header.kind == .sequence || header.kind == .picture {
            for unit in header.nalUnits where unit.type == .sequenceParameterSet || unit.type == .pictureParameterSet {
                do throws(BitstreamError) { _ = try packedSets.store(unit) } catch {
                    throw VAError.invalidParameter.because("packed \(unit.type) does not parse: \(error)")
                }
                packedSPSorPPS = true
            }
        }
        var derivedSPS = EncodeHeaderDerivation.sequenceParameterSet(seq, profile: profile, rateControl: rcParameters)
        clientSequence?.apply(to: &derivedSPS)
        let sps = packedSets.sps[Int(pic.seq_parameter_set_id)] ?? derivedSPS
        let derivedPPS = EncodeHeaderDerivation.pictureParameterSet(pic, sps: sps)
        let pps = packedSets.pps[Int(pic.pic_parameter_set_id)] ?? derivedPPS
        if sps.picWidthInMbs != Int(seq.picture_width_in_mbs) || sps.frameHeightInMbs != Int(seq.picture_height_in_mbs) {
            violation("packed SPS codes \(sps.picWidthInMbs)x\(sps.frameHeightInMbs) macroblocks, the sequence parameters \(seq.picture_width_in_mbs)x\(seq.picture_height_in_mbs)")
        }
        let widthInMbs = Int(seq.picture_width_in_mbs), heightInMbs = Int(seq.picture_height_in_mbs)

        checkPictureOrder(pic, buffers.slices, sps: sps, violation: violation)

        // Slices: headers, packed or derived, and the QP to code.
        let packedSlices = buffers.packedHeaders.filter { $0.kind == .slice }
        var requestSlices: [SliceRequest] = []
        var nextAddress = 0
        for (index, slice) in buffers.slices.enumerated() {
            guard Int(slice.macroblock_address) == nextAddress, slice.num_macroblocks > 0 else {
                throw VAError.invalidParameter.because("slice \(index) starts at macroblock \(slice.macroblock_address) with \(slice.num_macroblocks), expected \(nextAddress)")
            }
            nextAddress += Int(slice.num_macroblocks)
            guard [0, 1, 2, 5, 6, 7].contains(slice.slice_type) else { throw .unimplemented }  // no SP/SI
            let derived = EncodeHeaderDerivation.sliceHeader(slice, picture: pic, sps: sps, pps: pps)
            var request = SliceRequest(header: derived, macroblockCount: Int(slice.num_macroblocks))
            if index < packedSlices.count {
                try attachPackedHeader(packedSlices[index], to: &request, index: index, sps: sps, pps: pps,
                                       rateControlled: rcParameters != nil, violation: violation)
            }
            requestSlices.append(request)
        }
        guard nextAddress == widthInMbs * heightInMbs else {
            throw VAError.invalidParameter.because("slices cover \(nextAddress) macroblocks, the picture \(widthInMbs * heightInMbs)")
        }

        // Reference lists (the first inter slice's; slices with other lists are refused).
        let references = try referenceLists(pic, buffers.slices, requestSlices, surface: surface, violation: violation)
        let coding = PreparedPicture(references: references, source: source, target: try surface(pic.CurrPic.picture_id),
                                     kind: pictureKind(buffers.slices), rateControl: rcParameters, maxFrameSize: parameters.maxFrameSize,
                                     packedHeaders: buffers.packedHeaders, writeParameterSets: pic.pic_fields.bits.idr_pic_flag != 0 && !packedSPSorPPS,
                                     violations: log.messages)
        return Prepared(sps: sps, pps: pps, derivedSPS: derivedSPS, derivedPPS: derivedPPS, slices: requestSlices,
                        picOrderCnt: Int(pic.CurrPic.TopFieldOrderCnt), streamHasBPictures: seq.ip_period > 1, widthInMbs: widthInMbs, heightInMbs: heightInMbs, coding: coding)
    }

    /// The worker's part: codes the prepared picture into the access unit bytes and writes the
    /// reconstruction into CurrPic's surface. `hashReconstruction`: capture its MD5 (only the capture line
    /// shows it, and hashing every picture costs several percent of the encode).
    func encode(_ prepared: Prepared, hashReconstruction: Bool) throws(VAError) -> EngineEncodeOutput {
        let p = prepared
        let log = ViolationLog(p.violations)
        let violation = log.record
        let (sps, pps) = (p.sps, p.pps)
        let crop = sps.cropRectangle
        engine.streamHasBPictures = p.streamHasBPictures
        let lists = p.references.map { list in
            list.map { entry in
                let picture = entry.picture(entry.surface.reconstruction, listName: "RefPicList", violation: violation) {
                    EncoderPicture(nv12: entry.surface, visibleWidth: p.widthInMbs * 16, visibleHeight: p.heightInMbs * 16,
                                   widthInMbs: p.widthInMbs, heightInMbs: p.heightInMbs)
                }
                return ReferencePicture(picture: picture, picOrderCnt: entry.picOrderCnt, isLongTerm: entry.isLongTerm)
            }
        }
        let sourcePicture = EncoderPicture(nv12: p.source, visibleWidth: crop.x + crop.width, visibleHeight: crop.y + crop.height,
                                           widthInMbs: p.widthInMbs, heightInMbs: p.heightInMbs, reusing: &spareSourcePlanes)
        // The engine keeps nothing of the source: its planes take the next picture.
        defer { spareSourcePlanes = sourcePicture.spareStorage }
        let outcome = try rateControl.code(kind: p.kind, parameters: p.rateControl, clientQP: Int(pps.picInitQpMinus26) + 26 + p.slices[0].header.sliceQpDelta,
                                           maxFrameSize: p.maxFrameSize) { (qp: Int?) throws(VAError) -> (coded: EncodedPicture, stream: [UInt8]) in
            var requestSlices = p.slices
            if let qp { requestSlices = try requestSlices.map { slice throws(VAError) in try withQP(slice, qp, sps: sps, pps: pps) } }
            let request = EncodeRequest(sps: sps, pps: pps, slices: requestSlices, source: sourcePicture, refPicList0: lists[0],
                                        refPicList1: lists[1], picOrderCnt: p.picOrderCnt)
            let coded: EncodedPicture
            do throws(EncodingError) { coded = try engine.encode(request) } catch {
                EncodeViolations.report("engine refused the picture: \(error)")
                switch error {
                case .unsupported: throw .unimplemented
                case .inconsistent: throw .invalidParameter
                }
            }
            let writesSets = p.writeParameterSets && policy.writesParameterSets(configPackedHeaders: packedHeaderFlags)
            let sets = writesSets ? [Array(p.derivedSPS.nalUnit().bytes), Array(p.derivedPPS.nalUnit(sps: p.derivedSPS).bytes)] : []
            return (coded, EncodedAccessUnit.assemble(p.packedHeaders, parameterSets: sets, slices: coded.sliceNALUnits))
        }

        // The reconstruction, into CurrPic's surface and kept with it.
        let coded = outcome.coded
        coded.reconstruction.write(to: p.target)
        p.target.reconstruction = coded.reconstruction
        let captured = rateControl.captured(engine: "native", outcome: outcome,
                                            reconstructionMD5: hashReconstruction ? coded.reconstruction.i420MD5(crop: crop) : nil, violations: log.messages)
        let stream = outcome.stream
        return EngineEncodeOutput(stream: stream, captured: captured)
    }

    /// radeonsi 24: a packed SEQUENCE gives fields of the driver's own SPS; one that does not parse is
    /// ignored (Mesa's frontend returns success whatever it read) and logged as a violation.
    private func readClientSequence(_ packed: [PackedHeader], violation: (String) -> Void) {
        for header in packed where header.kind == .sequence {
            do throws(BitstreamError) {
                if let fields = try MesaSequenceFields(header) { clientSequence = fields }
            } catch {
                violation("packed SPS does not parse (\(error)); ignored, the driver writes its own")
            }
        }
    }

    // MARK: Rate control

    private func pictureKind(_ slices: [VAEncSliceParameterBufferH264]) -> RateController.PictureKind {
        if slices.contains(where: { $0.slice_type % 5 == 1 }) { return .bipredicted }
        if slices.contains(where: { $0.slice_type % 5 == 0 }) { return .predicted }
        return .intra
    }

    /// The slice with slice_qp_delta giving `qp`; a packed header is re-packed with that one change.
    private func withQP(_ slice: SliceRequest, _ qp: Int, sps: SequenceParameterSet, pps: PictureParameterSet) throws(VAError) -> SliceRequest {
        var slice = slice
        slice.header.sliceQpDelta = qp - (26 + pps.picInitQpMinus26)
        if slice.packedHeader != nil {
            var w = BitWriter()
            slice.header.write(&w, sps: sps, pps: pps)
            let bitLength = w.bitCount
            w.alignWithZeros()
            slice.packedHeader = (w.bytes, bitLength)
        }
        return slice
    }

    // MARK: Headers

    /// Uses the client's packed slice header when it agrees with the slice parameters; when it does not,
    /// the slice data follows the parameters behind the client's header (hardware's corrupt output).
    private func attachPackedHeader(_ packed: PackedHeader, to request: inout SliceRequest, index: Int, sps: SequenceParameterSet,
                                    pps: PictureParameterSet, rateControlled: Bool, violation: (String) -> Void) throws(VAError) {
        var sets = ParameterSets()
        sets.sps[sps.seqParameterSetId] = sps
        sets.pps[pps.picParameterSetId] = pps
        let (parsed, rbsp) = try packed.parsedSliceHeader(index: index) { unit throws(BitstreamError) in try SliceHeader(nalUnit: unit, parameterSets: sets) }
        let derived = request.header
        var differences = FieldDifferences()
        func compare<T: Equatable>(_ name: String, _ a: T, _ b: T) { differences.compare(name, a, b) }
        compare("nal_unit_type", parsed.nalUnitType.rawValue, derived.nalUnitType.rawValue)
        compare("first_mb_in_slice", parsed.firstMbInSlice, derived.firstMbInSlice)
        compare("slice_type", parsed.sliceType, derived.sliceType)
        compare("frame_num", parsed.frameNum, derived.frameNum)
        if parsed.idrPicFlag { compare("idr_pic_id", parsed.idrPicId, derived.idrPicId) }
        if sps.picOrderCntType == 0 { compare("pic_order_cnt_lsb", parsed.picOrderCntLsb, derived.picOrderCntLsb) }
        compare("num_ref_idx_l0_active_minus1", parsed.numRefIdxL0ActiveMinus1, derived.numRefIdxL0ActiveMinus1)
        if parsed.sliceType == .b {
            compare("num_ref_idx_l1_active_minus1", parsed.numRefIdxL1ActiveMinus1, derived.numRefIdxL1ActiveMinus1)
            compare("direct_spatial_mv_pred_flag", parsed.directSpatialMvPredFlag, derived.directSpatialMvPredFlag)
        }
        if pps.entropyCodingModeFlag && !parsed.sliceType.isIntra { compare("cabac_init_idc", parsed.cabacInitIdc, derived.cabacInitIdc) }
        if !rateControlled { compare("slice_qp_delta", parsed.sliceQpDelta, derived.sliceQpDelta) }
        compare("disable_deblocking_filter_idc", parsed.disableDeblockingFilterIdc, derived.disableDeblockingFilterIdc)
        compare("slice_alpha_c0_offset_div2", parsed.sliceAlphaC0OffsetDiv2, derived.sliceAlphaC0OffsetDiv2)
        compare("slice_beta_offset_div2", parsed.sliceBetaOffsetDiv2, derived.sliceBetaOffsetDiv2)
        if differences.isEmpty {
            request.header = parsed
        } else {
            violation("packed slice header \(index) disagrees with its slice parameters: " + differences.list)
        }
        request.packedHeader = (rbsp.bytes, rbsp.bitLength)
    }

    // MARK: References and 7.4.3

    /// RefPicList0/1 of the first inter slice (``PendingReference/lists(of:referenceFrames:listName:framesName:surface:violation:check:)``).
    private func referenceLists(_ pic: VAEncPictureParameterBufferH264, _ slices: [VAEncSliceParameterBufferH264],
                                _ requests: [SliceRequest], surface: (VASurfaceID) throws(VAError) -> Surface,
                                violation: (String) -> Void) throws(VAError) -> [[PendingReference]] {
        let invalid = UInt32(VA_PICTURE_H264_INVALID)
        let referenceFrames = entries(pic.ReferenceFrames, 16).filter { $0.flags & invalid == 0 }.map(\.picture_id)
        func named(_ tuple: some Any) -> [PendingReference.Named] {
            entries(tuple, 32).map { entry in
                PendingReference.Named(id: entry.picture_id, invalid: entry.flags & invalid != 0 || entry.picture_id == VASurfaceID(VA_INVALID_ID),
                                       picOrderCnt: Int(entry.TopFieldOrderCnt),
                                       isLongTerm: entry.flags & UInt32(VA_PICTURE_H264_LONG_TERM_REFERENCE) != 0)
            }
        }
        let inter = zip(slices, requests).filter { !$0.1.header.sliceType.isIntra }.map { slice, request in
            PendingReference.SliceLists(named: [named(slice.RefPicList0), named(slice.RefPicList1)],
                                        activeCounts: [request.header.numRefIdxL0ActiveMinus1 + 1,
                                                       request.header.sliceType == .b ? request.header.numRefIdxL1ActiveMinus1 + 1 : 0])
        }
        return try PendingReference.lists(of: inter, referenceFrames: referenceFrames, listName: "RefPicList", framesName: "ReferenceFrames",
                                          surface: surface, violation: violation)
    }

    /// 7.4.3: frame_num 0 on IDRs and PrevRefFrameNum + 1 on other frames (without gaps allowed),
    /// idr_pic_id differing between consecutive IDRs, POC fields within their bit widths and equal across
    /// the picture's slices.
    private func checkPictureOrder(_ pic: VAEncPictureParameterBufferH264, _ slices: [VAEncSliceParameterBufferH264],
                                   sps: SequenceParameterSet, violation: (String) -> Void) {
        let f = pic.pic_fields.bits
        let idr = f.idr_pic_flag != 0, reference = f.reference_pic_flag != 0
        let frameNum = Int(pic.frame_num)
        if frameNum >= sps.maxFrameNum { violation("frame_num \(frameNum) does not fit log2_max_frame_num (\(sps.maxFrameNum))") }
        if idr {
            if frameNum != 0 { violation("IDR picture with frame_num \(frameNum) (7.4.3: 0)") }
            let id = Int(slices[0].idr_pic_id)
            if previousWasIDR, previousIDRPicID == id { violation("consecutive IDR pictures with idr_pic_id \(id) (7.4.3)") }
            if slices.contains(where: { Int($0.idr_pic_id) != id }) { violation("slices of one IDR picture differ in idr_pic_id") }
            previousIDRPicID = id
        } else if let previous = previousReferenceFrameNum, !sps.gapsInFrameNumValueAllowedFlag {
            // Frames only: never PrevRefFrameNum again, always the next value.
            let next = (previous + 1) % sps.maxFrameNum
            if frameNum != next { violation("frame_num \(frameNum) after reference frame_num \(previous) (7.4.3: \(next))") }
        }
        if sps.picOrderCntType == 0 {
            let lsb = Int(slices[0].pic_order_cnt_lsb)
            if lsb >= sps.maxPicOrderCntLsb { violation("pic_order_cnt_lsb \(lsb) does not fit log2_max_pic_order_cnt_lsb (\(sps.maxPicOrderCntLsb))") }
            if slices.contains(where: { $0.pic_order_cnt_lsb != slices[0].pic_order_cnt_lsb }) {
                violation("slices of one picture differ in pic_order_cnt_lsb")
            }
            let poc = Int(pic.CurrPic.TopFieldOrderCnt)
            if poc >= 0, poc % sps.maxPicOrderCntLsb != lsb % sps.maxPicOrderCntLsb {
                violation("CurrPic.TopFieldOrderCnt \(poc) disagrees with pic_order_cnt_lsb \(lsb)")
            }
        }
        previousWasIDR = idr
        if reference { previousReferenceFrameNum = frameNum } else if idr { previousReferenceFrameNum = 0 }
    }

    private func entries<Tuple>(_ tuple: Tuple, _ count: Int) -> [VAPictureH264] {
        CArray.elements(tuple, as: VAPictureH264.self, count: count)
    }
}
