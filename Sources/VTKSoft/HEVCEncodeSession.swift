import CLibVA
import H264Encoding
import H265Bitstream
import JSONText
import NALStream
import VTKMedia

/// An H.265 encode context (VAProfileHEVCMain/Main10 on EncSlice or EncSliceLP): it checks each picture's VA
/// buffers at vaEndPicture as hardware does and hands the engine adapter (``HEVCEngineAdapter``) what the
/// client described: parameters, packed headers, reference lists and surfaces. This file only adapts VA calls.
///
/// Strictness, as for H.264 (``NativeEncodeSession``):
/// - refused at vaEndPicture: a missing sequence, picture or slice buffer; a bit depth, chroma format or CTB
///   size the persona does not code (INVALID_PARAMETER, or UNSUPPORTED_RT_FORMAT for the format); slices
///   that do not tile the picture in CTUs; a list entry naming no surface (INVALID_SURFACE) or invalid inside
///   num_ref_idx_active, and slices with different lists (INVALID_PARAMETER);
/// - coded anyway and counted as violations (``EncodeViolations``): a list entry missing from
///   reference_frames, a future reference on a driver with no FUTURE prediction direction (iHD's low-delay
///   VDEnc), an IDR with a POC other than 0 (8.3.1), a packed SPS or slice header that disagrees with the
///   parameters, a reference surface that holds no reconstruction.
final class HEVCEncodeSession {
    /// What the persona says about its HEVC encoder, read from its attribute table.
    struct Limits {
        /// CtbLog2SizeY values coded (VAConfigAttribEncHEVCBlockSizes; 4...6 when not reported).
        var ctbLog2Sizes: ClosedRange<Int> = 4...6
        /// Whether list entries may follow the current picture in output order (VAConfigAttribPredictionDirection FUTURE).
        var futureReferences = true
    }

    /// One picture checked at vaEndPicture. The codec-neutral part (``PreparedPicture``) reads as its own fields.
    @dynamicMemberLookup
    struct Prepared {
        let sequence: VAEncSequenceParameterBufferHEVC
        let picture: VAEncPictureParameterBufferHEVC
        let slices: [VAEncSliceParameterBufferHEVC]
        /// VPS, SPS and PPS the client packed, parsed (kept across pictures: clients send them with IRAPs only).
        let packedSets: H265ParameterSets
        let coding: PreparedPicture

        subscript<T>(dynamicMember field: KeyPath<PreparedPicture, T>) -> T { coding[keyPath: field] }
    }

    let profile: VAProfile
    private let rateControlMode: UInt32
    private let packedHeaderFlags: UInt32
    private let policy: PackedHeaderPolicy
    private let limits: Limits
    private var parameters = EncodeParameterState<VAEncSequenceParameterBufferHEVC>()
    private var packedSets = H265ParameterSets()
    private var rateControl = RateControlledCoding()
    private var adapter = HEVCEngineAdapter()

    init(profile: VAProfile, rateControl: UInt32, packedHeaders: UInt32, policy: PackedHeaderPolicy, limits: Limits) {
        self.profile = profile
        rateControlMode = rateControl
        packedHeaderFlags = packedHeaders
        self.policy = policy
        self.limits = limits
    }

    func codedBufferID(in buffers: [RenderedBuffer]) throws(VAError) -> VABufferID {
        guard let picture = buffers.last(where: { $0.type == VAEncPictureParameterBufferType }) else { throw VAError.invalidParameter.because("no picture parameter buffer") }
        return picture.element(as: VAEncPictureParameterBufferHEVC.self).coded_buf
    }

