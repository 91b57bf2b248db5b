import H264Bitstream

/// The SPS, PPS and slice headers of the stream vtk encodes, as H264Bitstream values. They are the one
/// source both for the VA parameter buffers (``H264EncodeParameters`` copies their fields) and for the
/// packed headers sent to drivers that take them (written by H264Bitstream's writers).
struct H264StreamHeaders {
    let configuration: EncoderConfiguration
    let sps: SequenceParameterSet
    let pps: PictureParameterSet

    init(configuration c: EncoderConfiguration) {
        configuration = c
        var s = SequenceParameterSet()
        switch c.profile {
        case .constrainedBaseline:
            s.profileIdc = 66
            s.constraintSet1Flag = true  // Constrained Baseline (A.2.1.1)
        case .main:
            s.profileIdc = 77
            s.constraintSet1Flag = true
            s.constraintSet4Flag = true  // frame_mbs_only_flag is 1 (A.2.2), as FFmpeg marks it
            s.constraintSet5Flag = c.bFrames == 0  // no B slices (A.2.2)
        case .high:
            s.profileIdc = 100
            s.constraintSet4Flag = true  // progressive (A.2.4.1)
            s.constraintSet5Flag = c.bFrames == 0  // constrained: no B slices (A.2.4.2)
        }
        s.levelIdc = UInt8(c.levelIdc)
        s.seqParameterSetId = 0
        s.chromaFormatIdc = 1
        s.log2MaxFrameNumMinus4 = c.log2MaxFrameNum - 4
        s.picOrderCntType = 0
        s.log2MaxPicOrderCntLsbMinus4 = c.log2MaxPicOrderCntLsb - 4
        s.maxNumRefFrames = c.maxNumRefFrames
        s.picWidthInMbsMinus1 = c.widthInMbs - 1
        s.picHeightInMapUnitsMinus1 = c.heightInMbs - 1
        s.frameMbsOnlyFlag = true
        s.direct8x8InferenceFlag = true
        // Cropping in units of 2 luma samples for 4:2:0 frames (CropUnitX/Y, 7.4.2.1.1).
        let cropRight = (c.codedWidth - c.width) / 2, cropBottom = (c.codedHeight - c.height) / 2
        if cropRight > 0 || cropBottom > 0 {
            s.frameCroppingFlag = true
            s.frameCropRightOffset = cropRight
            s.frameCropBottomOffset = cropBottom
        }
        s.vuiParametersPresentFlag = true
        var v = VUIParameters()
        v.describeSquareLimitedRange(c.colourDescription)
        // Timing (two ticks a frame), so --fps reaches raw .h264 files.
        v.describeFrameRate(c.frameRate, ticksPerFrame: 2)
        v.fixedFrameRateFlag = true
        if c.rateControl != .constantQP {
            // NAL HRD (E.1.2) with the rate controller's bit rate and buffer, scaled as FFmpeg scales them.
            v.nalHrdParametersPresentFlag = true
            v.nalHrd = Self.hrd(bitsPerSecond: c.bitsPerSecond, bufferBits: c.bitsPerSecond)
        }
        // How many frames a decoder must hold back: without it a B stream is played with the worst-case delay.
        v.bitstreamRestrictionFlag = true
        v.motionVectorsOverPicBoundariesFlag = true
        v.maxBytesPerPicDenom = 0
        v.maxBitsPerMbDenom = 0
        v.log2MaxMvLengthHorizontal = 15
        v.log2MaxMvLengthVertical = 15
        v.maxNumReorderFrames = c.maxNumReorderFrames
        v.maxDecFrameBuffering = c.maxDecFrameBuffering
        s.vui = v
        sps = s

        var p = PictureParameterSet()
        p.picParameterSetId = 0
        p.seqParameterSetId = 0
        p.entropyCodingModeFlag = c.cabac
        // Defaults of one reference each; a slice with more overrides them (as FFmpeg writes).
        p.numRefIdxL0DefaultActiveMinus1 = 0
        p.numRefIdxL1DefaultActiveMinus1 = 0
        p.picInitQpMinus26 = c.rateControl == .constantQP ? c.initialQuantizer - 26 : 0
        // The deblocking filter with default strength everywhere: no slice fields for it (as FFmpeg).
        p.deblockingFilterControlPresentFlag = false
        if c.profile == .high {
            p.hasHighProfileTail = true
            p.transform8x8ModeFlag = true
        }
        pps = p
    }

