import CLibVA
import H265Bitstream
import VideoAcceleration

/// The VA parameter buffers for one H.265 picture (va_enc_hevc.h), filled from the stream's headers and the
/// GOP planner's plan, as FFmpeg's vaapi_encode_h265.c fills them: plain values, mapping syntax to VA structs.
struct H265EncodeParameters {
    let headers: H265StreamHeaders
    var configuration: EncoderConfiguration { headers.configuration }

    init(headers: H265StreamHeaders) { self.headers = headers }

    /// VAEncSequenceParameterBufferHEVC: the SPS (7.3.2.2) and its GOP hints.
    func sequence(rate: H264RateSettings) -> VAEncSequenceParameterBufferHEVC {
        let c = configuration, sps = headers.sps, vui = sps.vui
        var s = VAEncSequenceParameterBufferHEVC()
        s.general_profile_idc = UInt8(sps.profileTierLevel.generalProfileIdc)
        s.general_level_idc = UInt8(sps.profileTierLevel.generalLevelIdc)
        s.general_tier_flag = sps.profileTierLevel.generalTierFlag ? 1 : 0
        (s.intra_period, s.intra_idr_period, s.ip_period) = c.vaPeriods
        s.bits_per_second = UInt32(rate.bitsPerSecond)
        s.pic_width_in_luma_samples = UInt16(sps.picWidthInLumaSamples)
        s.pic_height_in_luma_samples = UInt16(sps.picHeightInLumaSamples)
        s.seq_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        s.seq_fields.bits.bit_depth_luma_minus8 = UInt32(sps.bitDepthLumaMinus8)
        s.seq_fields.bits.bit_depth_chroma_minus8 = UInt32(sps.bitDepthChromaMinus8)
        s.seq_fields.bits.amp_enabled_flag = sps.ampEnabledFlag ? 1 : 0
        s.seq_fields.bits.sample_adaptive_offset_enabled_flag = sps.sampleAdaptiveOffsetEnabledFlag ? 1 : 0
        s.seq_fields.bits.sps_temporal_mvp_enabled_flag = sps.temporalMvpEnabledFlag ? 1 : 0
        s.seq_fields.bits.strong_intra_smoothing_enabled_flag = sps.strongIntraSmoothingEnabledFlag ? 1 : 0
        s.seq_fields.bits.low_delay_seq = c.bFrames == 0 ? 1 : 0
        s.seq_fields.bits.hierachical_flag = c.bPyramid ? 1 : 0
        s.log2_min_luma_coding_block_size_minus3 = UInt8(sps.log2MinLumaCodingBlockSizeMinus3)
        s.log2_diff_max_min_luma_coding_block_size = UInt8(sps.log2DiffMaxMinLumaCodingBlockSize)
        s.log2_min_transform_block_size_minus2 = UInt8(sps.log2MinLumaTransformBlockSizeMinus2)
        s.log2_diff_max_min_transform_block_size = UInt8(sps.log2DiffMaxMinLumaTransformBlockSize)
        s.max_transform_hierarchy_depth_inter = UInt8(sps.maxTransformHierarchyDepthInter)
        s.max_transform_hierarchy_depth_intra = UInt8(sps.maxTransformHierarchyDepthIntra)
        s.vui_parameters_present_flag = sps.vuiParametersPresentFlag ? 1 : 0
        s.vui_fields.bits.aspect_ratio_info_present_flag = vui.aspectRatioInfoPresentFlag ? 1 : 0
        s.aspect_ratio_idc = UInt8(vui.aspectRatioIdc)
        s.vui_fields.bits.vui_timing_info_present_flag = vui.timingInfoPresentFlag ? 1 : 0
        s.vui_num_units_in_tick = UInt32(vui.numUnitsInTick)
        s.vui_time_scale = UInt32(vui.timeScale)
        s.vui_fields.bits.bitstream_restriction_flag = vui.bitstreamRestrictionFlag ? 1 : 0
        s.vui_fields.bits.motion_vectors_over_pic_boundaries_flag = vui.motionVectorsOverPicBoundariesFlag ? 1 : 0
        s.vui_fields.bits.restricted_ref_pic_lists_flag = vui.restrictedRefPicListsFlag ? 1 : 0
        s.vui_fields.bits.log2_max_mv_length_horizontal = UInt32(vui.log2MaxMvLengthHorizontal)
        s.vui_fields.bits.log2_max_mv_length_vertical = UInt32(vui.log2MaxMvLengthVertical)
        s.max_bytes_per_pic_denom = UInt8(vui.maxBytesPerPicDenom)
        s.max_bits_per_min_cu_denom = UInt8(vui.maxBitsPerMinCuDenom)
        return s
    }

    /// coding_type (va_enc_hevc.h): 1 I, 2 P, 3 B; a B picture others reference is B1 (4).
    static func codingType(_ plan: H264GOPPlanner.PicturePlan, slice: H265SliceType) -> UInt32 {
        switch slice {
        case .i: return 1
        case .p: return 2
        case .b: return plan.type == .b && plan.isReference ? 4 : 3
        }
    }