    /// vaEndPicture's part: reads and checks the buffers and resolves every surface named.
    func prepare(_ rendered: [RenderedBuffer], source: Surface,
                 surface: (VASurfaceID) throws(VAError) -> Surface) throws(VAError) -> Prepared {
        var buffers = try HEVCEncodePictureBuffers(rendered)
        let log = ViolationLog()
        let violation = log.record
        buffers.packedHeaders = buffers.packedHeaders.filter { policy.inserts($0.kind) }
        let (seq, pic) = try parameters.picture(buffers)
        let geometry = try checkSequence(seq, source: source)
        try HEVCEncodeParameterCheck.check(seq, pic, buffers.slices, clientQP: rateControlParameters(seq) == nil, violation: violation)

        // The client's VPS/SPS/PPS, kept; an SPS that disagrees with the sequence parameters is a violation.
        var packedParameterSets = false
        for header in buffers.packedHeaders where header.kind == .sequence || header.kind == .picture {
            for unit in header.nalUnits {
                // Hardware inserts packed headers without reading them: one that does not parse goes out as sent,
                // and the picture is coded with the parameters (a violation, as a disagreeing one is).
                do throws(BitstreamError) { try packedSets.store(unit) } catch {
                    violation("packed \(header.kind.name) header does not parse (\(error)); coded with the parameters")
                }
                packedParameterSets = true
            }
        }
        if let sps = packedSets.sps.values.first { compare(sps, seq, violation: violation) }

        try checkSlices(buffers.slices, pictureSizeInCtbs: geometry.sizeInCtbs, violation: violation)
        checkPictureOrder(pic, violation: violation)
        let references = try referenceLists(pic, buffers.slices, surface: surface, violation: violation)
        let irap = pic.pic_fields.bits.idr_pic_flag != 0 || (16...23).contains(Int(pic.nal_unit_type))
        // The driver writes VPS, SPS and PPS before an IRAP with none packed, when the policy writes them.
        let coding = PreparedPicture(references: references, source: source, target: try surface(pic.decoded_curr_pic.picture_id),
                                     kind: pictureKind(buffers.slices, references: references, poc: Int(pic.decoded_curr_pic.pic_order_cnt)),
                                     rateControl: rateControlParameters(seq), maxFrameSize: parameters.maxFrameSize, packedHeaders: buffers.packedHeaders,
                                     writeParameterSets: irap && !packedParameterSets && policy.writesParameterSets(configPackedHeaders: packedHeaderFlags),
                                     violations: log.messages)
        return Prepared(sequence: seq, picture: pic, slices: buffers.slices, packedSets: packedSets, coding: coding)
    }

    /// The worker's part: codes the prepared picture through the engine and writes the reconstruction into
    /// decoded_curr_pic's surface. CBR/VBR: the rate controller's QP, coded again (up to 4 passes) when the
    /// picture breaks the window or MaxFrameSize.
    func encode(_ prepared: Prepared, hashReconstruction: Bool) throws(VAError) -> EngineEncodeOutput {
        let p = prepared
        let log = ViolationLog(p.violations)
        let violation = log.record
        let outcome = try rateControl.code(kind: p.kind, parameters: p.rateControl, clientQP: Int(p.picture.pic_init_qp) + Int(p.slices[0].slice_qp_delta),
                                           maxFrameSize: p.maxFrameSize) { (qp: Int?) throws(VAError) -> (coded: HEVCEngineAdapter.Coded, stream: [UInt8]) in
            let coded = try adapter.code(p, qp: qp, hashReconstruction: hashReconstruction, violation: violation)
            return (coded, coded.stream)
        }
        let coded = outcome.coded
        let captured = rateControl.captured(engine: "native-hevc", outcome: outcome, reconstructionMD5: hashReconstruction ? coded.reconstructionMD5 : nil,
                                            violations: log.messages)
        return EngineEncodeOutput(stream: coded.stream, captured: captured)
    }

    // MARK: Checks

