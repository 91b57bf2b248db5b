import CLibVA
import NALStream
import H265Bitstream

/// Rebuilds the VPS, SPS and PPS that a VA decoder never sees from VAPictureParameterBufferHEVC and
/// VAIQMatrixBufferHEVC, so that libavcodec can decode the client's slices.
///
/// VA leaves out what a hardware decoder does not need; the rebuilt sets take neutral values there:
/// level 6.2, no conformance window (the whole coded picture is decoded; clients crop), no VUI, no
/// short-term or long-term sets in the SPS (``H265SliceHeaderRewriter`` gives each slice its own set,
/// from the picture's ReferenceFrames), and the scaling lists in the PPS.
struct H265ParameterSetRebuilder {
    let profile: VAProfile

    var profileIdc: Int { profile == VAProfileHEVCMain10 ? 2 : 1 }

    /// video_parameter_set_rbsp() (7.3.2.1).
    func videoParameterSet(_ p: VAPictureParameterBufferHEVC) -> [UInt8] {
        var w = BitWriter()
        w.u(4, 0)  // vps_video_parameter_set_id
        w.flag(true)  // vps_base_layer_internal_flag
        w.flag(true)  // vps_base_layer_available_flag
        w.u(6, 0)  // vps_max_layers_minus1
        w.u(3, 0)  // vps_max_sub_layers_minus1
        w.flag(true)  // vps_temporal_id_nesting_flag
        w.u(16, 0xFFFF)
        profileTierLevel(&w)
        w.flag(true)  // vps_sub_layer_ordering_info_present_flag
        w.ue(Int(p.sps_max_dec_pic_buffering_minus1))
        w.ue(reorder(p))
        w.ue(0)  // vps_max_latency_increase_plus1
        w.u(6, 0)  // vps_max_layer_id
        w.ue(0)  // vps_num_layer_sets_minus1
        w.flag(false)  // vps_timing_info_present_flag
        w.flag(false)  // vps_extension_flag
        w.rbspTrailingBits()
        return nal(.vps, w.bytes)
    }

    /// sps_max_num_reorder_pics: 0 when the picture says there is no reordering, else as many as the DPB allows.
    private func reorder(_ p: VAPictureParameterBufferHEVC) -> Int {
        p.pic_fields.bits.NoPicReorderingFlag != 0 ? 0 : Int(p.sps_max_dec_pic_buffering_minus1)
    }

    /// profile_tier_level(1, 0) (7.3.3): Main (compatible with Main 10) or Main 10, progressive frames, level 6.2.
    private func profileTierLevel(_ w: inout BitWriter) {
        w.u(2, 0)
        w.flag(false)
        w.u(5, profileIdc)
        for j in 0..<32 { w.flag(j == profileIdc || j == 2) }
        w.flag(true)  // progressive_source
        w.flag(false)
        w.flag(false)
        w.flag(true)  // frame_only_constraint
        w.u(7, 0)  // general_reserved_zero_7bits
        w.flag(false)  // general_one_picture_only_constraint_flag
        w.u(24, 0)
        w.u(11, 0)  // general_reserved_zero_35bits
        w.flag(false)  // general_inbld_flag
        w.u(8, 186)  // general_level_idc: 6.2, the highest, limits nothing
    }

