import CLibVA
import H265Bitstream
import H265Encoding
import NALStream

/// vtksoft's H.265 engine (H265Encoding) behind the VA session (``HEVCEncodeSession``): turns a checked
/// picture into an ``H265EncodeRequest`` exactly as the client described it (the client's packed VPS/SPS/PPS
/// and slice headers where it sent them, else headers derived from the parameters; its reference lists and
/// surfaces), and the engine's output into the access unit and the reconstruction.
struct HEVCEngineAdapter {
    struct Coded {
        var stream: [UInt8]
        var reconstructionMD5: String?
    }

    private var engine = H265PictureEncoder()

    /// `qp`: the rate controller's QP for every slice (also written into a packed slice header, which is
    /// parsed and re-written with only slice_qp_delta changed), or nil for the slice parameters' own (CQP).
    mutating func code(_ p: HEVCEncodeSession.Prepared, qp: Int?, hashReconstruction: Bool,
                       violation: (String) -> Void) throws(VAError) -> Coded {
        let derivedSPS = HEVCEncodeHeaderDerivation.sequenceParameterSet(p.sequence)
        let derivedPPS = HEVCEncodeHeaderDerivation.pictureParameterSet(p.picture)
        let sps = p.packedSets.sps.values.first ?? derivedSPS
        let pps = p.packedSets.pps[Int(p.picture.slice_pic_parameter_set_id)] ?? derivedPPS
        let vps = p.packedSets.vps.values.first ?? HEVCEncodeHeaderDerivation.videoParameterSet(p.sequence)
        // The parameter sets a packed slice header is parsed with: the client's, else the derived ones.
        var sets = p.packedSets
        let packedSlices = p.packedHeaders.filter { $0.kind == .slice }
        if !packedSlices.isEmpty, sets.sps.isEmpty || sets.pps[pps.id] == nil {
            do throws(BitstreamError) {
                if sets.sps.isEmpty { try sets.store(NALUnit(HEVCHeaderWriter.nalUnit(sps))) }
                try sets.store(NALUnit(HEVCHeaderWriter.nalUnit(pps)))
            } catch {
                throw VAError.invalidParameter.because("parameter sets do not round-trip: \(error)")
            }
        }
        var slices: [H265SliceRequest] = []
        for (index, slice) in p.slices.enumerated() {
            var header = HEVCEncodeHeaderDerivation.sliceHeader(slice, picture: p.picture, sps: sps, pps: pps)
            if let qp { header.qpDelta = qp - (26 + pps.initQpMinus26) }
            var request = H265SliceRequest(header: header, ctbCount: Int(slice.num_ctu_in_slice), packedHeader: nil)
            if index < packedSlices.count {
                try attach(packedSlices[index], to: &request, index: index, sets: sets, sps: sps, pps: pps, qp: qp, violation: violation)
            }
            slices.append(request)
        }

        let crop = sps.cropRectangle
        let width = Int(p.sequence.pic_width_in_luma_samples), height = Int(p.sequence.pic_height_in_luma_samples)
        let lists = p.references.map { list in
            list.map { entry in
                let kept = entry.surface.hevcReconstruction.flatMap { $0.width == width && $0.height == height ? $0 : nil }
                let picture = entry.picture(kept, listName: "ref_pic_list", violation: violation) {
                    H265EncoderPicture(surface: entry.surface, width: width, height: height, visibleWidth: width, visibleHeight: height)
                }
                return H265ReferencePicture(picture: picture, picOrderCnt: entry.picOrderCnt, isLongTerm: entry.isLongTerm)
            }
        }
        let source = H265EncoderPicture(surface: p.source, width: width, height: height,
                                        visibleWidth: crop.x + crop.width, visibleHeight: crop.y + crop.height)
        let request = H265EncodeRequest(vps: vps, sps: sps, pps: pps, slices: slices, source: source, refPicList0: lists[0],
                                        refPicList1: lists[1], picOrderCnt: Int(p.picture.decoded_curr_pic.pic_order_cnt))
        let coded: H265EncodedPicture
        do throws(H265EncodingError) { coded = try engine.encode(request) } catch {
            EncodeViolations.report("engine refused the picture: \(error)")
            switch error {
            case .unsupported(let why): throw VAError.unimplemented.because(why)
            case .inconsistent(let why): throw VAError.invalidParameter.because(why)
            }
        }
        coded.reconstruction.write(to: p.target)
        p.target.reconstruction = nil
        p.target.hevcReconstruction = coded.reconstruction

        // The access unit: packed VPS/SPS then PPS as sent, else on IRAPs the derived ones; then the slices.
        let written = p.writeParameterSets ? [HEVCHeaderWriter.nalUnit(HEVCEncodeHeaderDerivation.videoParameterSet(p.sequence)),
                                           HEVCHeaderWriter.nalUnit(derivedSPS), HEVCHeaderWriter.nalUnit(derivedPPS)] : []
        let out = EncodedAccessUnit.assemble(p.packedHeaders, parameterSets: written, slices: coded.sliceNALUnits)
        return Coded(stream: out, reconstructionMD5: hashReconstruction ? coded.reconstruction.i420MD5(crop: crop) : nil)
    }

    /// Uses the client's packed slice header when it agrees with its slice parameters (else a violation:
    /// the slice data follows the parameters behind the client's header, hardware's corrupt output). Under
    /// rate control its slice_qp_delta is re-written to the controller's QP.
    private func attach(_ packed: PackedHeader, to request: inout H265SliceRequest, index: Int, sets: H265ParameterSets,
                        sps: H265SequenceParameterSet, pps: H265PictureParameterSet, qp: Int?, violation: (String) -> Void) throws(VAError) {
        var (parsed, rbsp) = try packed.parsedSliceHeader(index: index) { unit throws(BitstreamError) in
            try H265SliceSegmentHeader(nalUnit: unit, parameterSets: sets)
        }
        let derived = request.header
        var differences = FieldDifferences()
        func compare<T: Equatable>(_ name: String, _ a: T, _ b: T) { differences.compare(name, a, b) }
        compare("nal_unit_type", parsed.nalUnitType.rawValue, derived.nalUnitType.rawValue)
        compare("slice_segment_address", parsed.sliceSegmentAddress, derived.sliceSegmentAddress)
        compare("slice_type", parsed.sliceType, derived.sliceType)
        compare("slice_pic_order_cnt_lsb", parsed.picOrderCntLsb, derived.picOrderCntLsb)
        if parsed.sliceType != .i {
            compare("num_ref_idx_l0_active_minus1", parsed.numRefIdxL0ActiveMinus1, derived.numRefIdxL0ActiveMinus1)
            compare("used reference pictures", parsed.numPicTotalCurr, derived.numPicTotalCurr)
        }
        if parsed.sliceType == .b { compare("num_ref_idx_l1_active_minus1", parsed.numRefIdxL1ActiveMinus1, derived.numRefIdxL1ActiveMinus1) }
        if qp == nil { compare("slice_qp_delta", parsed.qpDelta, derived.qpDelta) }
        guard differences.isEmpty else {
            violation("packed slice header \(index) disagrees with its slice parameters: " + differences.list)
            request.packedHeader = (rbsp.bytes, rbsp.bitLength)
            return
        }
        if let qp, parsed.qpDelta != qp - (26 + pps.initQpMinus26) {
            parsed.qpDelta = qp - (26 + pps.initQpMinus26)
            request.header = parsed
            request.packedHeader = HEVCHeaderWriter.sliceHeader(parsed, sps: sps, pps: pps)
        } else {
            request.header = parsed
            request.packedHeader = (rbsp.bytes, rbsp.bitLength)
        }
    }
}
