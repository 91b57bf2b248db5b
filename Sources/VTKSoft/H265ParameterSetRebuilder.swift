import CLibVA
import H265Bitstream

/// Rebuilds the VPS, SPS and PPS that a VA decoder never sees from VAPictureParameterBufferHEVC and
/// VAIQMatrixBufferHEVC, so that libavcodec can decode the client's slices. The values are filled in
/// H265Bitstream's own structures and written by their writers (the inverse of the parsers).
///
/// VA leaves out what a hardware decoder does not need; the rebuilt sets take neutral values there:
/// level 6.2, no conformance window (the whole coded picture is decoded; clients crop), no VUI, no
/// short-term or long-term sets in the SPS (``H265SliceHeaderRewriter`` gives each slice its own set,
/// from the picture's ReferenceFrames), and the scaling lists in the PPS.
struct H265ParameterSetRebuilder {
    let profile: VAProfile

    var profileIdc: Int { profile == VAProfileHEVCMain10 ? 2 : 1 }

    /// video_parameter_set_rbsp() (7.3.2.1), as a NAL unit without start code.
    func videoParameterSet(_ p: VAPictureParameterBufferHEVC) -> [UInt8] {
        var vps = VideoParameterSet()
        vps.profileTierLevel = profileTierLevel
        vps.maxDecPicBufferingMinus1 = [Int(p.sps_max_dec_pic_buffering_minus1)]
        vps.maxNumReorderPics = [reorder(p)]
        vps.maxLatencyIncreasePlus1 = [0]
        return vps.nalUnit()
    }

    /// sps_max_num_reorder_pics: 0 when the picture says there is no reordering, else as many as the DPB allows.
    private func reorder(_ p: VAPictureParameterBufferHEVC) -> Int {
        p.pic_fields.bits.NoPicReorderingFlag != 0 ? 0 : Int(p.sps_max_dec_pic_buffering_minus1)
    }

    /// profile_tier_level(1, 0) (7.3.3): Main (compatible with Main 10) or Main 10, progressive frames, level 6.2
    /// (the highest: it limits nothing).
    private var profileTierLevel: ProfileTierLevel {
        var ptl = ProfileTierLevel()
        ptl.generalProfileIdc = profileIdc
        // general_profile_compatibility_flag[j], j = 0 first (the most significant bit).
        ptl.generalProfileCompatibilityFlags = (UInt32(1) << (31 - profileIdc)) | (UInt32(1) << (31 - 2))
        ptl.generalProgressiveSourceFlag = true
        ptl.generalFrameOnlyConstraintFlag = true
        ptl.generalLevelIdc = 186
        return ptl
    }