    /// seq_parameter_set_rbsp() (7.3.2.2).
    func sequenceParameterSet(_ p: VAPictureParameterBufferHEVC) -> [UInt8] {
        let f = p.pic_fields.bits, s = p.slice_parsing_fields.bits
        var w = BitWriter()
        w.u(4, 0)  // sps_video_parameter_set_id
        w.u(3, 0)  // sps_max_sub_layers_minus1
        w.flag(true)  // sps_temporal_id_nesting_flag
        profileTierLevel(&w)
        w.ue(0)  // sps_seq_parameter_set_id
        w.ue(Int(f.chroma_format_idc))
        if f.chroma_format_idc == 3 { w.flag(f.separate_colour_plane_flag != 0) }
        w.ue(Int(p.pic_width_in_luma_samples))
        w.ue(Int(p.pic_height_in_luma_samples))
        w.flag(false)  // conformance_window_flag
        w.ue(Int(p.bit_depth_luma_minus8))
        w.ue(Int(p.bit_depth_chroma_minus8))
        w.ue(Int(p.log2_max_pic_order_cnt_lsb_minus4))
        w.flag(true)  // sps_sub_layer_ordering_info_present_flag
        w.ue(Int(p.sps_max_dec_pic_buffering_minus1))
        w.ue(reorder(p))
        w.ue(0)  // sps_max_latency_increase_plus1
        w.ue(Int(p.log2_min_luma_coding_block_size_minus3))
        w.ue(Int(p.log2_diff_max_min_luma_coding_block_size))
        w.ue(Int(p.log2_min_transform_block_size_minus2))
        w.ue(Int(p.log2_diff_max_min_transform_block_size))
        w.ue(Int(p.max_transform_hierarchy_depth_inter))
        w.ue(Int(p.max_transform_hierarchy_depth_intra))
        w.flag(f.scaling_list_enabled_flag != 0)
        if f.scaling_list_enabled_flag != 0 { w.flag(false) }  // sps_scaling_list_data_present_flag: the PPS carries them
        w.flag(f.amp_enabled_flag != 0)
        w.flag(s.sample_adaptive_offset_enabled_flag != 0)
        w.flag(f.pcm_enabled_flag != 0)
        if f.pcm_enabled_flag != 0 {
            w.u(4, Int(p.pcm_sample_bit_depth_luma_minus1))
            w.u(4, Int(p.pcm_sample_bit_depth_chroma_minus1))
            w.ue(Int(p.log2_min_pcm_luma_coding_block_size_minus3))
            w.ue(Int(p.log2_diff_max_min_pcm_luma_coding_block_size))
            w.flag(f.pcm_loop_filter_disabled_flag != 0)
        }
        w.ue(0)  // num_short_term_ref_pic_sets
        w.flag(s.long_term_ref_pics_present_flag != 0)
        if s.long_term_ref_pics_present_flag != 0 { w.ue(0) }  // num_long_term_ref_pics_sps
        w.flag(s.sps_temporal_mvp_enabled_flag != 0)
        w.flag(f.strong_intra_smoothing_enabled_flag != 0)
        w.flag(false)  // vui_parameters_present_flag
        w.flag(false)  // sps_extension_present_flag
        w.rbspTrailingBits()
        return nal(.sps, w.bytes)
    }