    /// hrd_parameters() for one schedule: bit rate in units of 2^(6 + bit_rate_scale), buffer in units of
    /// 2^(4 + cpb_size_scale) (E.2.2), the scales as small as the 16 significant bits FFmpeg keeps allow.
    /// cbr_flag stays 0 even for CBR, as FFmpeg writes it: a driver's CBR need not stuff filler data, which
    /// cbr_flag 1 would promise (C.1).
    static func hrd(bitsPerSecond: Int, bufferBits: Int) -> HRDParameters {
        func log2(_ n: Int) -> Int { n > 0 ? Int.bitWidth - 1 - n.leadingZeroBitCount : 0 }
        var h = HRDParameters()
        h.bitRateScale = UInt8(min(15, max(0, log2(bitsPerSecond) - 15 - 6)))
        h.cpbSizeScale = UInt8(min(15, max(0, log2(bufferBits) - 15 - 4)))
        var schedule = HRDParameters.SchedSel()
        schedule.bitRateValueMinus1 = UInt32((bitsPerSecond >> (6 + Int(h.bitRateScale))) - 1)
        schedule.cpbSizeValueMinus1 = UInt32((bufferBits >> (4 + Int(h.cpbSizeScale))) - 1)
        schedule.cbrFlag = false
        h.schedSel = [schedule]
        h.initialCpbRemovalDelayLengthMinus1 = 23
        h.cpbRemovalDelayLengthMinus1 = 23
        h.dpbOutputDelayLengthMinus1 = 7
        h.timeOffsetLength = 0
        return h
    }

    var spsNALUnit: NALUnit { sps.nalUnit() }
    var ppsNALUnit: NALUnit { pps.nalUnit(sps: sps) }

    /// The slice header of a one-slice picture as planned (7.3.3), with list modifications wherever the
    /// planned lists differ from the initial ones (8.2.4.2).
    func sliceHeader(_ plan: H264GOPPlanner.PicturePlan) -> SliceHeader {
        var h = SliceHeader()
        h.nalUnitType = plan.isIDR ? .idrSlice : .nonIDRSlice
        h.nalRefIdc = UInt8(plan.nalRefIdc)
        h.firstMbInSlice = 0
        h.sliceTypeRaw = plan.type.sliceType + 5  // 5...9: every slice of the picture has this type (Table 7-6), as FFmpeg writes
        h.picParameterSetId = pps.picParameterSetId
        h.frameNum = plan.frameNum
        h.idrPicId = plan.isIDR ? plan.idrPicId : 0
        h.picOrderCntLsb = plan.picOrderCntLsb
        h.directSpatialMvPredFlag = plan.type == .b
        h.numRefIdxL0ActiveMinus1 = max(0, plan.list0.count - 1)
        h.numRefIdxL1ActiveMinus1 = max(0, plan.list1.count - 1)
        h.numRefIdxActiveOverrideFlag = (plan.type == .p || plan.type == .b)
            && (h.numRefIdxL0ActiveMinus1 != pps.numRefIdxL0DefaultActiveMinus1
                || (plan.type == .b && h.numRefIdxL1ActiveMinus1 != pps.numRefIdxL1DefaultActiveMinus1))
        let initial = H264InitialReferenceLists(plan: plan, maxFrameNum: sps.maxFrameNum)
        if !plan.list0.isEmpty, let m = initial.modifications(plan.list0, initial: initial.list0) {
            h.refPicListModificationFlagL0 = true
            h.refPicListModificationL0 = m
        }
        if !plan.list1.isEmpty, let m = initial.modifications(plan.list1, initial: initial.list1) {
            h.refPicListModificationFlagL1 = true
            h.refPicListModificationL1 = m
        }
        if plan.isReference { h.decRefPicMarking = DecRefPicMarking() }  // sliding window; no MMCO
        h.cabacInitIdc = 0
        h.sliceQpDelta = configuration.quantizer(for: plan) - (26 + pps.picInitQpMinus26)
        h.disableDeblockingFilterIdc = 0
        return h
    }