    /// VAEncPictureParameterBufferHEVC: the PPS (7.3.2.3) and this picture's place among the references.
    func picture(_ plan: H264GOPPlanner.PicturePlan, leading: Bool, reconstructed: (Int) -> VASurfaceID,
                 codedBuffer: VABufferID) -> VAEncPictureParameterBufferHEVC {
        let pps = headers.pps
        let header = headers.sliceHeader(plan, leading: leading)
        var p = VAEncPictureParameterBufferHEVC()
        p.decoded_curr_pic = Self.picture(surface: reconstructed(plan.reconstructedSlot), picOrderCnt: plan.picOrderCnt)
        VAFixedArray.store(plan.referenceFrames.map { Self.reference($0, of: plan, reconstructed) },
                           into: &p.reference_frames, padding: Self.invalidPicture)
        p.coded_buf = codedBuffer
        p.collocated_ref_pic_index = 0xFF  // no temporal MV prediction
        p.last_picture = 0
        p.pic_init_qp = UInt8(26 + pps.initQpMinus26)
        p.diff_cu_qp_delta_depth = UInt8(pps.diffCuQpDeltaDepth)
        p.pps_cb_qp_offset = Int8(pps.cbQpOffset)
        p.pps_cr_qp_offset = Int8(pps.crQpOffset)
        p.log2_parallel_merge_level_minus2 = UInt8(pps.log2ParallelMergeLevelMinus2)
        p.num_ref_idx_l0_default_active_minus1 = UInt8(pps.numRefIdxL0DefaultActiveMinus1)
        p.num_ref_idx_l1_default_active_minus1 = UInt8(pps.numRefIdxL1DefaultActiveMinus1)
        p.slice_pic_parameter_set_id = UInt8(pps.id)
        p.nal_unit_type = header.nalUnitType.rawValue
        p.pic_fields.bits.idr_pic_flag = plan.isIDR ? 1 : 0
        p.pic_fields.bits.coding_type = Self.codingType(plan, slice: header.sliceType)
        p.pic_fields.bits.reference_pic_flag = plan.isReference ? 1 : 0
        p.pic_fields.bits.sign_data_hiding_enabled_flag = pps.signDataHidingEnabledFlag ? 1 : 0
        p.pic_fields.bits.cu_qp_delta_enabled_flag = pps.cuQpDeltaEnabledFlag ? 1 : 0
        p.pic_fields.bits.pps_loop_filter_across_slices_enabled_flag = pps.loopFilterAcrossSlicesEnabledFlag ? 1 : 0
        return p
    }

    /// VAEncSliceParameterBufferHEVC: one slice segment of the whole picture, the header the packed slice carries.
    func slice(_ plan: H264GOPPlanner.PicturePlan, leading: Bool, reconstructed: (Int) -> VASurfaceID) -> VAEncSliceParameterBufferHEVC {
        let sps = headers.sps, h = headers.sliceHeader(plan, leading: leading)
        let (l0, l1) = headers.lists(plan)
        var s = VAEncSliceParameterBufferHEVC()
        s.slice_segment_address = 0
        s.num_ctu_in_slice = UInt32(sps.picSizeInCtbs)
        s.slice_type = UInt8(h.sliceType.rawValue)
        s.slice_pic_parameter_set_id = UInt8(h.picParameterSetId)
        s.num_ref_idx_l0_active_minus1 = UInt8(h.numRefIdxL0ActiveMinus1)
        s.num_ref_idx_l1_active_minus1 = UInt8(h.numRefIdxL1ActiveMinus1)
        let list1 = h.sliceType == .b ? l1 : []
        VAFixedArray.store(l0.map { Self.reference($0, of: plan, reconstructed) }, into: &s.ref_pic_list0, padding: Self.invalidPicture)
        VAFixedArray.store(list1.map { Self.reference($0, of: plan, reconstructed) }, into: &s.ref_pic_list1, padding: Self.invalidPicture)
        s.max_num_merge_cand = UInt8(5 - h.fiveMinusMaxNumMergeCand)
        s.slice_qp_delta = Int8(h.qpDelta)
        s.slice_fields.bits.last_slice_of_pic_flag = 1
        s.slice_fields.bits.num_ref_idx_active_override_flag = h.numRefIdxActiveOverrideFlag ? 1 : 0
        s.slice_fields.bits.slice_loop_filter_across_slices_enabled_flag = h.loopFilterAcrossSlicesEnabledFlag ? 1 : 0
        s.slice_fields.bits.slice_sao_luma_flag = h.saoLumaFlag ? 1 : 0
        s.slice_fields.bits.slice_sao_chroma_flag = h.saoChromaFlag ? 1 : 0
        // Only read with temporal MV prediction, which vtk leaves off: 1 on inter slices, as FFmpeg sends it.
        s.slice_fields.bits.collocated_from_l0_flag = h.sliceType != .i ? 1 : 0
        return s
    }

    static func picture(surface: VASurfaceID, picOrderCnt: Int) -> VAPictureHEVC {
        var p = VAPictureHEVC()
        p.picture_id = surface
        p.pic_order_cnt = Int32(picOrderCnt)
        p.flags = 0
        return p
    }

    /// A reference as VA names it: its surface and POC, flagged as before or after the current picture
    /// (VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE/AFTER), as FFmpeg flags them.
    static func reference(_ r: H264GOPPlanner.Reference, of plan: H264GOPPlanner.PicturePlan, _ reconstructed: (Int) -> VASurfaceID) -> VAPictureHEVC {
        var p = picture(surface: reconstructed(r.slot), picOrderCnt: r.picOrderCnt)
        p.flags = UInt32(r.picOrderCnt < plan.picOrderCnt ? VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE : VA_PICTURE_HEVC_RPS_ST_CURR_AFTER)
        return p
    }

    static var invalidPicture: VAPictureHEVC {
        var p = VAPictureHEVC()
        p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
        p.flags = UInt32(VA_PICTURE_HEVC_INVALID)
        return p
    }
}
