import NALStream

/// pic_parameter_set_rbsp() of H.265 (7.3.2.3) with the range extension.
public struct H265PictureParameterSet: Hashable, Sendable {
    public var id = 0
    public var seqParameterSetId = 0
    public var dependentSliceSegmentsEnabledFlag = false
    public var outputFlagPresentFlag = false
    public var numExtraSliceHeaderBits = 0
    public var signDataHidingEnabledFlag = false
    public var cabacInitPresentFlag = false
    public var numRefIdxL0DefaultActiveMinus1 = 0
    public var numRefIdxL1DefaultActiveMinus1 = 0
    public var initQpMinus26 = 0
    public var constrainedIntraPredFlag = false
    public var transformSkipEnabledFlag = false
    public var cuQpDeltaEnabledFlag = false
    public var diffCuQpDeltaDepth = 0
    public var cbQpOffset = 0
    public var crQpOffset = 0
    public var sliceChromaQpOffsetsPresentFlag = false
    public var weightedPredFlag = false
    public var weightedBipredFlag = false
    public var transquantBypassEnabledFlag = false
    public var tilesEnabledFlag = false
    public var entropyCodingSyncEnabledFlag = false
    public var numTileColumnsMinus1 = 0
    public var numTileRowsMinus1 = 0
    public var uniformSpacingFlag = true
    public var columnWidthMinus1: [Int] = []
    public var rowHeightMinus1: [Int] = []
    public var loopFilterAcrossTilesEnabledFlag = true
    public var loopFilterAcrossSlicesEnabledFlag = false
    public var deblockingFilterControlPresentFlag = false
    public var deblockingFilterOverrideEnabledFlag = false
    public var deblockingFilterDisabledFlag = false
    public var betaOffsetDiv2 = 0
    public var tcOffsetDiv2 = 0
    public var scalingListDataPresentFlag = false
    public var scalingList: H265ScalingList?
    public var listsModificationPresentFlag = false
    public var log2ParallelMergeLevelMinus2 = 0
    public var sliceSegmentHeaderExtensionPresentFlag = false
    public var extensionFlags = H265ExtensionFlags()
    public var log2MaxTransformSkipBlockSizeMinus2 = 0
    public var crossComponentPredictionEnabledFlag = false
    public var chromaQpOffsetListEnabledFlag = false
    public var diffCuChromaQpOffsetDepth = 0
    public var cbQpOffsetList: [Int] = []
    public var crQpOffsetList: [Int] = []
    public var log2SaoOffsetScaleLuma = 0
    public var log2SaoOffsetScaleChroma = 0

    public init() {}

    public init(nalUnit: NALUnit) throws(BitstreamError) {
        var r = SyntaxReader(nalUnit: nalUnit)
        try self.init(&r)
    }

