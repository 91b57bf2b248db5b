import CLibVA
import JSONText

/// Every field of the VA H.265 encode parameter structs as JSON, named as in va_enc_hevc.h, so the
/// parameters of two VA clients (FFmpeg's hevc_vaapi and vtk) can be compared field by field. Misc and
/// packed header buffers are described by ``ParameterCapture`` for every codec: their layout is codec-neutral.
enum HEVCEncodeCaptureFields: CodecCaptureFields {
    static func value(of buffer: RenderedBuffer) -> JSONValue? {
        switch buffer.type {
        case VAEncSequenceParameterBufferType: sequence(buffer.element(as: VAEncSequenceParameterBufferHEVC.self))
        case VAEncPictureParameterBufferType: picture(buffer.element(as: VAEncPictureParameterBufferHEVC.self))
        case VAEncSliceParameterBufferType:
            .array((0..<buffer.elementCount).map { slice(buffer.element($0, as: VAEncSliceParameterBufferHEVC.self)) })
        default: nil
        }
    }

    private static func int(_ value: some BinaryInteger) -> JSONValue { .int(Int(value)) }

    static func sequence(_ s: VAEncSequenceParameterBufferHEVC) -> JSONValue {
        let f = s.seq_fields.bits, v = s.vui_fields.bits
        return .object([
            ("general_profile_idc", int(s.general_profile_idc)),
            ("general_level_idc", int(s.general_level_idc)),
            ("general_tier_flag", int(s.general_tier_flag)),
            ("intra_period", int(s.intra_period)),
            ("intra_idr_period", int(s.intra_idr_period)),
            ("ip_period", int(s.ip_period)),
            ("bits_per_second", int(s.bits_per_second)),
            ("pic_width_in_luma_samples", int(s.pic_width_in_luma_samples)),
            ("pic_height_in_luma_samples", int(s.pic_height_in_luma_samples)),
            ("seq_fields", .object([
                ("chroma_format_idc", int(f.chroma_format_idc)),
                ("separate_colour_plane_flag", int(f.separate_colour_plane_flag)),
                ("bit_depth_luma_minus8", int(f.bit_depth_luma_minus8)),
                ("bit_depth_chroma_minus8", int(f.bit_depth_chroma_minus8)),
                ("scaling_list_enabled_flag", int(f.scaling_list_enabled_flag)),
                ("strong_intra_smoothing_enabled_flag", int(f.strong_intra_smoothing_enabled_flag)),
                ("amp_enabled_flag", int(f.amp_enabled_flag)),
                ("sample_adaptive_offset_enabled_flag", int(f.sample_adaptive_offset_enabled_flag)),
                ("pcm_enabled_flag", int(f.pcm_enabled_flag)),
                ("pcm_loop_filter_disabled_flag", int(f.pcm_loop_filter_disabled_flag)),
                ("sps_temporal_mvp_enabled_flag", int(f.sps_temporal_mvp_enabled_flag)),
                ("low_delay_seq", int(f.low_delay_seq)),
                ("hierachical_flag", int(f.hierachical_flag)),
            ])),
            ("log2_min_luma_coding_block_size_minus3", int(s.log2_min_luma_coding_block_size_minus3)),
            ("log2_diff_max_min_luma_coding_block_size", int(s.log2_diff_max_min_luma_coding_block_size)),
            ("log2_min_transform_block_size_minus2", int(s.log2_min_transform_block_size_minus2)),
            ("log2_diff_max_min_transform_block_size", int(s.log2_diff_max_min_transform_block_size)),
            ("max_transform_hierarchy_depth_inter", int(s.max_transform_hierarchy_depth_inter)),
            ("max_transform_hierarchy_depth_intra", int(s.max_transform_hierarchy_depth_intra)),
            ("pcm_sample_bit_depth_luma_minus1", int(s.pcm_sample_bit_depth_luma_minus1)),
            ("pcm_sample_bit_depth_chroma_minus1", int(s.pcm_sample_bit_depth_chroma_minus1)),
            ("log2_min_pcm_luma_coding_block_size_minus3", int(s.log2_min_pcm_luma_coding_block_size_minus3)),
            ("log2_max_pcm_luma_coding_block_size_minus3", int(s.log2_max_pcm_luma_coding_block_size_minus3)),
            ("vui_parameters_present_flag", int(s.vui_parameters_present_flag)),
            ("vui_fields", .object([
                ("aspect_ratio_info_present_flag", int(v.aspect_ratio_info_present_flag)),
                ("neutral_chroma_indication_flag", int(v.neutral_chroma_indication_flag)),
                ("field_seq_flag", int(v.field_seq_flag)),
                ("vui_timing_info_present_flag", int(v.vui_timing_info_present_flag)),
                ("bitstream_restriction_flag", int(v.bitstream_restriction_flag)),
                ("tiles_fixed_structure_flag", int(v.tiles_fixed_structure_flag)),
                ("motion_vectors_over_pic_boundaries_flag", int(v.motion_vectors_over_pic_boundaries_flag)),
                ("restricted_ref_pic_lists_flag", int(v.restricted_ref_pic_lists_flag)),
                ("log2_max_mv_length_horizontal", int(v.log2_max_mv_length_horizontal)),
                ("log2_max_mv_length_vertical", int(v.log2_max_mv_length_vertical)),
            ])),
            ("aspect_ratio_idc", int(s.aspect_ratio_idc)),
            ("sar_width", int(s.sar_width)),
            ("sar_height", int(s.sar_height)),
            ("vui_num_units_in_tick", int(s.vui_num_units_in_tick)),
            ("vui_time_scale", int(s.vui_time_scale)),
            ("min_spatial_segmentation_idc", int(s.min_spatial_segmentation_idc)),
            ("max_bytes_per_pic_denom", int(s.max_bytes_per_pic_denom)),
            ("max_bits_per_min_cu_denom", int(s.max_bits_per_min_cu_denom)),
            ("scc_fields", int(s.scc_fields.value)),
        ])
    }

