import CLibVA
import JSONText

/// Every field of the VA H.265 decode parameter structs as JSON, named as in va_dec_hevc.h.
enum HEVCCaptureFields: CodecCaptureFields {
    static func value(of buffer: RenderedBuffer) -> JSONValue? {
        switch buffer.type {
        case VAPictureParameterBufferType: return picture(buffer.element(as: VAPictureParameterBufferHEVC.self))
        case VAIQMatrixBufferType: return iqMatrix(buffer.element(as: VAIQMatrixBufferHEVC.self))
        case VASliceParameterBufferType:
            return .array((0..<buffer.elementCount).map { slice(buffer.element($0, as: VASliceParameterBufferHEVC.self)) })
        default: return nil
        }
    }

    static func picture(_ p: VAPictureHEVC) -> JSONValue {
        .object([("picture_id", .int(Int(p.picture_id))), ("pic_order_cnt", .int(Int(p.pic_order_cnt))), ("flags", .int(Int(p.flags)))])
    }

    static func picture(_ p: VAPictureParameterBufferHEVC) -> JSONValue {
        let f = p.pic_fields.bits, s = p.slice_parsing_fields.bits
        let references = CArray.elements(p.ReferenceFrames, as: VAPictureHEVC.self)
        return .object([
            ("CurrPic", picture(p.CurrPic)),
            ("ReferenceFrames", .array(references.map(picture))),
            ("pic_width_in_luma_samples", .int(Int(p.pic_width_in_luma_samples))),
            ("pic_height_in_luma_samples", .int(Int(p.pic_height_in_luma_samples))),
            ("pic_fields", .object([
                ("chroma_format_idc", .int(Int(f.chroma_format_idc))),
                ("separate_colour_plane_flag", .int(Int(f.separate_colour_plane_flag))),
                ("pcm_enabled_flag", .int(Int(f.pcm_enabled_flag))),
                ("scaling_list_enabled_flag", .int(Int(f.scaling_list_enabled_flag))),
                ("transform_skip_enabled_flag", .int(Int(f.transform_skip_enabled_flag))),
                ("amp_enabled_flag", .int(Int(f.amp_enabled_flag))),
                ("strong_intra_smoothing_enabled_flag", .int(Int(f.strong_intra_smoothing_enabled_flag))),
                ("sign_data_hiding_enabled_flag", .int(Int(f.sign_data_hiding_enabled_flag))),
                ("constrained_intra_pred_flag", .int(Int(f.constrained_intra_pred_flag))),
                ("cu_qp_delta_enabled_flag", .int(Int(f.cu_qp_delta_enabled_flag))),
                ("weighted_pred_flag", .int(Int(f.weighted_pred_flag))),
                ("weighted_bipred_flag", .int(Int(f.weighted_bipred_flag))),
                ("transquant_bypass_enabled_flag", .int(Int(f.transquant_bypass_enabled_flag))),
                ("tiles_enabled_flag", .int(Int(f.tiles_enabled_flag))),
                ("entropy_coding_sync_enabled_flag", .int(Int(f.entropy_coding_sync_enabled_flag))),
                ("pps_loop_filter_across_slices_enabled_flag", .int(Int(f.pps_loop_filter_across_slices_enabled_flag))),
                ("loop_filter_across_tiles_enabled_flag", .int(Int(f.loop_filter_across_tiles_enabled_flag))),
                ("pcm_loop_filter_disabled_flag", .int(Int(f.pcm_loop_filter_disabled_flag))),
                ("NoPicReorderingFlag", .int(Int(f.NoPicReorderingFlag))),
                ("NoBiPredFlag", .int(Int(f.NoBiPredFlag))),
            ])),
            ("sps_max_dec_pic_buffering_minus1", .int(Int(p.sps_max_dec_pic_buffering_minus1))),
            ("bit_depth_luma_minus8", .int(Int(p.bit_depth_luma_minus8))),
            ("bit_depth_chroma_minus8", .int(Int(p.bit_depth_chroma_minus8))),
            ("pcm_sample_bit_depth_luma_minus1", .int(Int(p.pcm_sample_bit_depth_luma_minus1))),
            ("pcm_sample_bit_depth_chroma_minus1", .int(Int(p.pcm_sample_bit_depth_chroma_minus1))),
            ("log2_min_luma_coding_block_size_minus3", .int(Int(p.log2_min_luma_coding_block_size_minus3))),
            ("log2_diff_max_min_luma_coding_block_size", .int(Int(p.log2_diff_max_min_luma_coding_block_size))),
            ("log2_min_transform_block_size_minus2", .int(Int(p.log2_min_transform_block_size_minus2))),
            ("log2_diff_max_min_transform_block_size", .int(Int(p.log2_diff_max_min_transform_block_size))),
            ("log2_min_pcm_luma_coding_block_size_minus3", .int(Int(p.log2_min_pcm_luma_coding_block_size_minus3))),
            ("log2_diff_max_min_pcm_luma_coding_block_size", .int(Int(p.log2_diff_max_min_pcm_luma_coding_block_size))),
            ("max_transform_hierarchy_depth_intra", .int(Int(p.max_transform_hierarchy_depth_intra))),
            ("max_transform_hierarchy_depth_inter", .int(Int(p.max_transform_hierarchy_depth_inter))),
            ("init_qp_minus26", .int(Int(p.init_qp_minus26))),
            ("diff_cu_qp_delta_depth", .int(Int(p.diff_cu_qp_delta_depth))),
            ("pps_cb_qp_offset", .int(Int(p.pps_cb_qp_offset))),
            ("pps_cr_qp_offset", .int(Int(p.pps_cr_qp_offset))),
            ("log2_parallel_merge_level_minus2", .int(Int(p.log2_parallel_merge_level_minus2))),
            ("num_tile_columns_minus1", .int(Int(p.num_tile_columns_minus1))),
            ("num_tile_rows_minus1", .int(Int(p.num_tile_rows_minus1))),
            ("column_width_minus1", .ints(tuple: p.column_width_minus1, of: UInt16.self)),
            ("row_height_minus1", .ints(tuple: p.row_height_minus1, of: UInt16.self)),
            ("slice_parsing_fields", .object([
                ("lists_modification_present_flag", .int(Int(s.lists_modification_present_flag))),
                ("long_term_ref_pics_present_flag", .int(Int(s.long_term_ref_pics_present_flag))),
                ("sps_temporal_mvp_enabled_flag", .int(Int(s.sps_temporal_mvp_enabled_flag))),
                ("cabac_init_present_flag", .int(Int(s.cabac_init_present_flag))),
                ("output_flag_present_flag", .int(Int(s.output_flag_present_flag))),
                ("dependent_slice_segments_enabled_flag", .int(Int(s.dependent_slice_segments_enabled_flag))),
                ("pps_slice_chroma_qp_offsets_present_flag", .int(Int(s.pps_slice_chroma_qp_offsets_present_flag))),
                ("sample_adaptive_offset_enabled_flag", .int(Int(s.sample_adaptive_offset_enabled_flag))),
                ("deblocking_filter_override_enabled_flag", .int(Int(s.deblocking_filter_override_enabled_flag))),
                ("pps_disable_deblocking_filter_flag", .int(Int(s.pps_disable_deblocking_filter_flag))),
                ("slice_segment_header_extension_present_flag", .int(Int(s.slice_segment_header_extension_present_flag))),
                ("RapPicFlag", .int(Int(s.RapPicFlag))),
                ("IdrPicFlag", .int(Int(s.IdrPicFlag))),
                ("IntraPicFlag", .int(Int(s.IntraPicFlag))),
            ])),
            ("log2_max_pic_order_cnt_lsb_minus4", .int(Int(p.log2_max_pic_order_cnt_lsb_minus4))),
            ("num_short_term_ref_pic_sets", .int(Int(p.num_short_term_ref_pic_sets))),
            ("num_long_term_ref_pic_sps", .int(Int(p.num_long_term_ref_pic_sps))),
            ("num_ref_idx_l0_default_active_minus1", .int(Int(p.num_ref_idx_l0_default_active_minus1))),
            ("num_ref_idx_l1_default_active_minus1", .int(Int(p.num_ref_idx_l1_default_active_minus1))),
            ("pps_beta_offset_div2", .int(Int(p.pps_beta_offset_div2))),
            ("pps_tc_offset_div2", .int(Int(p.pps_tc_offset_div2))),
            ("num_extra_slice_header_bits", .int(Int(p.num_extra_slice_header_bits))),
            ("st_rps_bits", .int(Int(p.st_rps_bits))),
        ])
    }