    /// The SEI sent before an open-GOP I picture (VAEncPackedHeaderRawData, as FFmpeg sends it): a recovery
    /// point (D.1.8), so a decoder may start there and is exact from that picture on. nil for other pictures.
    func packedSEI(_ plan: H264GOPPlanner.PicturePlan) -> [UInt8]? {
        guard plan.type == .i else { return nil }
        return AnnexBScanner.byteStream([SEIMessage.nalUnit([RecoveryPoint(recoveryFrameCnt: 0).message])])
    }

    /// The slice header for VAEncPackedHeaderSlice, as FFmpeg sends it: start code, NAL header byte and
    /// slice_header() (with CABAC, the alignment one bits after it), padded with zero bits to a byte and escaped (emulation prevention), with its length in
    /// bits up to the last header bit. The driver appends the slice data.
    func packedSliceHeader(_ plan: H264GOPPlanner.PicturePlan) -> (bytes: [UInt8], bits: Int) {
        var w = BitWriter()
        sliceHeader(plan).writeHeaderRBSP(&w, sps: sps, pps: pps)
        // CABAC slice data starts byte-aligned after cabac_alignment_one_bits (7.3.4): they belong to the header here.
        if pps.entropyCodingModeFlag { while !w.isByteAligned { w.u(1, 1) } }
        let padding = (8 - w.bitCount % 8) % 8
        w.alignWithZeros()
        let nal = [NALUnitHeader(nalRefIdc: UInt8(plan.nalRefIdc), nalUnitType: plan.isIDR ? .idrSlice : .nonIDRSlice).byte]
            + EmulationPrevention.insert(w.bytes)
        let bytes: [UInt8] = [0, 0, 0, 1] + nal
        return (bytes, bytes.count * 8 - padding)
    }
}

/// The initial reference lists a decoder builds for a frame (8.2.4.2.1 for P, 8.2.4.2.3 for B), from the
/// references the planner holds, and the ref_pic_list_modification() that turns them into the planned ones.
struct H264InitialReferenceLists {
    let list0: [H264GOPPlanner.Reference]
    let list1: [H264GOPPlanner.Reference]
    let currentFrameNum: Int
    let maxFrameNum: Int

    init(plan: H264GOPPlanner.PicturePlan, maxFrameNum: Int) {
        currentFrameNum = plan.frameNum
        self.maxFrameNum = maxFrameNum
        let refs = plan.referenceFrames
        func wrap(_ r: H264GOPPlanner.Reference) -> Int { r.frameNum > plan.frameNum ? r.frameNum - maxFrameNum : r.frameNum }
        switch plan.type {
        case .p:
            // Descending PicNum (= FrameNumWrap for frames).
            list0 = refs.sorted { wrap($0) > wrap($1) }
            list1 = []
        case .b:
            let before = refs.filter { $0.picOrderCnt < plan.picOrderCnt }.sorted { $0.picOrderCnt > $1.picOrderCnt }
            let after = refs.filter { $0.picOrderCnt > plan.picOrderCnt }.sorted { $0.picOrderCnt < $1.picOrderCnt }
            list0 = before + after
            var l1 = after + before
            // When list 1 equals list 0 and has more than one entry, its first two swap (8.2.4.2.3).
            if l1.count > 1 && l1 == list0 { l1.swapAt(0, 1) }
            list1 = l1
        case .i, .idr:
            list0 = []
            list1 = []
        }
    }

    /// The modifications that make `wanted` the head of the list, or nil when `initial` already starts with it (8.2.4.3.1).
    func modifications(_ wanted: [H264GOPPlanner.Reference], initial: [H264GOPPlanner.Reference]) -> [RefPicListModification]? {
        if initial.count >= wanted.count && Array(initial.prefix(wanted.count)) == wanted { return nil }
        var predicted = currentFrameNum  // CurrPicNum for a frame
        var out: [RefPicListModification] = []
        for ref in wanted {
            let picNum = ref.frameNum > currentFrameNum ? ref.frameNum - maxFrameNum : ref.frameNum
            if picNum < predicted {
                out.append(RefPicListModification(modificationOfPicNumsIdc: 0, value: predicted - picNum - 1))
            } else {
                out.append(RefPicListModification(modificationOfPicNumsIdc: 1, value: picNum - predicted - 1))
            }
            predicted = picNum
        }
        return out
    }
}
