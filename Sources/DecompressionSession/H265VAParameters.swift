import CLibVA
import H265Bitstream
import H265Decoding
import VideoAcceleration
import VideoDecoding

/// Fills VA-API's H.265 decode parameter buffers (va_dec_hevc.h: VAPictureParameterBufferHEVC,
/// VAIQMatrixBufferHEVC, VASliceParameterBufferHEVC in its long format) from the decoding process's
/// request. Pure: no VA calls. Where va_dec_hevc.h leaves a field to the client's judgement, vtk does what
/// FFmpeg's vaapi_hevc does, so that drivers see what they are tested with.
enum H265VAParameters {
    static let invalidPicture: VAPictureHEVC = {
        var p = VAPictureHEVC()
        p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
        p.flags = UInt32(VA_PICTURE_HEVC_INVALID)
        return p
    }()

    /// ReferenceFrames: the reference pictures in DPB order, each with the RPS list it is in.
    static func referenceFrames(_ request: H265PictureDecodeRequest, surface: (PictureID) -> VASurfaceID?) -> [(PictureID, VAPictureHEVC)] {
        let rps = request.referencePictureSet
        let before = Set(rps.stCurrBefore.compactMap { $0 }), after = Set(rps.stCurrAfter.compactMap { $0 })
        let longTermCurrent = Set(rps.ltCurr.compactMap { $0 })
        return request.referencePictures.prefix(15).compactMap { picture in
            guard let id = surface(picture.id) else { return nil }
            var p = VAPictureHEVC()
            p.picture_id = id
            p.pic_order_cnt = Int32(picture.poc)
            if before.contains(picture.id) { p.flags = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE) }
            if after.contains(picture.id) { p.flags = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_AFTER) }
            if longTermCurrent.contains(picture.id) { p.flags = UInt32(VA_PICTURE_HEVC_RPS_LT_CURR) }
            if picture.reference == .longTerm { p.flags |= UInt32(VA_PICTURE_HEVC_LONG_TERM_REFERENCE) }
            return (picture.id, p)
        }
    }

    static func pictureParameters(_ request: H265PictureDecodeRequest, references: [(PictureID, VAPictureHEVC)],
                                  currentSurface: VASurfaceID) -> VAPictureParameterBufferHEVC {
        let sps = request.sps, pps = request.pps
        let header = request.slices[0].segment.header
        var pp = VAPictureParameterBufferHEVC()
        pp.CurrPic.picture_id = currentSurface
        pp.CurrPic.pic_order_cnt = Int32(request.picture.poc)
        VAFixedArray.store(references.map(\.1), into: &pp.ReferenceFrames, padding: invalidPicture)
        pp.pic_width_in_luma_samples = UInt16(sps.picWidthInLumaSamples)
        pp.pic_height_in_luma_samples = UInt16(sps.picHeightInLumaSamples)
        pp.pic_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        pp.pic_fields.bits.separate_colour_plane_flag = sps.separateColourPlaneFlag ? 1 : 0
        pp.pic_fields.bits.pcm_enabled_flag = sps.pcmEnabledFlag ? 1 : 0
        pp.pic_fields.bits.scaling_list_enabled_flag = sps.scalingListEnabledFlag ? 1 : 0
        pp.pic_fields.bits.transform_skip_enabled_flag = pps.transformSkipEnabledFlag ? 1 : 0
        pp.pic_fields.bits.amp_enabled_flag = sps.ampEnabledFlag ? 1 : 0
        pp.pic_fields.bits.strong_intra_smoothing_enabled_flag = sps.strongIntraSmoothingEnabledFlag ? 1 : 0
        pp.pic_fields.bits.sign_data_hiding_enabled_flag = pps.signDataHidingEnabledFlag ? 1 : 0
        pp.pic_fields.bits.constrained_intra_pred_flag = pps.constrainedIntraPredFlag ? 1 : 0
        pp.pic_fields.bits.cu_qp_delta_enabled_flag = pps.cuQpDeltaEnabledFlag ? 1 : 0
        pp.pic_fields.bits.weighted_pred_flag = pps.weightedPredFlag ? 1 : 0
        pp.pic_fields.bits.weighted_bipred_flag = pps.weightedBipredFlag ? 1 : 0
        pp.pic_fields.bits.transquant_bypass_enabled_flag = pps.transquantBypassEnabledFlag ? 1 : 0
        pp.pic_fields.bits.tiles_enabled_flag = pps.tilesEnabledFlag ? 1 : 0
        pp.pic_fields.bits.entropy_coding_sync_enabled_flag = pps.entropyCodingSyncEnabledFlag ? 1 : 0
        pp.pic_fields.bits.pps_loop_filter_across_slices_enabled_flag = pps.loopFilterAcrossSlicesEnabledFlag ? 1 : 0
        pp.pic_fields.bits.loop_filter_across_tiles_enabled_flag = pps.loopFilterAcrossTilesEnabledFlag ? 1 : 0
        pp.pic_fields.bits.pcm_loop_filter_disabled_flag = sps.pcmLoopFilterDisabledFlag ? 1 : 0
        // NoPicReorderingFlag and NoBiPredFlag are hints FFmpeg leaves 0; so does vtk.
        pp.sps_max_dec_pic_buffering_minus1 = UInt8(sps.maxDecPicBuffering - 1)
        pp.bit_depth_luma_minus8 = UInt8(sps.bitDepthLumaMinus8)
        pp.bit_depth_chroma_minus8 = UInt8(sps.bitDepthChromaMinus8)
        if sps.pcmEnabledFlag {
            pp.pcm_sample_bit_depth_luma_minus1 = UInt8(sps.pcmSampleBitDepthLumaMinus1)
            pp.pcm_sample_bit_depth_chroma_minus1 = UInt8(sps.pcmSampleBitDepthChromaMinus1)
            pp.log2_min_pcm_luma_coding_block_size_minus3 = UInt8(sps.log2MinPcmLumaCodingBlockSizeMinus3)
            pp.log2_diff_max_min_pcm_luma_coding_block_size = UInt8(sps.log2DiffMaxMinPcmLumaCodingBlockSize)
        } else {
            // What FFmpeg sends when PCM is off (its pcm fields are zero): the "minus" fields wrap.
            pp.pcm_sample_bit_depth_luma_minus1 = 0xFF
            pp.pcm_sample_bit_depth_chroma_minus1 = 0xFF
            pp.log2_min_pcm_luma_coding_block_size_minus3 = 0xFD
            pp.log2_diff_max_min_pcm_luma_coding_block_size = 0
        }
        pp.log2_min_luma_coding_block_size_minus3 = UInt8(sps.log2MinLumaCodingBlockSizeMinus3)
        pp.log2_diff_max_min_luma_coding_block_size = UInt8(sps.log2DiffMaxMinLumaCodingBlockSize)
        pp.log2_min_transform_block_size_minus2 = UInt8(sps.log2MinLumaTransformBlockSizeMinus2)
        pp.log2_diff_max_min_transform_block_size = UInt8(sps.log2DiffMaxMinLumaTransformBlockSize)
        pp.max_transform_hierarchy_depth_intra = UInt8(sps.maxTransformHierarchyDepthIntra)
        pp.max_transform_hierarchy_depth_inter = UInt8(sps.maxTransformHierarchyDepthInter)
        pp.init_qp_minus26 = Int8(pps.initQpMinus26)
        pp.diff_cu_qp_delta_depth = UInt8(pps.diffCuQpDeltaDepth)
        pp.pps_cb_qp_offset = Int8(pps.cbQpOffset)
        pp.pps_cr_qp_offset = Int8(pps.crQpOffset)
        pp.log2_parallel_merge_level_minus2 = UInt8(pps.log2ParallelMergeLevelMinus2)
        if pps.tilesEnabledFlag {
            pp.num_tile_columns_minus1 = UInt8(pps.numTileColumnsMinus1)
            pp.num_tile_rows_minus1 = UInt8(pps.numTileRowsMinus1)
            let columns = pps.columnWidths(sps), rows = pps.rowHeights(sps)
            VAFixedArray.store(columns.map { UInt16(max($0 - 1, 0)) }, into: &pp.column_width_minus1)
            VAFixedArray.store(rows.map { UInt16(max($0 - 1, 0)) }, into: &pp.row_height_minus1)
        }
        pp.slice_parsing_fields.bits.lists_modification_present_flag = pps.listsModificationPresentFlag ? 1 : 0
        pp.slice_parsing_fields.bits.long_term_ref_pics_present_flag = sps.longTermRefPicsPresentFlag ? 1 : 0
        pp.slice_parsing_fields.bits.sps_temporal_mvp_enabled_flag = sps.temporalMvpEnabledFlag ? 1 : 0
        pp.slice_parsing_fields.bits.cabac_init_present_flag = pps.cabacInitPresentFlag ? 1 : 0
        pp.slice_parsing_fields.bits.output_flag_present_flag = pps.outputFlagPresentFlag ? 1 : 0
        pp.slice_parsing_fields.bits.dependent_slice_segments_enabled_flag = pps.dependentSliceSegmentsEnabledFlag ? 1 : 0
        pp.slice_parsing_fields.bits.pps_slice_chroma_qp_offsets_present_flag = pps.sliceChromaQpOffsetsPresentFlag ? 1 : 0
        pp.slice_parsing_fields.bits.sample_adaptive_offset_enabled_flag = sps.sampleAdaptiveOffsetEnabledFlag ? 1 : 0
        pp.slice_parsing_fields.bits.deblocking_filter_override_enabled_flag = pps.deblockingFilterOverrideEnabledFlag ? 1 : 0
        pp.slice_parsing_fields.bits.pps_disable_deblocking_filter_flag = pps.deblockingFilterDisabledFlag ? 1 : 0
        pp.slice_parsing_fields.bits.slice_segment_header_extension_present_flag = pps.sliceSegmentHeaderExtensionPresentFlag ? 1 : 0
        let type = request.picture.nalUnitType
        pp.slice_parsing_fields.bits.RapPicFlag = type.isIRAP ? 1 : 0
        pp.slice_parsing_fields.bits.IdrPicFlag = type.isIDR ? 1 : 0
        // An IRAP picture has only I slices; FFmpeg (and so vtk) flags exactly those.
        pp.slice_parsing_fields.bits.IntraPicFlag = type.isIRAP ? 1 : 0
        pp.log2_max_pic_order_cnt_lsb_minus4 = UInt8(sps.log2MaxPicOrderCntLsbMinus4)
        pp.num_short_term_ref_pic_sets = UInt8(sps.shortTermRefPicSets.count)
        pp.num_long_term_ref_pic_sps = UInt8(sps.ltRefPicPocLsbSps.count)
        pp.num_ref_idx_l0_default_active_minus1 = UInt8(pps.numRefIdxL0DefaultActiveMinus1)
        pp.num_ref_idx_l1_default_active_minus1 = UInt8(pps.numRefIdxL1DefaultActiveMinus1)
        pp.pps_beta_offset_div2 = Int8(pps.betaOffsetDiv2)
        pp.pps_tc_offset_div2 = Int8(pps.tcOffsetDiv2)
        pp.num_extra_slice_header_bits = UInt8(pps.numExtraSliceHeaderBits)
        pp.st_rps_bits = header.shortTermRefPicSetSpsFlag ? 0 : UInt32(header.shortTermRefPicSetBits)
        return pp
    }

    /// The scaling lists in force (the PPS's, else the SPS's), in raster order; nil when scaling lists are off.
    static func iqMatrix(sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> VAIQMatrixBufferHEVC? {
        guard let lists = pps.scalingList ?? (sps.scalingListEnabledFlag ? sps.scalingList : nil) else { return nil }
        var m = VAIQMatrixBufferHEVC()
        func fill<T>(_ tuple: inout T, _ values: [Int]) { VAFixedArray.store(values.map { UInt8($0) }, into: &tuple) }
        fill(&m.ScalingList4x4, (0..<6).flatMap { lists.raster(sizeId: 0, matrixId: $0) })
        fill(&m.ScalingList8x8, (0..<6).flatMap { lists.raster(sizeId: 1, matrixId: $0) })
        fill(&m.ScalingList16x16, (0..<6).flatMap { lists.raster(sizeId: 2, matrixId: $0) })
        fill(&m.ScalingList32x32, [0, 3].flatMap { lists.raster(sizeId: 3, matrixId: $0) })
        fill(&m.ScalingListDC16x16, lists.dc[0])
        fill(&m.ScalingListDC32x32, [lists.dc[1][0], lists.dc[1][3]])
        return m
    }

    static func sliceParameters(_ slice: H265SliceDecodeRequest, isLast: Bool, references: [(PictureID, VAPictureHEVC)],
                                pps: H265PictureParameterSet) -> VASliceParameterBufferHEVC {
        let h = slice.segment.header
        var sp = VASliceParameterBufferHEVC()
        sp.slice_data_size = UInt32(slice.segment.nalUnit.bytes.count)
        sp.slice_data_offset = 0
        sp.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
        sp.slice_data_byte_offset = UInt32(h.sliceDataByteOffset)
        sp.slice_segment_address = UInt32(h.sliceSegmentAddress)
        func index(_ id: PictureID?) -> UInt8 {
            guard let id, let i = references.firstIndex(where: { $0.0 == id }) else { return 0xFF }
            return UInt8(i)
        }
        withUnsafeMutableBytes(of: &sp.RefPicList) { raw in
            for i in 0..<raw.count { raw[i] = 0xFF }
            for (i, id) in slice.lists.list0.prefix(15).enumerated() { raw[i] = index(id) }
            for (i, id) in slice.lists.list1.prefix(15).enumerated() { raw[15 + i] = index(id) }
        }
        sp.LongSliceFlags.fields.LastSliceOfPic = isLast ? 1 : 0
        sp.LongSliceFlags.fields.dependent_slice_segment_flag = h.dependentSliceSegmentFlag ? 1 : 0
        sp.LongSliceFlags.fields.slice_type = UInt32(h.sliceType.rawValue)
        sp.LongSliceFlags.fields.color_plane_id = UInt32(h.colourPlaneId)
        sp.LongSliceFlags.fields.slice_sao_luma_flag = h.saoLumaFlag ? 1 : 0
        sp.LongSliceFlags.fields.slice_sao_chroma_flag = h.saoChromaFlag ? 1 : 0
        sp.LongSliceFlags.fields.mvd_l1_zero_flag = h.mvdL1ZeroFlag ? 1 : 0
        sp.LongSliceFlags.fields.cabac_init_flag = h.cabacInitFlag ? 1 : 0
        sp.LongSliceFlags.fields.slice_temporal_mvp_enabled_flag = h.temporalMvpEnabledFlag ? 1 : 0
        sp.LongSliceFlags.fields.slice_deblocking_filter_disabled_flag = h.deblockingFilterDisabledFlag ? 1 : 0
        sp.LongSliceFlags.fields.collocated_from_l0_flag = h.collocatedFromL0Flag ? 1 : 0
        sp.LongSliceFlags.fields.slice_loop_filter_across_slices_enabled_flag = h.loopFilterAcrossSlicesEnabledFlag ? 1 : 0
        sp.collocated_ref_idx = h.temporalMvpEnabledFlag ? UInt8(h.collocatedRefIdx) : 0xFF
        sp.five_minus_max_num_merge_cand = h.sliceType == .i ? 0 : UInt8(h.fiveMinusMaxNumMergeCand)
        sp.num_ref_idx_l0_active_minus1 = h.sliceType == .i ? 0 : UInt8(h.numRefIdxL0ActiveMinus1)
        sp.num_ref_idx_l1_active_minus1 = h.sliceType == .b ? UInt8(h.numRefIdxL1ActiveMinus1) : 0
        sp.slice_qp_delta = Int8(h.qpDelta)
        sp.slice_cb_qp_offset = Int8(h.cbQpOffset)
        sp.slice_cr_qp_offset = Int8(h.crQpOffset)
        sp.slice_beta_offset_div2 = Int8(h.betaOffsetDiv2)
        sp.slice_tc_offset_div2 = Int8(h.tcOffsetDiv2)
        if let table = h.predWeightTable {
            sp.luma_log2_weight_denom = UInt8(table.lumaLog2WeightDenom)
            sp.delta_chroma_log2_weight_denom = Int8(table.chromaLog2WeightDenom - table.lumaLog2WeightDenom)
            func fill<T>(_ tuple: inout T, _ values: [Int]) { VAFixedArray.store(values.map { Int8(truncatingIfNeeded: $0) }, into: &tuple) }
            let lumaDenom = 1 << table.lumaLog2WeightDenom, chromaDenom = 1 << table.chromaLog2WeightDenom
            fill(&sp.delta_luma_weight_l0, table.lumaWeight[0].map { $0 - lumaDenom })
            fill(&sp.luma_offset_l0, table.lumaOffset[0])
            fill(&sp.delta_chroma_weight_l0, table.chromaWeight[0].flatMap { $0.map { $0 - chromaDenom } })
            fill(&sp.ChromaOffsetL0, table.chromaOffset[0].flatMap { $0 })
            fill(&sp.delta_luma_weight_l1, table.lumaWeight[1].map { $0 - lumaDenom })
            fill(&sp.luma_offset_l1, table.lumaOffset[1])
            fill(&sp.delta_chroma_weight_l1, table.chromaWeight[1].flatMap { $0.map { $0 - chromaDenom } })
            fill(&sp.ChromaOffsetL1, table.chromaOffset[1].flatMap { $0 })
        }
        return sp
    }
}