    static func iqMatrix(_ m: VAIQMatrixBufferHEVC) -> JSONValue {
        .object([
            ("ScalingList4x4", .ints(tuple: m.ScalingList4x4, of: UInt8.self)),
            ("ScalingList8x8", .ints(tuple: m.ScalingList8x8, of: UInt8.self)),
            ("ScalingList16x16", .ints(tuple: m.ScalingList16x16, of: UInt8.self)),
            ("ScalingList32x32", .ints(tuple: m.ScalingList32x32, of: UInt8.self)),
            ("ScalingListDC16x16", .ints(tuple: m.ScalingListDC16x16, of: UInt8.self)),
            ("ScalingListDC32x32", .ints(tuple: m.ScalingListDC32x32, of: UInt8.self)),
        ])
    }

    static func slice(_ s: VASliceParameterBufferHEVC) -> JSONValue {
        let f = s.LongSliceFlags.fields
        return .object([
            ("slice_data_size", .int(Int(s.slice_data_size))),
            ("slice_data_offset", .int(Int(s.slice_data_offset))),
            ("slice_data_flag", .int(Int(s.slice_data_flag))),
            ("slice_data_byte_offset", .int(Int(s.slice_data_byte_offset))),
            ("slice_segment_address", .int(Int(s.slice_segment_address))),
            ("RefPicList", .ints(tuple: s.RefPicList, of: UInt8.self)),
            ("LongSliceFlags", .object([
                ("LastSliceOfPic", .int(Int(f.LastSliceOfPic))),
                ("dependent_slice_segment_flag", .int(Int(f.dependent_slice_segment_flag))),
                ("slice_type", .int(Int(f.slice_type))),
                ("color_plane_id", .int(Int(f.color_plane_id))),
                ("slice_sao_luma_flag", .int(Int(f.slice_sao_luma_flag))),
                ("slice_sao_chroma_flag", .int(Int(f.slice_sao_chroma_flag))),
                ("mvd_l1_zero_flag", .int(Int(f.mvd_l1_zero_flag))),
                ("cabac_init_flag", .int(Int(f.cabac_init_flag))),
                ("slice_temporal_mvp_enabled_flag", .int(Int(f.slice_temporal_mvp_enabled_flag))),
                ("slice_deblocking_filter_disabled_flag", .int(Int(f.slice_deblocking_filter_disabled_flag))),
                ("collocated_from_l0_flag", .int(Int(f.collocated_from_l0_flag))),
                ("slice_loop_filter_across_slices_enabled_flag", .int(Int(f.slice_loop_filter_across_slices_enabled_flag))),
            ])),
            ("collocated_ref_idx", .int(Int(s.collocated_ref_idx))),
            ("num_ref_idx_l0_active_minus1", .int(Int(s.num_ref_idx_l0_active_minus1))),
            ("num_ref_idx_l1_active_minus1", .int(Int(s.num_ref_idx_l1_active_minus1))),
            ("slice_qp_delta", .int(Int(s.slice_qp_delta))),
            ("slice_cb_qp_offset", .int(Int(s.slice_cb_qp_offset))),
            ("slice_cr_qp_offset", .int(Int(s.slice_cr_qp_offset))),
            ("slice_beta_offset_div2", .int(Int(s.slice_beta_offset_div2))),
            ("slice_tc_offset_div2", .int(Int(s.slice_tc_offset_div2))),
            ("luma_log2_weight_denom", .int(Int(s.luma_log2_weight_denom))),
            ("delta_chroma_log2_weight_denom", .int(Int(s.delta_chroma_log2_weight_denom))),
            ("delta_luma_weight_l0", .ints(tuple: s.delta_luma_weight_l0, of: Int8.self)),
            ("luma_offset_l0", .ints(tuple: s.luma_offset_l0, of: Int8.self)),
            ("delta_chroma_weight_l0", .ints(tuple: s.delta_chroma_weight_l0, of: Int8.self)),
            ("ChromaOffsetL0", .ints(tuple: s.ChromaOffsetL0, of: Int8.self)),
            ("delta_luma_weight_l1", .ints(tuple: s.delta_luma_weight_l1, of: Int8.self)),
            ("luma_offset_l1", .ints(tuple: s.luma_offset_l1, of: Int8.self)),
            ("delta_chroma_weight_l1", .ints(tuple: s.delta_chroma_weight_l1, of: Int8.self)),
            ("ChromaOffsetL1", .ints(tuple: s.ChromaOffsetL1, of: Int8.self)),
            ("five_minus_max_num_merge_cand", .int(Int(s.five_minus_max_num_merge_cand))),
            ("num_entry_point_offsets", .int(Int(s.num_entry_point_offsets))),
            ("entry_offset_to_subset_array", .int(Int(s.entry_offset_to_subset_array))),
            ("slice_data_num_emu_prevn_bytes", .int(Int(s.slice_data_num_emu_prevn_bytes))),
        ])
    }
}
