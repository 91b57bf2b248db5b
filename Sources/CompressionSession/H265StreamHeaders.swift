import H265Bitstream
import NALStream

/// The VPS, SPS, PPS and slice segment headers of the H.265 stream vtk encodes, as H265Bitstream values: the
/// one source for the VA parameter buffers (``H265EncodeParameters``) and for the packed headers sent to
/// drivers that take them. The pictures and their references come from the same GOP planner as H.264's.
struct H265StreamHeaders {
    let configuration: EncoderConfiguration
    let vps: VideoParameterSet
    let sps: H265SequenceParameterSet
    let pps: H265PictureParameterSet

    init(configuration c: EncoderConfiguration) {
        configuration = c
        var ptl = ProfileTierLevel()
        let main10 = c.hevcProfile == .main10
        ptl.generalProfileIdc = main10 ? 2 : 1
        // A.3.2/A.3.3: Main streams are Main 10 streams too; each profile flags itself.
        ptl.generalProfileCompatibilityFlags = main10 ? 1 << 29 : (1 << 30) | (1 << 29)
        ptl.generalProgressiveSourceFlag = true
        ptl.generalNonPackedConstraintFlag = true
        ptl.generalFrameOnlyConstraintFlag = true
        ptl.generalLevelIdc = c.levelIdc

        var s = H265SequenceParameterSet()
        s.profileTierLevel = ptl
        s.chromaFormatIdc = 1
        s.picWidthInLumaSamples = c.codedWidth
        s.picHeightInLumaSamples = c.codedHeight
        // Conformance window in chroma sample units (SubWidthC = SubHeightC = 2, 7.4.3.2.1).
        let cropRight = (c.codedWidth - c.width) / 2, cropBottom = (c.codedHeight - c.height) / 2
        if cropRight > 0 || cropBottom > 0 {
            s.conformanceWindowFlag = true
            s.confWinRightOffset = cropRight
            s.confWinBottomOffset = cropBottom
        }
        s.bitDepthLumaMinus8 = c.bitDepth - 8
        s.bitDepthChromaMinus8 = c.bitDepth - 8
        s.log2MaxPicOrderCntLsbMinus4 = c.log2MaxPicOrderCntLsb - 4
        // The DPB holds the references, a waiting B picture and the current one (C.5.2.2).
        s.maxDecPicBufferingMinus1 = [c.maxDecFrameBuffering]
        s.maxNumReorderPics = [c.maxNumReorderFrames]
        s.maxLatencyIncreasePlus1 = [0]
        // Coding blocks 8x8 up to the CTB, transforms 4x4 up to 32x32 (at most the CTB), as FFmpeg sets them.
        s.log2MinLumaCodingBlockSizeMinus3 = 0
        s.log2DiffMaxMinLumaCodingBlockSize = c.ctbLog2Size - 3
        s.log2MinLumaTransformBlockSizeMinus2 = 0
        s.log2DiffMaxMinLumaTransformBlockSize = min(c.ctbLog2Size, 5) - 2
        s.maxTransformHierarchyDepthInter = 3
        s.maxTransformHierarchyDepthIntra = 3
        s.ampEnabledFlag = true
        s.sampleAdaptiveOffsetEnabledFlag = c.sampleAdaptiveOffset
        s.temporalMvpEnabledFlag = false
        s.strongIntraSmoothingEnabledFlag = false
        s.vuiParametersPresentFlag = true
        var v = H265VUIParameters()
        v.describeSquareLimitedRange(c.colourDescription)
        v.describeFrameRate(c.frameRate, ticksPerFrame: 1)
        // POC counts frames: one tick of POC per frame (E.3.1), as FFmpeg states it.
        v.pocProportionalToTimingFlag = true
        v.numTicksPocDiffOneMinus1 = 0
        v.bitstreamRestrictionFlag = true
        v.motionVectorsOverPicBoundariesFlag = true
        v.restrictedRefPicListsFlag = true
        v.maxBytesPerPicDenom = 0
        v.maxBitsPerMinCuDenom = 0
        v.log2MaxMvLengthHorizontal = 15
        v.log2MaxMvLengthVertical = 15
        s.vui = v
        sps = s

        var vp = VideoParameterSet()
        vp.profileTierLevel = ptl
        vp.maxDecPicBufferingMinus1 = s.maxDecPicBufferingMinus1
        vp.maxNumReorderPics = s.maxNumReorderPics
        vp.maxLatencyIncreasePlus1 = s.maxLatencyIncreasePlus1
        vp.timingInfoPresentFlag = true
        vp.numUnitsInTick = v.numUnitsInTick
        vp.timeScale = v.timeScale
        vps = vp

        var p = H265PictureParameterSet()
        p.numRefIdxL0DefaultActiveMinus1 = 0
        p.numRefIdxL1DefaultActiveMinus1 = 0
        // Under a rate controller the first QP is the driver's; the PPS says 30, as FFmpeg's hevc_vaapi writes it.
        p.initQpMinus26 = c.rateControl == .constantQP ? c.initialQuantizer - 26 : 4
        // A rate controller adapts the QP inside the picture (FFmpeg: cu_qp_delta with every mode but CQP).
        p.cuQpDeltaEnabledFlag = c.rateControl != .constantQP
        p.loopFilterAcrossSlicesEnabledFlag = true
        pps = p
    }

