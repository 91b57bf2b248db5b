import H265Bitstream

/// vtksoft's H.265 encoder engine: codes one picture as the request describes (slice segments, QP, lists,
/// headers) and rebuilds it exactly as a decoder would, in-loop filters included.
public struct H265PictureEncoder {
    /// Scales the λ of the SAO decision (1: the engine's); tests lower it to see every kind of sao() syntax.
    var saoLambdaScale = 1.0

    public init() {}

    public mutating func encode(_ request: H265EncodeRequest) throws(H265EncodingError) -> H265EncodedPicture {
        try Self.validate(request)
        var coder = H265PictureCoder(request: request)
        coder.saoLambdaScale = saoLambdaScale
        var units: [[UInt8]] = []
        for (i, slice) in request.slices.enumerated() { units.append(coder.codeSlice(slice, index: i)) }
        coder.deblock()
        coder.sampleAdaptiveOffset(into: &units)
        var reconstruction = coder.recon
        reconstruction.motion = coder.motionField
        var coded = H265EncodedPicture(sliceNALUnits: units, reconstruction: reconstruction)
        coded.statistics = coder.statistics
        return coded
    }

    /// What the engine codes (see Sources/H265Encoding) and what a request must agree with.
    static func validate(_ request: H265EncodeRequest) throws(H265EncodingError) {
        let sps = request.sps, pps = request.pps
        guard sps.chromaFormatIdc == 1, !sps.separateColourPlaneFlag else { throw .unsupported("chroma_format_idc \(sps.chromaFormatIdc)") }
        guard sps.bitDepthLuma == sps.bitDepthChroma, sps.bitDepthLuma == 8 || sps.bitDepthLuma == 10 else {
            throw .unsupported("bit depth \(sps.bitDepthLuma)/\(sps.bitDepthChroma)")
        }
        guard !sps.scalingListEnabledFlag else { throw .unsupported("scaling lists") }
        guard !sps.rangeExtension.usesAny, !pps.usesRangeExtension else { throw .unsupported("range extension tools") }
        guard !pps.tilesEnabledFlag, !pps.entropyCodingSyncEnabledFlag else { throw .unsupported("tiles or wavefront parallel processing") }
        guard !pps.weightedPredFlag, !pps.weightedBipredFlag else { throw .unsupported("weighted prediction") }
        guard sps.log2CtbSize >= 4, sps.log2CtbSize <= 6 else { throw .unsupported("CTB size \(sps.ctbSize)") }
        let w = sps.picWidthInLumaSamples, h = sps.picHeightInLumaSamples
        guard w % sps.minCbSize == 0, h % sps.minCbSize == 0, sps.log2MinTransformBlockSize < sps.log2MinCbSize,
              sps.log2MaxTransformBlockSize <= min(sps.log2CtbSize, 5), sps.log2MinTransformBlockSize <= sps.log2MaxTransformBlockSize,
              max(sps.maxTransformHierarchyDepthIntra, sps.maxTransformHierarchyDepthInter) <= sps.log2CtbSize - sps.log2MinTransformBlockSize else {
            throw .inconsistent("\(w)x\(h) with coding blocks \(sps.minCbSize)...\(sps.ctbSize) and transform blocks \(1 << sps.log2MinTransformBlockSize)...\(1 << sps.log2MaxTransformBlockSize)")
        }
        let s = request.source
        guard s.width == w, s.height == h, s.hasConsistentPlanes else {
            throw .inconsistent("source is \(s.width)x\(s.height), the SPS codes \(w)x\(h)")
        }
        guard s.bitDepth == sps.bitDepthLuma else { throw .inconsistent("source has \(s.bitDepth) bits, the SPS \(sps.bitDepthLuma)") }
        var covered = 0
        for (i, slice) in request.slices.enumerated() {
            let header = slice.header
            guard !header.dependentSliceSegmentFlag else { throw .unsupported("dependent slice segments") }
            guard header.sliceSegmentAddress == covered, slice.ctbCount > 0 else {
                throw .inconsistent("slice \(i) starts at CTB \(header.sliceSegmentAddress), expected \(covered)")
            }
            guard (i == 0) == header.firstSliceSegmentInPicFlag else { throw .inconsistent("slice \(i): first_slice_segment_in_pic_flag") }
            covered += slice.ctbCount
            let qp = 26 + pps.initQpMinus26 + header.qpDelta
            guard qp >= -6 * sps.bitDepthLumaMinus8, qp <= 51 else { throw .inconsistent("slice \(i): SliceQpY \(qp)") }
            if header.sliceType != .i && request.refPicList0.isEmpty { throw .inconsistent("slice \(i) is \(header.sliceType) but RefPicList0 is empty") }
            if header.sliceType == .b && request.refPicList1.isEmpty { throw .inconsistent("slice \(i) is B but RefPicList1 is empty") }
            if header.sliceType != .i {
                guard header.numRefIdxL0ActiveMinus1 < request.refPicList0.count,
                      header.sliceType != .b || header.numRefIdxL1ActiveMinus1 < request.refPicList1.count else {
                    throw .inconsistent("slice \(i): num_ref_idx_active exceeds the reference lists (\(request.refPicList0.count), \(request.refPicList1.count))")
                }
                let colList = header.sliceType == .b && !header.collocatedFromL0Flag ? request.refPicList1 : request.refPicList0
                if header.temporalMvpEnabledFlag && header.collocatedRefIdx >= colList.count {
                    throw .inconsistent("slice \(i): collocated_ref_idx \(header.collocatedRefIdx) outside its list")
                }
                for ref in request.refPicList0 + request.refPicList1 where ref.picture.width != w || ref.picture.height != h || !ref.picture.hasConsistentPlanes {
                    throw .inconsistent("slice \(i): a reference picture is \(ref.picture.width)x\(ref.picture.height), not \(w)x\(h)")
                }
            }
            if let packed = slice.packedHeader, packed.bitLength > packed.bytes.count * 8 || packed.bitLength < 16 || packed.bitLength % 8 != 0 {
                throw .inconsistent("slice \(i): packed header of \(packed.bitLength) bits is not whole bytes within its \(packed.bytes.count)")
            }
        }
        guard covered == sps.picSizeInCtbs else { throw .inconsistent("the slices cover \(covered) CTBs of \(sps.picSizeInCtbs)") }
    }
}