    /// seq_parameter_set_rbsp() (7.3.2.2), as a NAL unit without start code.
    func sequenceParameterSet(_ p: VAPictureParameterBufferHEVC) -> [UInt8] {
        let f = p.pic_fields.bits, s = p.slice_parsing_fields.bits
        var sps = H265SequenceParameterSet()
        sps.profileTierLevel = profileTierLevel
        sps.chromaFormatIdc = Int(f.chroma_format_idc)
        sps.separateColourPlaneFlag = f.separate_colour_plane_flag != 0
        sps.picWidthInLumaSamples = Int(p.pic_width_in_luma_samples)
        sps.picHeightInLumaSamples = Int(p.pic_height_in_luma_samples)
        sps.bitDepthLumaMinus8 = Int(p.bit_depth_luma_minus8)
        sps.bitDepthChromaMinus8 = Int(p.bit_depth_chroma_minus8)
        sps.log2MaxPicOrderCntLsbMinus4 = Int(p.log2_max_pic_order_cnt_lsb_minus4)
        sps.maxDecPicBufferingMinus1 = [Int(p.sps_max_dec_pic_buffering_minus1)]
        sps.maxNumReorderPics = [reorder(p)]
        sps.maxLatencyIncreasePlus1 = [0]
        sps.log2MinLumaCodingBlockSizeMinus3 = Int(p.log2_min_luma_coding_block_size_minus3)
        sps.log2DiffMaxMinLumaCodingBlockSize = Int(p.log2_diff_max_min_luma_coding_block_size)
        sps.log2MinLumaTransformBlockSizeMinus2 = Int(p.log2_min_transform_block_size_minus2)
        sps.log2DiffMaxMinLumaTransformBlockSize = Int(p.log2_diff_max_min_transform_block_size)
        sps.maxTransformHierarchyDepthInter = Int(p.max_transform_hierarchy_depth_inter)
        sps.maxTransformHierarchyDepthIntra = Int(p.max_transform_hierarchy_depth_intra)
        sps.scalingListEnabledFlag = f.scaling_list_enabled_flag != 0
        sps.scalingListDataPresentFlag = false  // the PPS carries the lists
        sps.ampEnabledFlag = f.amp_enabled_flag != 0
        sps.sampleAdaptiveOffsetEnabledFlag = s.sample_adaptive_offset_enabled_flag != 0
        sps.pcmEnabledFlag = f.pcm_enabled_flag != 0
        sps.pcmSampleBitDepthLumaMinus1 = Int(p.pcm_sample_bit_depth_luma_minus1)
        sps.pcmSampleBitDepthChromaMinus1 = Int(p.pcm_sample_bit_depth_chroma_minus1)
        sps.log2MinPcmLumaCodingBlockSizeMinus3 = Int(p.log2_min_pcm_luma_coding_block_size_minus3)
        sps.log2DiffMaxMinPcmLumaCodingBlockSize = Int(p.log2_diff_max_min_pcm_luma_coding_block_size)
        sps.pcmLoopFilterDisabledFlag = f.pcm_loop_filter_disabled_flag != 0
        sps.longTermRefPicsPresentFlag = s.long_term_ref_pics_present_flag != 0
        sps.temporalMvpEnabledFlag = s.sps_temporal_mvp_enabled_flag != 0
        sps.strongIntraSmoothingEnabledFlag = f.strong_intra_smoothing_enabled_flag != 0
        return sps.nalUnit()
    }