    /// nal_unit_type of a planned picture (Table 7-1): IDR_W_RADL for IDRs, CRA for open-GOP I pictures,
    /// RASL for the B pictures that precede a CRA in output order, else TRAIL; _R when referenced.
    static func nalUnitType(_ plan: H264GOPPlanner.PicturePlan, leading: Bool) -> H265NALUnitType {
        switch plan.type {
        case .idr: return .idrWRADL
        case .i: return .cra
        default:
            if leading { return plan.isReference ? .raslR : .raslN }
            return plan.isReference ? .trailR : .trailN
        }
    }

    /// The slice type: I, P, or B; with low-delay B, P pictures are B slices predicting from list 1 = list 0.
    func sliceType(_ plan: H264GOPPlanner.PicturePlan) -> H265SliceType {
        switch plan.type {
        case .idr, .i: return .i
        case .p: return configuration.lowDelayB ? .b : .p
        case .b: return .b
        }
    }

    /// RefPicList0 and RefPicList1 as coded: the plan's, list 1 = list 0 for low-delay B.
    func lists(_ plan: H264GOPPlanner.PicturePlan) -> (list0: [H264GOPPlanner.Reference], list1: [H264GOPPlanner.Reference]) {
        if plan.type == .p && configuration.lowDelayB { return (plan.list0, plan.list0) }
        return (plan.list0, plan.list1)
    }

    /// The short-term RPS (7.4.8): every reference the planner holds, before the current picture in
    /// descending POC and after it ascending, used when a list names it; the order 8.3.4 builds the lists
    /// in, so the planned lists are the initial ones and need no modification.
    func referencePictureSet(_ plan: H264GOPPlanner.PicturePlan) -> ShortTermReferencePictureSet {
        let (l0, l1) = lists(plan)
        let used = Set((l0 + l1).map(\.picOrderCnt))
        var rps = ShortTermReferencePictureSet()
        for r in plan.referenceFrames.filter({ $0.picOrderCnt < plan.picOrderCnt }).sorted(by: { $0.picOrderCnt > $1.picOrderCnt }) {
            rps.deltaPocS0.append(r.picOrderCnt - plan.picOrderCnt)
            rps.usedByCurrPicS0.append(used.contains(r.picOrderCnt))
        }
        for r in plan.referenceFrames.filter({ $0.picOrderCnt > plan.picOrderCnt }).sorted(by: { $0.picOrderCnt < $1.picOrderCnt }) {
            rps.deltaPocS1.append(r.picOrderCnt - plan.picOrderCnt)
            rps.usedByCurrPicS1.append(used.contains(r.picOrderCnt))
        }
        return rps
    }

    /// The slice segment header of a one-slice picture as planned (7.3.6.1).
    func sliceHeader(_ plan: H264GOPPlanner.PicturePlan, leading: Bool) -> H265SliceSegmentHeader {
        var h = H265SliceSegmentHeader()
        h.nalUnitType = Self.nalUnitType(plan, leading: leading)
        h.firstSliceSegmentInPicFlag = true
        h.picParameterSetId = pps.id
        h.sliceType = sliceType(plan)
        h.picOrderCntLsb = plan.picOrderCnt & (sps.maxPicOrderCntLsb - 1)
        if !plan.isIDR { h.shortTermRefPicSet = referencePictureSet(plan) }
        let (l0, l1) = lists(plan)
        if h.sliceType != .i {
            h.numRefIdxL0ActiveMinus1 = max(0, l0.count - 1)
            h.numRefIdxL1ActiveMinus1 = h.sliceType == .b ? max(0, l1.count - 1) : 0
            h.numRefIdxActiveOverrideFlag = h.numRefIdxL0ActiveMinus1 != pps.numRefIdxL0DefaultActiveMinus1
                || (h.sliceType == .b && h.numRefIdxL1ActiveMinus1 != pps.numRefIdxL1DefaultActiveMinus1)
            h.fiveMinusMaxNumMergeCand = 0
        }
        // SAO on every slice when the SPS enables it, as FFmpeg sets them.
        h.saoLumaFlag = sps.sampleAdaptiveOffsetEnabledFlag
        h.saoChromaFlag = sps.sampleAdaptiveOffsetEnabledFlag
        h.qpDelta = configuration.rateControl == .constantQP ? configuration.quantizer(for: plan) - (26 + pps.initQpMinus26) : 0
        // One slice per picture: nothing to filter across (FFmpeg leaves it 0 too).
        h.loopFilterAcrossSlicesEnabledFlag = false
        return h
    }

    /// VPS, SPS and PPS as NAL units (for the format description and the packed sequence header).
    var parameterSetNALUnits: [NALUnit] {
        [H265HeaderBytes.nalUnit(vps), H265HeaderBytes.nalUnit(sps), H265HeaderBytes.nalUnit(pps)].map { NALUnit($0) }
    }

    /// The packed sequence header, as FFmpeg sends it: VPS, SPS and PPS in one VAEncPackedHeaderSequence.
    var packedSequence: [UInt8] { AnnexBScanner.byteStream(parameterSetNALUnits) }

    /// The slice header for VAEncPackedHeaderSlice: start code, NAL unit header, slice_segment_header() and
    /// byte_alignment() (7.3.6.1, as FFmpeg sends it), escaped, every bit counted.
    func packedSliceHeader(_ plan: H264GOPPlanner.PicturePlan, leading: Bool) -> (bytes: [UInt8], bits: Int) {
        let header = H265HeaderBytes.sliceHeader(sliceHeader(plan, leading: leading), sps: sps, pps: pps)
        let bytes: [UInt8] = [0, 0, 0, 1] + EmulationPrevention.insert(header)
        return (bytes, bytes.count * 8)
    }
}
