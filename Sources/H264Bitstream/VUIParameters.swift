/// vui_parameters() (E.1.1), HRD parameters included.
public struct VUIParameters: Hashable, Sendable {
    public var aspectRatioInfoPresentFlag = false
    public var aspectRatioIdc: UInt8 = 0
    public var sarWidth = 0
    public var sarHeight = 0
    public var overscanInfoPresentFlag = false
    public var overscanAppropriateFlag = false
    public var videoSignalTypePresentFlag = false
    public var videoFormat: UInt8 = 5
    public var videoFullRangeFlag = false
    public var colourDescriptionPresentFlag = false
    public var colourPrimaries: UInt8 = 2
    public var transferCharacteristics: UInt8 = 2
    public var matrixCoefficients: UInt8 = 2
    public var chromaLocInfoPresentFlag = false
    public var chromaSampleLocTypeTopField = 0
    public var chromaSampleLocTypeBottomField = 0
    public var timingInfoPresentFlag = false
    public var numUnitsInTick: UInt32 = 0
    public var timeScale: UInt32 = 0
    public var fixedFrameRateFlag = false
    public var nalHrdParametersPresentFlag = false
    public var nalHrd = HRDParameters()
    public var vclHrdParametersPresentFlag = false
    public var vclHrd = HRDParameters()
    public var lowDelayHrdFlag = false
    public var picStructPresentFlag = false
    public var bitstreamRestrictionFlag = false
    public var motionVectorsOverPicBoundariesFlag = true
    public var maxBytesPerPicDenom = 2
    public var maxBitsPerMbDenom = 1
    public var log2MaxMvLengthHorizontal = 15
    public var log2MaxMvLengthVertical = 15
    public var maxNumReorderFrames = 16
    public var maxDecFrameBuffering = 16
    /// True when the SPS ended inside the VUI: the fields read before the end are kept, the rest keep
    /// their inferred values. Some encoders write such streams, and FFmpeg accepts them too.
    public var isTruncated = false

    public init() {}

    /// Sample aspect ratios of Table E-1, by aspect_ratio_idc (1...16).
    static let tableE1: [(Int, Int)] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]

    /// The sample aspect ratio, when signalled (Table E-1 or Extended_SAR).
    public var sampleAspectRatio: (width: Int, height: Int)? {
        guard aspectRatioInfoPresentFlag else { return nil }
        if aspectRatioIdc == 255 { return sarWidth > 0 && sarHeight > 0 ? (sarWidth, sarHeight) : nil }
        guard (1...16).contains(aspectRatioIdc) else { return nil }
        return Self.tableE1[Int(aspectRatioIdc) - 1]
    }

    init(_ r: inout BitReader) throws(BitstreamError) {
        do {
            try read(&r)
        } catch .overrun {
            isTruncated = true
        }
    }

    private mutating func read(_ r: inout BitReader) throws(BitstreamError) {
        aspectRatioInfoPresentFlag = try r.flag()
        if aspectRatioInfoPresentFlag {
            aspectRatioIdc = UInt8(try r.u(8))
            if aspectRatioIdc == 255 {
                sarWidth = Int(try r.u(16))
                sarHeight = Int(try r.u(16))
            }
        }
        overscanInfoPresentFlag = try r.flag()
        if overscanInfoPresentFlag { overscanAppropriateFlag = try r.flag() }
        videoSignalTypePresentFlag = try r.flag()
        if videoSignalTypePresentFlag {
            videoFormat = UInt8(try r.u(3))
            videoFullRangeFlag = try r.flag()
            colourDescriptionPresentFlag = try r.flag()
            if colourDescriptionPresentFlag {
                colourPrimaries = UInt8(try r.u(8))
                transferCharacteristics = UInt8(try r.u(8))
                matrixCoefficients = UInt8(try r.u(8))
            }
        }
        chromaLocInfoPresentFlag = try r.flag()
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try r.ue(max: 5, "chroma_sample_loc_type_top_field")
            chromaSampleLocTypeBottomField = try r.ue(max: 5, "chroma_sample_loc_type_bottom_field")
        }
        timingInfoPresentFlag = try r.flag()
        if timingInfoPresentFlag {
            numUnitsInTick = try r.u(32)
            timeScale = try r.u(32)
            fixedFrameRateFlag = try r.flag()
        }
        nalHrdParametersPresentFlag = try r.flag()
        if nalHrdParametersPresentFlag { nalHrd = try HRDParameters(&r) }
        vclHrdParametersPresentFlag = try r.flag()
        if vclHrdParametersPresentFlag { vclHrd = try HRDParameters(&r) }
        if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag { lowDelayHrdFlag = try r.flag() }
        picStructPresentFlag = try r.flag()
        bitstreamRestrictionFlag = try r.flag()
        if bitstreamRestrictionFlag {
            motionVectorsOverPicBoundariesFlag = try r.flag()
            maxBytesPerPicDenom = try r.ue(max: 16, "max_bytes_per_pic_denom")
            maxBitsPerMbDenom = try r.ue(max: 16, "max_bits_per_mb_denom")
            log2MaxMvLengthHorizontal = try r.ue(max: 16, "log2_max_mv_length_horizontal")
            log2MaxMvLengthVertical = try r.ue(max: 16, "log2_max_mv_length_vertical")
            maxNumReorderFrames = try r.ue(max: 16, "max_num_reorder_frames")
            maxDecFrameBuffering = try r.ue(max: 16, "max_dec_frame_buffering")
        }
    }

    func write(_ w: inout BitWriter) {
        w.flag(aspectRatioInfoPresentFlag)
        if aspectRatioInfoPresentFlag {
            w.u(8, Int(aspectRatioIdc))
            if aspectRatioIdc == 255 { w.u(16, sarWidth); w.u(16, sarHeight) }
        }
        w.flag(overscanInfoPresentFlag)
        if overscanInfoPresentFlag { w.flag(overscanAppropriateFlag) }
        w.flag(videoSignalTypePresentFlag)
        if videoSignalTypePresentFlag {
            w.u(3, Int(videoFormat))
            w.flag(videoFullRangeFlag)
            w.flag(colourDescriptionPresentFlag)
            if colourDescriptionPresentFlag {
                w.u(8, Int(colourPrimaries)); w.u(8, Int(transferCharacteristics)); w.u(8, Int(matrixCoefficients))
            }
        }
        w.flag(chromaLocInfoPresentFlag)
        if chromaLocInfoPresentFlag { w.ue(chromaSampleLocTypeTopField); w.ue(chromaSampleLocTypeBottomField) }
        w.flag(timingInfoPresentFlag)
        if timingInfoPresentFlag { w.u(32, numUnitsInTick); w.u(32, timeScale); w.flag(fixedFrameRateFlag) }
        w.flag(nalHrdParametersPresentFlag)
        if nalHrdParametersPresentFlag { nalHrd.write(&w) }
        w.flag(vclHrdParametersPresentFlag)
        if vclHrdParametersPresentFlag { vclHrd.write(&w) }
        if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag { w.flag(lowDelayHrdFlag) }
        w.flag(picStructPresentFlag)
        w.flag(bitstreamRestrictionFlag)
        if bitstreamRestrictionFlag {
            w.flag(motionVectorsOverPicBoundariesFlag)
            w.ue(maxBytesPerPicDenom); w.ue(maxBitsPerMbDenom)
            w.ue(log2MaxMvLengthHorizontal); w.ue(log2MaxMvLengthVertical)
            w.ue(maxNumReorderFrames); w.ue(maxDecFrameBuffering)
        }
    }
}