    /// pic_parameter_set_rbsp() (7.3.2.3) with id `id` (the one the slices name).
    func pictureParameterSet(_ p: VAPictureParameterBufferHEVC, scaling: VAIQMatrixBufferHEVC?, id: Int) -> [UInt8] {
        let f = p.pic_fields.bits, s = p.slice_parsing_fields.bits
        var w = BitWriter()
        w.ue(id)
        w.ue(0)  // pps_seq_parameter_set_id
        w.flag(s.dependent_slice_segments_enabled_flag != 0)
        w.flag(s.output_flag_present_flag != 0)
        w.u(3, Int(p.num_extra_slice_header_bits))
        w.flag(f.sign_data_hiding_enabled_flag != 0)
        w.flag(s.cabac_init_present_flag != 0)
        w.ue(Int(p.num_ref_idx_l0_default_active_minus1))
        w.ue(Int(p.num_ref_idx_l1_default_active_minus1))
        w.se(Int(p.init_qp_minus26))
        w.flag(f.constrained_intra_pred_flag != 0)
        w.flag(f.transform_skip_enabled_flag != 0)
        w.flag(f.cu_qp_delta_enabled_flag != 0)
        if f.cu_qp_delta_enabled_flag != 0 { w.ue(Int(p.diff_cu_qp_delta_depth)) }
        w.se(Int(p.pps_cb_qp_offset))
        w.se(Int(p.pps_cr_qp_offset))
        w.flag(s.pps_slice_chroma_qp_offsets_present_flag != 0)
        w.flag(f.weighted_pred_flag != 0)
        w.flag(f.weighted_bipred_flag != 0)
        w.flag(f.transquant_bypass_enabled_flag != 0)
        w.flag(f.tiles_enabled_flag != 0)
        w.flag(f.entropy_coding_sync_enabled_flag != 0)
        if f.tiles_enabled_flag != 0 {
            w.ue(Int(p.num_tile_columns_minus1))
            w.ue(Int(p.num_tile_rows_minus1))
            w.flag(false)  // uniform_spacing_flag: VA gives every width and height
            let columns = CArray.elements(p.column_width_minus1, as: UInt16.self)
            let rows = CArray.elements(p.row_height_minus1, as: UInt16.self)
            for i in 0..<Int(p.num_tile_columns_minus1) { w.ue(Int(columns[i])) }
            for i in 0..<Int(p.num_tile_rows_minus1) { w.ue(Int(rows[i])) }
            w.flag(f.loop_filter_across_tiles_enabled_flag != 0)
        }
        w.flag(f.pps_loop_filter_across_slices_enabled_flag != 0)
        w.flag(true)  // deblocking_filter_control_present_flag
        w.flag(s.deblocking_filter_override_enabled_flag != 0)
        w.flag(s.pps_disable_deblocking_filter_flag != 0)
        if s.pps_disable_deblocking_filter_flag == 0 {
            w.se(Int(p.pps_beta_offset_div2))
            w.se(Int(p.pps_tc_offset_div2))
        }
        let lists = f.scaling_list_enabled_flag != 0 ? scaling : nil
        w.flag(lists != nil)  // pps_scaling_list_data_present_flag
        if let lists { Self.writeScalingListData(lists, into: &w) }
        w.flag(s.lists_modification_present_flag != 0)
        w.ue(Int(p.log2_parallel_merge_level_minus2))
        w.flag(s.slice_segment_header_extension_present_flag != 0)
        w.flag(false)  // pps_extension_present_flag
        w.rbspTrailingBits()
        return nal(.pps, w.bytes)
    }

    /// scaling_list_data() (7.3.4), every list explicit. VA keeps them in raster order; the bitstream
    /// codes them in up-right diagonal order (6.5.3).
    static func writeScalingListData(_ m: VAIQMatrixBufferHEVC, into w: inout BitWriter) {
        let l4 = CArray.elements(m.ScalingList4x4, as: UInt8.self)
        let l8 = CArray.elements(m.ScalingList8x8, as: UInt8.self)
        let l16 = CArray.elements(m.ScalingList16x16, as: UInt8.self)
        let l32 = CArray.elements(m.ScalingList32x32, as: UInt8.self)
        let dc16 = CArray.elements(m.ScalingListDC16x16, as: UInt8.self)
        let dc32 = CArray.elements(m.ScalingListDC32x32, as: UInt8.self)
        let scan4 = H265ScalingList.diagonalScan(4).map { $0.y * 4 + $0.x }
        let scan8 = H265ScalingList.diagonalScan(8).map { $0.y * 8 + $0.x }
        for sizeId in 0..<4 {
            for matrixId in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                w.flag(true)  // scaling_list_pred_mode_flag
                let raster: ArraySlice<UInt8>
                var next = 8
                switch sizeId {
                case 0: raster = l4[(matrixId * 16)..<(matrixId * 16 + 16)]
                case 1: raster = l8[(matrixId * 64)..<(matrixId * 64 + 64)]
                case 2:
                    raster = l16[(matrixId * 64)..<(matrixId * 64 + 64)]
                    next = Int(dc16[matrixId])
                default:
                    raster = l32[(matrixId / 3 * 64)..<(matrixId / 3 * 64 + 64)]
                    next = Int(dc32[matrixId / 3])
                }
                if sizeId > 1 { w.se(next - 8) }  // scaling_list_dc_coef_minus8
                for position in (sizeId == 0 ? scan4 : scan8) {
                    let value = Int(raster[raster.startIndex + position])
                    var delta = value - next
                    if delta > 127 { delta -= 256 }
                    if delta < -128 { delta += 256 }
                    w.se(delta)
                    next = value
                }
            }
        }
    }

    private func nal(_ type: H265NALUnitType, _ rbsp: [UInt8]) -> [UInt8] {
        H265NALUnitHeader(type: type).bytes + EmulationPrevention.insert(rbsp)
    }
}