    static func picture(_ p: VAEncPictureParameterBufferHEVC) -> JSONValue {
        let f = p.pic_fields.bits
        return .object([
            ("decoded_curr_pic", HEVCCaptureFields.picture(p.decoded_curr_pic)),
            ("reference_frames", pictures(p.reference_frames)),
            ("coded_buf", int(p.coded_buf)),
            ("collocated_ref_pic_index", int(p.collocated_ref_pic_index)),
            ("last_picture", int(p.last_picture)),
            ("pic_init_qp", int(p.pic_init_qp)),
            ("diff_cu_qp_delta_depth", int(p.diff_cu_qp_delta_depth)),
            ("pps_cb_qp_offset", int(p.pps_cb_qp_offset)),
            ("pps_cr_qp_offset", int(p.pps_cr_qp_offset)),
            ("num_tile_columns_minus1", int(p.num_tile_columns_minus1)),
            ("num_tile_rows_minus1", int(p.num_tile_rows_minus1)),
            ("column_width_minus1", .ints(tuple: p.column_width_minus1, of: UInt8.self)),
            ("row_height_minus1", .ints(tuple: p.row_height_minus1, of: UInt8.self)),
            ("log2_parallel_merge_level_minus2", int(p.log2_parallel_merge_level_minus2)),
            ("ctu_max_bitsize_allowed", int(p.ctu_max_bitsize_allowed)),
            ("num_ref_idx_l0_default_active_minus1", int(p.num_ref_idx_l0_default_active_minus1)),
            ("num_ref_idx_l1_default_active_minus1", int(p.num_ref_idx_l1_default_active_minus1)),
            ("slice_pic_parameter_set_id", int(p.slice_pic_parameter_set_id)),
            ("nal_unit_type", int(p.nal_unit_type)),
            ("pic_fields", .object([
                ("idr_pic_flag", int(f.idr_pic_flag)),
                ("coding_type", int(f.coding_type)),
                ("reference_pic_flag", int(f.reference_pic_flag)),
                ("dependent_slice_segments_enabled_flag", int(f.dependent_slice_segments_enabled_flag)),
                ("sign_data_hiding_enabled_flag", int(f.sign_data_hiding_enabled_flag)),
                ("constrained_intra_pred_flag", int(f.constrained_intra_pred_flag)),
                ("transform_skip_enabled_flag", int(f.transform_skip_enabled_flag)),
                ("cu_qp_delta_enabled_flag", int(f.cu_qp_delta_enabled_flag)),
                ("weighted_pred_flag", int(f.weighted_pred_flag)),
                ("weighted_bipred_flag", int(f.weighted_bipred_flag)),
                ("transquant_bypass_enabled_flag", int(f.transquant_bypass_enabled_flag)),
                ("tiles_enabled_flag", int(f.tiles_enabled_flag)),
                ("entropy_coding_sync_enabled_flag", int(f.entropy_coding_sync_enabled_flag)),
                ("loop_filter_across_tiles_enabled_flag", int(f.loop_filter_across_tiles_enabled_flag)),
                ("pps_loop_filter_across_slices_enabled_flag", int(f.pps_loop_filter_across_slices_enabled_flag)),
                ("scaling_list_data_present_flag", int(f.scaling_list_data_present_flag)),
                ("screen_content_flag", int(f.screen_content_flag)),
                ("enable_gpu_weighted_prediction", int(f.enable_gpu_weighted_prediction)),
                ("no_output_of_prior_pics_flag", int(f.no_output_of_prior_pics_flag)),
            ])),
            ("hierarchical_level_plus1", int(p.hierarchical_level_plus1)),
            ("scc_fields", int(p.scc_fields.value)),
        ])
    }