/// hrd_parameters() (E.1.2).
public struct HRDParameters: Hashable, Sendable {
    public struct SchedSel: Hashable, Sendable {
        public var bitRateValueMinus1: UInt32 = 0
        public var cpbSizeValueMinus1: UInt32 = 0
        public var cbrFlag = false
        public init() {}
    }
    public var bitRateScale: UInt8 = 0
    public var cpbSizeScale: UInt8 = 0
    /// cpb_cnt_minus1 + 1 entries.
    public var schedSel: [SchedSel] = [SchedSel()]
    public var initialCpbRemovalDelayLengthMinus1: UInt8 = 23
    public var cpbRemovalDelayLengthMinus1: UInt8 = 23
    public var dpbOutputDelayLengthMinus1: UInt8 = 23
    public var timeOffsetLength: UInt8 = 24

    public init() {}

    public var cpbCntMinus1: Int { schedSel.count - 1 }

    init(_ r: inout BitReader) throws(BitstreamError) {
        let count = try r.ue(max: 31, "cpb_cnt_minus1") + 1
        bitRateScale = UInt8(try r.u(4))
        cpbSizeScale = UInt8(try r.u(4))
        schedSel = []
        for _ in 0..<count {
            var s = SchedSel()
            s.bitRateValueMinus1 = try r.ue()
            s.cpbSizeValueMinus1 = try r.ue()
            s.cbrFlag = try r.flag()
            schedSel.append(s)
        }
        initialCpbRemovalDelayLengthMinus1 = UInt8(try r.u(5))
        cpbRemovalDelayLengthMinus1 = UInt8(try r.u(5))
        dpbOutputDelayLengthMinus1 = UInt8(try r.u(5))
        timeOffsetLength = UInt8(try r.u(5))
    }

    func write(_ w: inout BitWriter) {
        w.ue(schedSel.count - 1)
        w.u(4, Int(bitRateScale)); w.u(4, Int(cpbSizeScale))
        for s in schedSel { w.ue(s.bitRateValueMinus1); w.ue(s.cpbSizeValueMinus1); w.flag(s.cbrFlag) }
        w.u(5, Int(initialCpbRemovalDelayLengthMinus1)); w.u(5, Int(cpbRemovalDelayLengthMinus1))
        w.u(5, Int(dpbOutputDelayLengthMinus1)); w.u(5, Int(timeOffsetLength))
    }
}
