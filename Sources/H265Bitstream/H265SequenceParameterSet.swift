import NALStream

/// seq_parameter_set_rbsp() of H.265 (7.3.2.2) with the range extension; the multilayer, 3D and SCC
/// extensions are noted (their flags) but not read.
public struct H265SequenceParameterSet: Hashable, Sendable {
    public var videoParameterSetId = 0
    public var maxSubLayersMinus1 = 0
    public var temporalIdNestingFlag = true
    public var profileTierLevel = ProfileTierLevel()
    public var id = 0
    public var chromaFormatIdc = 1
    public var separateColourPlaneFlag = false
    public var picWidthInLumaSamples = 0
    public var picHeightInLumaSamples = 0
    public var conformanceWindowFlag = false
    public var confWinLeftOffset = 0
    public var confWinRightOffset = 0
    public var confWinTopOffset = 0
    public var confWinBottomOffset = 0
    public var bitDepthLumaMinus8 = 0
    public var bitDepthChromaMinus8 = 0
    public var log2MaxPicOrderCntLsbMinus4 = 0
    /// By HighestTid (0...sps_max_sub_layers_minus1), filled in for the sub-layers not signalled.
    public var maxDecPicBufferingMinus1: [Int] = []
    public var maxNumReorderPics: [Int] = []
    public var maxLatencyIncreasePlus1: [Int] = []
    public var log2MinLumaCodingBlockSizeMinus3 = 0
    public var log2DiffMaxMinLumaCodingBlockSize = 0
    public var log2MinLumaTransformBlockSizeMinus2 = 0
    public var log2DiffMaxMinLumaTransformBlockSize = 0
    public var maxTransformHierarchyDepthInter = 0
    public var maxTransformHierarchyDepthIntra = 0
    public var scalingListEnabledFlag = false
    public var scalingListDataPresentFlag = false
    public var scalingList: H265ScalingList?
    public var ampEnabledFlag = false
    public var sampleAdaptiveOffsetEnabledFlag = false
    public var pcmEnabledFlag = false
    public var pcmSampleBitDepthLumaMinus1 = 0
    public var pcmSampleBitDepthChromaMinus1 = 0
    public var log2MinPcmLumaCodingBlockSizeMinus3 = 0
    public var log2DiffMaxMinPcmLumaCodingBlockSize = 0
    public var pcmLoopFilterDisabledFlag = false
    public var shortTermRefPicSets: [ShortTermReferencePictureSet] = []
    public var longTermRefPicsPresentFlag = false
    public var ltRefPicPocLsbSps: [Int] = []
    public var usedByCurrPicLtSpsFlag: [Bool] = []
    public var temporalMvpEnabledFlag = false
    public var strongIntraSmoothingEnabledFlag = false
    public var vuiParametersPresentFlag = false
    public var vui = H265VUIParameters()
    public var extensionFlags = H265ExtensionFlags()
    /// sps_range_extension() (7.3.2.2.2) flags, in syntax order.
    public var rangeExtension = RangeExtension()

    public struct RangeExtension: Hashable, Sendable {
        public var transformSkipRotationEnabledFlag = false
        public var transformSkipContextEnabledFlag = false
        public var implicitRdpcmEnabledFlag = false
        public var explicitRdpcmEnabledFlag = false
        public var extendedPrecisionProcessingFlag = false
        public var intraSmoothingDisabledFlag = false
        public var highPrecisionOffsetsEnabledFlag = false
        public var persistentRiceAdaptationEnabledFlag = false
        public var cabacBypassAlignmentEnabledFlag = false
        public init() {}
        /// True when any tool of the range extensions is switched on (vtk decodes none of them).
        public var usesAny: Bool {
            transformSkipRotationEnabledFlag || transformSkipContextEnabledFlag || implicitRdpcmEnabledFlag || explicitRdpcmEnabledFlag
                || extendedPrecisionProcessingFlag || intraSmoothingDisabledFlag || highPrecisionOffsetsEnabledFlag
                || persistentRiceAdaptationEnabledFlag || cabacBypassAlignmentEnabledFlag
        }
    }

    public init() {}

    public init(nalUnit: NALUnit) throws(BitstreamError) {
        var r = SyntaxReader(nalUnit: nalUnit)
        try self.init(&r)
    }