    /// 7.4.3.2.1 and the persona's limits: 4:2:0, the profile's bit depths (and the source surface's format),
    /// a CTB size the driver codes, a size in whole minimum coding blocks.
    private func checkSequence(_ seq: VAEncSequenceParameterBufferHEVC, source: Surface) throws(VAError) -> (ctbLog2: Int, sizeInCtbs: Int) {
        let f = seq.seq_fields.bits
        guard f.chroma_format_idc == 1, f.separate_colour_plane_flag == 0 else { throw .unsupportedRTFormat }
        let depths: Set<UInt32> = profile == VAProfileHEVCMain10 ? [0, 2] : [0]
        guard depths.contains(f.bit_depth_luma_minus8), f.bit_depth_chroma_minus8 == f.bit_depth_luma_minus8 else {
            throw VAError.unsupportedRTFormat.because("bit depth \(f.bit_depth_luma_minus8 + 8)/\(f.bit_depth_chroma_minus8 + 8) on \(profile == VAProfileHEVCMain10 ? "Main 10" : "Main")")
        }
        let tenBit = f.bit_depth_luma_minus8 == 2
        guard (source.format == .p010) == tenBit else {
            throw VAError.invalidParameter.because("a \(tenBit ? 10 : 8)-bit sequence on a \(source.format == .p010 ? "P010" : "NV12") surface")
        }
        let minCbLog2 = Int(seq.log2_min_luma_coding_block_size_minus3) + 3
        let ctbLog2 = minCbLog2 + Int(seq.log2_diff_max_min_luma_coding_block_size)
        guard limits.ctbLog2Sizes.contains(ctbLog2) else {
            throw VAError.invalidParameter.because("CTB \(1 << ctbLog2); this driver codes CTB \(limits.ctbLog2Sizes.map { String(1 << $0) }.joined(separator: "/"))")
        }
        let width = Int(seq.pic_width_in_luma_samples), height = Int(seq.pic_height_in_luma_samples)
        guard width > 0, height > 0, width % (1 << minCbLog2) == 0, height % (1 << minCbLog2) == 0 else {
            throw VAError.invalidParameter.because("picture \(width)x\(height) is not in whole \(1 << minCbLog2)x\(1 << minCbLog2) coding blocks (7.4.3.2.1)")
        }
        guard width <= source.width, height <= source.allocatedHeight else {
            throw VAError.invalidParameter.because("picture \(width)x\(height) larger than its \(source.width)x\(source.height) surface")
        }
        let ctb = 1 << ctbLog2
        return (ctbLog2, ((width + ctb - 1) / ctb) * ((height + ctb - 1) / ctb))
    }

    /// Slice segments tile the picture in CTUs, in order (7.4.7.1); slice_type B, P or I (Table 7-7).
    private func checkSlices(_ slices: [VAEncSliceParameterBufferHEVC], pictureSizeInCtbs: Int, violation: (String) -> Void) throws(VAError) {
        var next = 0
        for (index, slice) in slices.enumerated() {
            guard Int(slice.slice_segment_address) == next, slice.num_ctu_in_slice > 0 else {
                throw VAError.invalidParameter.because("slice \(index) starts at CTU \(slice.slice_segment_address) with \(slice.num_ctu_in_slice), expected \(next)")
            }
            guard slice.slice_type <= 2 else { throw VAError.invalidParameter.because("slice \(index) has slice_type \(slice.slice_type)") }
            next += Int(slice.num_ctu_in_slice)
            if (slice.slice_fields.bits.last_slice_of_pic_flag != 0) != (index == slices.count - 1) {
                violation("slice \(index) of \(slices.count) has last_slice_of_pic_flag \(slice.slice_fields.bits.last_slice_of_pic_flag)")
            }
        }
        guard next == pictureSizeInCtbs else {
            throw VAError.invalidParameter.because("slices cover \(next) CTUs, the picture \(pictureSizeInCtbs)")
        }
    }

    /// 8.3.1: an IDR picture has POC 0.
    private func checkPictureOrder(_ pic: VAEncPictureParameterBufferHEVC, violation: (String) -> Void) {
        if pic.pic_fields.bits.idr_pic_flag != 0, pic.decoded_curr_pic.pic_order_cnt != 0 {
            violation("IDR picture with pic_order_cnt \(pic.decoded_curr_pic.pic_order_cnt) (8.3.1: 0)")
        }
    }

    /// A packed SPS against the sequence parameters: what both state must agree.
    private func compare(_ sps: H265SequenceParameterSet, _ seq: VAEncSequenceParameterBufferHEVC, violation: (String) -> Void) {
        var differences = FieldDifferences()
        func check(_ name: String, _ a: Int, _ b: some BinaryInteger) { differences.compare(name, a, Int(b)) }
        check("pic_width_in_luma_samples", sps.picWidthInLumaSamples, seq.pic_width_in_luma_samples)
        check("pic_height_in_luma_samples", sps.picHeightInLumaSamples, seq.pic_height_in_luma_samples)
        check("bit_depth_luma_minus8", sps.bitDepthLumaMinus8, seq.seq_fields.bits.bit_depth_luma_minus8)
        check("log2_min_luma_coding_block_size_minus3", sps.log2MinLumaCodingBlockSizeMinus3, seq.log2_min_luma_coding_block_size_minus3)
        check("log2_diff_max_min_luma_coding_block_size", sps.log2DiffMaxMinLumaCodingBlockSize, seq.log2_diff_max_min_luma_coding_block_size)
        check("amp_enabled_flag", sps.ampEnabledFlag ? 1 : 0, seq.seq_fields.bits.amp_enabled_flag)
        check("sample_adaptive_offset_enabled_flag", sps.sampleAdaptiveOffsetEnabledFlag ? 1 : 0, seq.seq_fields.bits.sample_adaptive_offset_enabled_flag)
        check("sps_temporal_mvp_enabled_flag", sps.temporalMvpEnabledFlag ? 1 : 0, seq.seq_fields.bits.sps_temporal_mvp_enabled_flag)
        if !differences.isEmpty { violation("packed SPS disagrees with the sequence parameters: " + differences.list) }
    }