    public init(_ r: inout SyntaxReader) throws(BitstreamError) {
        id = try r.ue("pps_pic_parameter_set_id", max: 63)
        seqParameterSetId = try r.ue("pps_seq_parameter_set_id", max: 15)
        dependentSliceSegmentsEnabledFlag = try r.flag("dependent_slice_segments_enabled_flag")
        outputFlagPresentFlag = try r.flag("output_flag_present_flag")
        numExtraSliceHeaderBits = try r.u(3, "num_extra_slice_header_bits")
        signDataHidingEnabledFlag = try r.flag("sign_data_hiding_enabled_flag")
        cabacInitPresentFlag = try r.flag("cabac_init_present_flag")
        numRefIdxL0DefaultActiveMinus1 = try r.ue("num_ref_idx_l0_default_active_minus1", max: 14)
        numRefIdxL1DefaultActiveMinus1 = try r.ue("num_ref_idx_l1_default_active_minus1", max: 14)
        initQpMinus26 = try r.se("init_qp_minus26", in: -(26 + 48)...25)
        constrainedIntraPredFlag = try r.flag("constrained_intra_pred_flag")
        transformSkipEnabledFlag = try r.flag("transform_skip_enabled_flag")
        cuQpDeltaEnabledFlag = try r.flag("cu_qp_delta_enabled_flag")
        if cuQpDeltaEnabledFlag { diffCuQpDeltaDepth = try r.ue("diff_cu_qp_delta_depth", max: 3) }
        cbQpOffset = try r.se("pps_cb_qp_offset", in: -12...12)
        crQpOffset = try r.se("pps_cr_qp_offset", in: -12...12)
        sliceChromaQpOffsetsPresentFlag = try r.flag("pps_slice_chroma_qp_offsets_present_flag")
        weightedPredFlag = try r.flag("weighted_pred_flag")
        weightedBipredFlag = try r.flag("weighted_bipred_flag")
        transquantBypassEnabledFlag = try r.flag("transquant_bypass_enabled_flag")
        tilesEnabledFlag = try r.flag("tiles_enabled_flag")
        entropyCodingSyncEnabledFlag = try r.flag("entropy_coding_sync_enabled_flag")
        if tilesEnabledFlag {
            numTileColumnsMinus1 = try r.ue("num_tile_columns_minus1", max: 19)
            numTileRowsMinus1 = try r.ue("num_tile_rows_minus1", max: 21)
            uniformSpacingFlag = try r.flag("uniform_spacing_flag")
            if !uniformSpacingFlag {
                for i in 0..<numTileColumnsMinus1 { columnWidthMinus1.append(try r.ue("column_width_minus1[\(i)]", max: 1055)) }
                for i in 0..<numTileRowsMinus1 { rowHeightMinus1.append(try r.ue("row_height_minus1[\(i)]", max: 1055)) }
            }
            loopFilterAcrossTilesEnabledFlag = try r.flag("loop_filter_across_tiles_enabled_flag")
        }
        loopFilterAcrossSlicesEnabledFlag = try r.flag("pps_loop_filter_across_slices_enabled_flag")
        deblockingFilterControlPresentFlag = try r.flag("deblocking_filter_control_present_flag")
        if deblockingFilterControlPresentFlag {
            deblockingFilterOverrideEnabledFlag = try r.flag("deblocking_filter_override_enabled_flag")
            deblockingFilterDisabledFlag = try r.flag("pps_deblocking_filter_disabled_flag")
            if !deblockingFilterDisabledFlag {
                betaOffsetDiv2 = try r.se("pps_beta_offset_div2", in: -6...6)
                tcOffsetDiv2 = try r.se("pps_tc_offset_div2", in: -6...6)
            }
        }
        scalingListDataPresentFlag = try r.flag("pps_scaling_list_data_present_flag")
        if scalingListDataPresentFlag { scalingList = try H265ScalingList(&r) }
        listsModificationPresentFlag = try r.flag("lists_modification_present_flag")
        log2ParallelMergeLevelMinus2 = try r.ue("log2_parallel_merge_level_minus2", max: 4)
        sliceSegmentHeaderExtensionPresentFlag = try r.flag("slice_segment_header_extension_present_flag")
        extensionFlags = try H265ExtensionFlags(&r, prefix: "pps")
        if extensionFlags.range {
            if transformSkipEnabledFlag { log2MaxTransformSkipBlockSizeMinus2 = try r.ue("log2_max_transform_skip_block_size_minus2", max: 3) }
            crossComponentPredictionEnabledFlag = try r.flag("cross_component_prediction_enabled_flag")
            chromaQpOffsetListEnabledFlag = try r.flag("chroma_qp_offset_list_enabled_flag")
            if chromaQpOffsetListEnabledFlag {
                diffCuChromaQpOffsetDepth = try r.ue("diff_cu_chroma_qp_offset_depth", max: 3)
                let count = try r.ue("chroma_qp_offset_list_len_minus1", max: 5) + 1
                for i in 0..<count {
                    cbQpOffsetList.append(try r.se("cb_qp_offset_list[\(i)]", in: -12...12))
                    crQpOffsetList.append(try r.se("cr_qp_offset_list[\(i)]", in: -12...12))
                }
            }
            log2SaoOffsetScaleLuma = try r.ue("log2_sao_offset_scale_luma", max: 6)
            log2SaoOffsetScaleChroma = try r.ue("log2_sao_offset_scale_chroma", max: 6)
        }
    }

    /// True when a range-extension tool is on (vtk decodes none of them).
    public var usesRangeExtension: Bool {
        log2MaxTransformSkipBlockSizeMinus2 != 0 || crossComponentPredictionEnabledFlag || chromaQpOffsetListEnabledFlag
            || log2SaoOffsetScaleLuma != 0 || log2SaoOffsetScaleChroma != 0
    }

    /// Tile column widths in CTBs (6-3), for the picture of `sps`.
    public func columnWidths(_ sps: H265SequenceParameterSet) -> [Int] {
        let n = numTileColumnsMinus1 + 1, total = sps.picWidthInCtbs
        if uniformSpacingFlag { return (0..<n).map { ((($0 + 1) * total) / n) - (($0 * total) / n) } }
        let given = columnWidthMinus1.map { $0 + 1 }
        return given + [total - given.reduce(0, +)]
    }

    /// Tile row heights in CTBs (6-4).
    public func rowHeights(_ sps: H265SequenceParameterSet) -> [Int] {
        let n = numTileRowsMinus1 + 1, total = sps.picHeightInCtbs
        if uniformSpacingFlag { return (0..<n).map { ((($0 + 1) * total) / n) - (($0 * total) / n) } }
        let given = rowHeightMinus1.map { $0 + 1 }
        return given + [total - given.reduce(0, +)]
    }
}