    public init(_ r: inout SyntaxReader) throws(BitstreamError) {
        videoParameterSetId = try r.u(4, "sps_video_parameter_set_id")
        maxSubLayersMinus1 = try r.u(3, "sps_max_sub_layers_minus1")
        guard maxSubLayersMinus1 < 7 else { throw .invalidValue(element: "sps_max_sub_layers_minus1", value: 7, bitOffset: 4) }
        temporalIdNestingFlag = try r.flag("sps_temporal_id_nesting_flag")
        profileTierLevel = try ProfileTierLevel(&r, profilePresent: true, maxNumSubLayersMinus1: maxSubLayersMinus1)
        id = try r.ue("sps_seq_parameter_set_id", max: 15)
        chromaFormatIdc = try r.ue("chroma_format_idc", max: 3)
        if chromaFormatIdc == 3 { separateColourPlaneFlag = try r.flag("separate_colour_plane_flag") }
        let sizeAt = r.position
        picWidthInLumaSamples = try r.ue("pic_width_in_luma_samples", max: 16888)
        picHeightInLumaSamples = try r.ue("pic_height_in_luma_samples", max: 16888)
        guard picWidthInLumaSamples > 0, picHeightInLumaSamples > 0 else {
            throw .invalidValue(element: "pic_width/height_in_luma_samples", value: 0, bitOffset: sizeAt)
        }
        conformanceWindowFlag = try r.flag("conformance_window_flag")
        if conformanceWindowFlag {
            confWinLeftOffset = try r.ue("conf_win_left_offset", max: 8444)
            confWinRightOffset = try r.ue("conf_win_right_offset", max: 8444)
            confWinTopOffset = try r.ue("conf_win_top_offset", max: 8444)
            confWinBottomOffset = try r.ue("conf_win_bottom_offset", max: 8444)
        }
        bitDepthLumaMinus8 = try r.ue("bit_depth_luma_minus8", max: 8)
        bitDepthChromaMinus8 = try r.ue("bit_depth_chroma_minus8", max: 8)
        log2MaxPicOrderCntLsbMinus4 = try r.ue("log2_max_pic_order_cnt_lsb_minus4", max: 12)
        let orderingInfo = try r.flag("sps_sub_layer_ordering_info_present_flag")
        for i in (orderingInfo ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            maxDecPicBufferingMinus1.append(try r.ue("sps_max_dec_pic_buffering_minus1[\(i)]", max: 15))
            maxNumReorderPics.append(try r.ue("sps_max_num_reorder_pics[\(i)]", max: 15))
            maxLatencyIncreasePlus1.append(try r.ue("sps_max_latency_increase_plus1[\(i)]"))
        }
        if !orderingInfo {  // 7.4.3.2.1: the lower sub-layers take the highest one's values
            maxDecPicBufferingMinus1 = Array(repeating: maxDecPicBufferingMinus1[0], count: maxSubLayersMinus1 + 1)
            maxNumReorderPics = Array(repeating: maxNumReorderPics[0], count: maxSubLayersMinus1 + 1)
            maxLatencyIncreasePlus1 = Array(repeating: maxLatencyIncreasePlus1[0], count: maxSubLayersMinus1 + 1)
        }
        log2MinLumaCodingBlockSizeMinus3 = try r.ue("log2_min_luma_coding_block_size_minus3", max: 3)
        log2DiffMaxMinLumaCodingBlockSize = try r.ue("log2_diff_max_min_luma_coding_block_size", max: 3)
        log2MinLumaTransformBlockSizeMinus2 = try r.ue("log2_min_luma_transform_block_size_minus2", max: 3)
        log2DiffMaxMinLumaTransformBlockSize = try r.ue("log2_diff_max_min_luma_transform_block_size", max: 3)
        maxTransformHierarchyDepthInter = try r.ue("max_transform_hierarchy_depth_inter", max: 4)
        maxTransformHierarchyDepthIntra = try r.ue("max_transform_hierarchy_depth_intra", max: 4)
        scalingListEnabledFlag = try r.flag("scaling_list_enabled_flag")
        if scalingListEnabledFlag {
            scalingListDataPresentFlag = try r.flag("sps_scaling_list_data_present_flag")
            scalingList = scalingListDataPresentFlag ? try H265ScalingList(&r) : .default
        }
        ampEnabledFlag = try r.flag("amp_enabled_flag")
        sampleAdaptiveOffsetEnabledFlag = try r.flag("sample_adaptive_offset_enabled_flag")
        pcmEnabledFlag = try r.flag("pcm_enabled_flag")
        if pcmEnabledFlag {
            pcmSampleBitDepthLumaMinus1 = try r.u(4, "pcm_sample_bit_depth_luma_minus1")
            pcmSampleBitDepthChromaMinus1 = try r.u(4, "pcm_sample_bit_depth_chroma_minus1")
            log2MinPcmLumaCodingBlockSizeMinus3 = try r.ue("log2_min_pcm_luma_coding_block_size_minus3", max: 2)
            log2DiffMaxMinPcmLumaCodingBlockSize = try r.ue("log2_diff_max_min_pcm_luma_coding_block_size", max: 2)
            pcmLoopFilterDisabledFlag = try r.flag("pcm_loop_filter_disabled_flag")
        }
        let setCount = try r.ue("num_short_term_ref_pic_sets", max: 64)
        for i in 0..<setCount {
            shortTermRefPicSets.append(try ShortTermReferencePictureSet(&r, index: i, count: setCount, previous: shortTermRefPicSets))
        }
        longTermRefPicsPresentFlag = try r.flag("long_term_ref_pics_present_flag")
        if longTermRefPicsPresentFlag {
            let count = try r.ue("num_long_term_ref_pics_sps", max: 32)
            for i in 0..<count {
                ltRefPicPocLsbSps.append(try r.u(log2MaxPicOrderCntLsb, "lt_ref_pic_poc_lsb_sps[\(i)]"))
                usedByCurrPicLtSpsFlag.append(try r.flag("used_by_curr_pic_lt_sps_flag[\(i)]"))
            }
        }
        temporalMvpEnabledFlag = try r.flag("sps_temporal_mvp_enabled_flag")
        strongIntraSmoothingEnabledFlag = try r.flag("strong_intra_smoothing_enabled_flag")
        vuiParametersPresentFlag = try r.flag("vui_parameters_present_flag")
        if vuiParametersPresentFlag { vui = try H265VUIParameters(&r, maxNumSubLayersMinus1: maxSubLayersMinus1) }
        extensionFlags = try H265ExtensionFlags(&r, prefix: "sps")
        if extensionFlags.range {
            var e = RangeExtension()
            e.transformSkipRotationEnabledFlag = try r.flag("transform_skip_rotation_enabled_flag")
            e.transformSkipContextEnabledFlag = try r.flag("transform_skip_context_enabled_flag")
            e.implicitRdpcmEnabledFlag = try r.flag("implicit_rdpcm_enabled_flag")
            e.explicitRdpcmEnabledFlag = try r.flag("explicit_rdpcm_enabled_flag")
            e.extendedPrecisionProcessingFlag = try r.flag("extended_precision_processing_flag")
            e.intraSmoothingDisabledFlag = try r.flag("intra_smoothing_disabled_flag")
            e.highPrecisionOffsetsEnabledFlag = try r.flag("high_precision_offsets_enabled_flag")
            e.persistentRiceAdaptationEnabledFlag = try r.flag("persistent_rice_adaptation_enabled_flag")
            e.cabacBypassAlignmentEnabledFlag = try r.flag("cabac_bypass_alignment_enabled_flag")
            rangeExtension = e
        }
        // Sizes must be whole minimum coding blocks (7.4.3.2.1), and the CTB no larger than 64.
        guard picWidthInLumaSamples % minCbSize == 0, picHeightInLumaSamples % minCbSize == 0, log2CtbSize <= 6,
              log2MinTransformBlockSize < log2MinCbSize, log2MaxTransformBlockSize <= min(log2CtbSize, 5) else {
            throw .invalidValue(element: "coding/transform block sizes", value: Int64(log2CtbSize), bitOffset: sizeAt)
        }
    }