    static func slice(_ s: VAEncSliceParameterBufferHEVC) -> JSONValue {
        let f = s.slice_fields.bits
        return .object([
            ("slice_segment_address", int(s.slice_segment_address)),
            ("num_ctu_in_slice", int(s.num_ctu_in_slice)),
            ("slice_type", int(s.slice_type)),
            ("slice_pic_parameter_set_id", int(s.slice_pic_parameter_set_id)),
            ("num_ref_idx_l0_active_minus1", int(s.num_ref_idx_l0_active_minus1)),
            ("num_ref_idx_l1_active_minus1", int(s.num_ref_idx_l1_active_minus1)),
            ("ref_pic_list0", pictures(s.ref_pic_list0)),
            ("ref_pic_list1", pictures(s.ref_pic_list1)),
            ("luma_log2_weight_denom", int(s.luma_log2_weight_denom)),
            ("delta_chroma_log2_weight_denom", int(s.delta_chroma_log2_weight_denom)),
            ("delta_luma_weight_l0", .ints(tuple: s.delta_luma_weight_l0, of: Int8.self)),
            ("luma_offset_l0", .ints(tuple: s.luma_offset_l0, of: Int8.self)),
            ("delta_chroma_weight_l0", .ints(tuple: s.delta_chroma_weight_l0, of: Int8.self)),
            ("chroma_offset_l0", .ints(tuple: s.chroma_offset_l0, of: Int8.self)),
            ("delta_luma_weight_l1", .ints(tuple: s.delta_luma_weight_l1, of: Int8.self)),
            ("luma_offset_l1", .ints(tuple: s.luma_offset_l1, of: Int8.self)),
            ("delta_chroma_weight_l1", .ints(tuple: s.delta_chroma_weight_l1, of: Int8.self)),
            ("chroma_offset_l1", .ints(tuple: s.chroma_offset_l1, of: Int8.self)),
            ("max_num_merge_cand", int(s.max_num_merge_cand)),
            ("slice_qp_delta", int(s.slice_qp_delta)),
            ("slice_cb_qp_offset", int(s.slice_cb_qp_offset)),
            ("slice_cr_qp_offset", int(s.slice_cr_qp_offset)),
            ("slice_beta_offset_div2", int(s.slice_beta_offset_div2)),
            ("slice_tc_offset_div2", int(s.slice_tc_offset_div2)),
            ("slice_fields", .object([
                ("last_slice_of_pic_flag", int(f.last_slice_of_pic_flag)),
                ("dependent_slice_segment_flag", int(f.dependent_slice_segment_flag)),
                ("colour_plane_id", int(f.colour_plane_id)),
                ("slice_temporal_mvp_enabled_flag", int(f.slice_temporal_mvp_enabled_flag)),
                ("slice_sao_luma_flag", int(f.slice_sao_luma_flag)),
                ("slice_sao_chroma_flag", int(f.slice_sao_chroma_flag)),
                ("num_ref_idx_active_override_flag", int(f.num_ref_idx_active_override_flag)),
                ("mvd_l1_zero_flag", int(f.mvd_l1_zero_flag)),
                ("cabac_init_flag", int(f.cabac_init_flag)),
                ("slice_deblocking_filter_disabled_flag", int(f.slice_deblocking_filter_disabled_flag)),
                ("slice_loop_filter_across_slices_enabled_flag", int(f.slice_loop_filter_across_slices_enabled_flag)),
                ("collocated_from_l0_flag", int(f.collocated_from_l0_flag)),
            ])),
            ("pred_weight_table_bit_offset", int(s.pred_weight_table_bit_offset)),
            ("pred_weight_table_bit_length", int(s.pred_weight_table_bit_length)),
        ])
    }

    static func pictures<Tuple>(_ tuple: Tuple) -> JSONValue {
        .array(withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: VAPictureHEVC.self)) }.map(HEVCCaptureFields.picture))
    }
}