    /// pic_parameter_set_rbsp() (7.3.2.3) with id `id` (the one the slices name), as a NAL unit without start code.
    func pictureParameterSet(_ p: VAPictureParameterBufferHEVC, scaling: VAIQMatrixBufferHEVC?, id: Int) -> [UInt8] {
        let f = p.pic_fields.bits, s = p.slice_parsing_fields.bits
        var pps = H265PictureParameterSet()
        pps.id = id
        pps.dependentSliceSegmentsEnabledFlag = s.dependent_slice_segments_enabled_flag != 0
        pps.outputFlagPresentFlag = s.output_flag_present_flag != 0
        pps.numExtraSliceHeaderBits = Int(p.num_extra_slice_header_bits)
        pps.signDataHidingEnabledFlag = f.sign_data_hiding_enabled_flag != 0
        pps.cabacInitPresentFlag = s.cabac_init_present_flag != 0
        pps.numRefIdxL0DefaultActiveMinus1 = Int(p.num_ref_idx_l0_default_active_minus1)
        pps.numRefIdxL1DefaultActiveMinus1 = Int(p.num_ref_idx_l1_default_active_minus1)
        pps.initQpMinus26 = Int(p.init_qp_minus26)
        pps.constrainedIntraPredFlag = f.constrained_intra_pred_flag != 0
        pps.transformSkipEnabledFlag = f.transform_skip_enabled_flag != 0
        pps.cuQpDeltaEnabledFlag = f.cu_qp_delta_enabled_flag != 0
        pps.diffCuQpDeltaDepth = Int(p.diff_cu_qp_delta_depth)
        pps.cbQpOffset = Int(p.pps_cb_qp_offset)
        pps.crQpOffset = Int(p.pps_cr_qp_offset)
        pps.sliceChromaQpOffsetsPresentFlag = s.pps_slice_chroma_qp_offsets_present_flag != 0
        pps.weightedPredFlag = f.weighted_pred_flag != 0
        pps.weightedBipredFlag = f.weighted_bipred_flag != 0
        pps.transquantBypassEnabledFlag = f.transquant_bypass_enabled_flag != 0
        pps.tilesEnabledFlag = f.tiles_enabled_flag != 0
        pps.entropyCodingSyncEnabledFlag = f.entropy_coding_sync_enabled_flag != 0
        if pps.tilesEnabledFlag {
            pps.numTileColumnsMinus1 = Int(p.num_tile_columns_minus1)
            pps.numTileRowsMinus1 = Int(p.num_tile_rows_minus1)
            pps.uniformSpacingFlag = false  // VA gives every width and height
            pps.columnWidthMinus1 = CArray.elements(p.column_width_minus1, as: UInt16.self).prefix(pps.numTileColumnsMinus1).map(Int.init)
            pps.rowHeightMinus1 = CArray.elements(p.row_height_minus1, as: UInt16.self).prefix(pps.numTileRowsMinus1).map(Int.init)
            pps.loopFilterAcrossTilesEnabledFlag = f.loop_filter_across_tiles_enabled_flag != 0
        }
        pps.loopFilterAcrossSlicesEnabledFlag = f.pps_loop_filter_across_slices_enabled_flag != 0
        pps.deblockingFilterControlPresentFlag = true
        pps.deblockingFilterOverrideEnabledFlag = s.deblocking_filter_override_enabled_flag != 0
        pps.deblockingFilterDisabledFlag = s.pps_disable_deblocking_filter_flag != 0
        pps.betaOffsetDiv2 = Int(p.pps_beta_offset_div2)
        pps.tcOffsetDiv2 = Int(p.pps_tc_offset_div2)
        if f.scaling_list_enabled_flag != 0, let scaling {
            pps.scalingListDataPresentFlag = true
            pps.scalingList = Self.scalingList(scaling)
        }
        pps.listsModificationPresentFlag = s.lists_modification_present_flag != 0
        pps.log2ParallelMergeLevelMinus2 = Int(p.log2_parallel_merge_level_minus2)
        pps.sliceSegmentHeaderExtensionPresentFlag = s.slice_segment_header_extension_present_flag != 0
        return pps.nalUnit()
    }

    /// The lists of VAIQMatrixBufferHEVC (raster order, 32x32 for matrixId 0 and 3 only) in the coded
    /// up-right diagonal order (6.5.3) of ``H265ScalingList``.
    static func scalingList(_ m: VAIQMatrixBufferHEVC) -> H265ScalingList {
        let raster: [[UInt8]] = [CArray.elements(m.ScalingList4x4, as: UInt8.self), CArray.elements(m.ScalingList8x8, as: UInt8.self),
                                 CArray.elements(m.ScalingList16x16, as: UInt8.self), CArray.elements(m.ScalingList32x32, as: UInt8.self)]
        let dc16 = CArray.elements(m.ScalingListDC16x16, as: UInt8.self), dc32 = CArray.elements(m.ScalingListDC32x32, as: UInt8.self)
        var result = H265ScalingList.default
        for sizeId in 0..<4 {
            let size = sizeId == 0 ? 4 : 8
            let scan = H265ScalingList.diagonalScan(size).map { $0.y * size + $0.x }
            for matrixId in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                let base = (sizeId == 3 ? matrixId / 3 : matrixId) * size * size
                result.lists[sizeId][matrixId] = scan.map { Int(raster[sizeId][base + $0]) }
                if sizeId == 2 { result.dc[0][matrixId] = Int(dc16[matrixId]) }
                if sizeId == 3 { result.dc[1][matrixId] = Int(dc32[matrixId / 3]) }
            }
        }
        return result
    }
}