    /// RefPicList0/1 of the first inter slice (``PendingReference/lists(of:referenceFrames:listName:framesName:surface:violation:check:)``);
    /// on a driver with no FUTURE prediction direction, an entry after the current picture is a violation.
    private func referenceLists(_ pic: VAEncPictureParameterBufferHEVC, _ slices: [VAEncSliceParameterBufferHEVC],
                                surface: (VASurfaceID) throws(VAError) -> Surface, violation: (String) -> Void) throws(VAError) -> [[PendingReference]] {
        let invalid = UInt32(VA_PICTURE_HEVC_INVALID)
        func named(_ tuple: some Any) -> [PendingReference.Named] {
            Self.entries(tuple).map { entry in
                PendingReference.Named(id: entry.picture_id, invalid: entry.flags & invalid != 0 || entry.picture_id == VASurfaceID(VA_INVALID_SURFACE),
                                       picOrderCnt: Int(entry.pic_order_cnt),
                                       isLongTerm: entry.flags & UInt32(VA_PICTURE_HEVC_LONG_TERM_REFERENCE) != 0)
            }
        }
        let referenceFrames = named(pic.reference_frames).filter { !$0.invalid }.map(\.id)
        let currentPOC = Int(pic.decoded_curr_pic.pic_order_cnt)
        let inter = slices.filter { $0.slice_type != 2 }.map { slice in
            PendingReference.SliceLists(named: [named(slice.ref_pic_list0), named(slice.ref_pic_list1)],
                                        activeCounts: [Int(slice.num_ref_idx_l0_active_minus1) + 1,
                                                       slice.slice_type == 0 ? Int(slice.num_ref_idx_l1_active_minus1) + 1 : 0])
        }
        return try PendingReference.lists(of: inter, referenceFrames: referenceFrames, listName: "ref_pic_list", framesName: "reference_frames",
                                          surface: surface, violation: violation) { entry, l, i in
            if !limits.futureReferences, entry.picOrderCnt > currentPOC {
                violation("ref_pic_list\(l)[\(i)] has POC \(entry.picOrderCnt) after the current \(currentPOC); this driver predicts from previous pictures only (low-delay B)")
            }
        }
    }

    // MARK: Rate control

    private func rateControlParameters(_ seq: VAEncSequenceParameterBufferHEVC) -> RateController.Parameters? {
        // E.3.1: a picture lasts one tick of vui_num_units_in_tick (frames, field_seq_flag 0).
        let timing = seq.vui_num_units_in_tick > 0 && seq.vui_time_scale > 0 ? Double(seq.vui_time_scale) / Double(seq.vui_num_units_in_tick) : nil
        return parameters.rateControlParameters(mode: rateControlMode, sequenceBitsPerSecond: seq.bits_per_second, timing: timing,
                                                lumaSamples: Int(seq.pic_width_in_luma_samples) * Int(seq.pic_height_in_luma_samples))
    }

    /// slice_type (Table 7-7): B 0, P 1, I 2. A low-delay B picture (every reference before it, as iHD's VDEnc
    /// codes P pictures) is an anchor to the rate controller, budgeted as a P picture.
    private func pictureKind(_ slices: [VAEncSliceParameterBufferHEVC], references: [[PendingReference]], poc: Int) -> RateController.PictureKind {
        if slices.contains(where: { $0.slice_type == 0 }) {
            return references.joined().contains { $0.picOrderCnt > poc } ? .bipredicted : .predicted
        }
        if slices.contains(where: { $0.slice_type == 1 }) { return .predicted }
        return .intra
    }

    static func entries<Tuple>(_ tuple: Tuple) -> [VAPictureHEVC] {
        CArray.elements(tuple, as: VAPictureHEVC.self)
    }
}