    public var log2MaxPicOrderCntLsb: Int { log2MaxPicOrderCntLsbMinus4 + 4 }
    public var maxPicOrderCntLsb: Int { 1 << log2MaxPicOrderCntLsb }
    public var bitDepthLuma: Int { bitDepthLumaMinus8 + 8 }
    public var bitDepthChroma: Int { bitDepthChromaMinus8 + 8 }
    public var log2MinCbSize: Int { log2MinLumaCodingBlockSizeMinus3 + 3 }
    public var minCbSize: Int { 1 << log2MinCbSize }
    public var log2CtbSize: Int { log2MinCbSize + log2DiffMaxMinLumaCodingBlockSize }
    public var ctbSize: Int { 1 << log2CtbSize }
    public var log2MinTransformBlockSize: Int { log2MinLumaTransformBlockSizeMinus2 + 2 }
    public var log2MaxTransformBlockSize: Int { log2MinTransformBlockSize + log2DiffMaxMinLumaTransformBlockSize }
    public var picWidthInCtbs: Int { (picWidthInLumaSamples + ctbSize - 1) / ctbSize }
    public var picHeightInCtbs: Int { (picHeightInLumaSamples + ctbSize - 1) / ctbSize }
    public var picSizeInCtbs: Int { picWidthInCtbs * picHeightInCtbs }
    /// ChromaArrayType (7.4.3.2.1).
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    public var subWidthC: Int { chromaFormatIdc == 1 || chromaFormatIdc == 2 ? 2 : 1 }
    public var subHeightC: Int { chromaFormatIdc == 1 ? 2 : 1 }

    /// The conformance window in luma samples (7-21 ... 7-24).
    public var cropRectangle: (x: Int, y: Int, width: Int, height: Int) {
        let x = subWidthC * confWinLeftOffset, y = subHeightC * confWinTopOffset
        return (x, y, max(picWidthInLumaSamples - subWidthC * (confWinLeftOffset + confWinRightOffset), 0),
                max(picHeightInLumaSamples - subHeightC * (confWinTopOffset + confWinBottomOffset), 0))
    }
    public var displayWidth: Int { cropRectangle.width }
    public var displayHeight: Int { cropRectangle.height }

    /// The DPB size, reorder and latency limits of the highest sub-layer (HighestTid = sps_max_sub_layers_minus1).
    public var maxDecPicBuffering: Int { (maxDecPicBufferingMinus1.last ?? 0) + 1 }
    public var highestMaxNumReorderPics: Int { maxNumReorderPics.last ?? 0 }
    /// SpsMaxLatencyPictures (7-9), nil when not limited.
    public var maxLatencyPictures: Int? {
        guard let plus1 = maxLatencyIncreasePlus1.last, plus1 != 0 else { return nil }
        return highestMaxNumReorderPics + plus1 - 1
    }
}
