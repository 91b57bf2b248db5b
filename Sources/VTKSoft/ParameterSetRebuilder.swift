import CLibVA
import H264Bitstream

/// Rebuilds the SPS and PPS NAL units that a VA decoder never sees, from the parsed values in
/// VAPictureParameterBufferH264 and VAIQMatrixBufferH264, so that libavcodec can decode the client's
/// slice NAL units unchanged.
///
/// VA leaves out what a hardware decoder does not need; the rebuilt sets take neutral values there:
/// level_idc 5.1, no frame cropping (the full coded picture is decoded; clients crop), no VUI, and for
/// pic_order_cnt_type 1 an empty offset cycle (VA carries no offset_for_ref_frame): the slice headers parse
/// with it, and what libavcodec decodes goes as POC type 0 with the client's POCs (PictureOrderCountRewrite).
struct ParameterSetRebuilder {
    let profile: VAProfile

    static let sequenceParameterSetID = 0

    var profileIDC: Int {
        switch profile {
        case VAProfileH264ConstrainedBaseline: return 66
        case VAProfileH264Main: return 77
        default: return 100
        }
    }

    /// seq_parameter_set_rbsp() (7.3.2.1.1), as a NAL unit without start code.
    func sequenceParameterSet(_ p: VAPictureParameterBufferH264) -> [UInt8] {
        let s = p.seq_fields.bits
        var w = BitWriter()
        w.u(8, profileIDC)
        // constraint_set0..5: Constrained Baseline is Baseline with set1 (A.2.1.1); Main streams satisfy set1 too.
        w.flag(profile == VAProfileH264ConstrainedBaseline)
        w.flag(profile == VAProfileH264ConstrainedBaseline || profile == VAProfileH264Main)
        w.u(4, 0)
        w.u(2, 0)  // reserved_zero_2bits
        w.u(8, 51)  // level_idc: not in VA; the highest level limits nothing
        w.ue(Self.sequenceParameterSetID)
        if profileIDC == 100 {
            w.ue(Int(s.chroma_format_idc))
            if s.chroma_format_idc == 3 { w.flag(s.residual_colour_transform_flag != 0) }
            w.ue(Int(p.bit_depth_luma_minus8))
            w.ue(Int(p.bit_depth_chroma_minus8))
            w.flag(false)  // qpprime_y_zero_transform_bypass_flag: High 4:4:4 only
            w.flag(false)  // seq_scaling_matrix_present_flag: the matrices go in the PPS, which overrides
        }
        w.ue(Int(s.log2_max_frame_num_minus4))
        w.ue(Int(s.pic_order_cnt_type))
        if s.pic_order_cnt_type == 0 {
            w.ue(Int(s.log2_max_pic_order_cnt_lsb_minus4))
        } else if s.pic_order_cnt_type == 1 {
            w.flag(s.delta_pic_order_always_zero_flag != 0)
            w.se(0)  // offset_for_non_ref_pic
            w.se(0)  // offset_for_top_to_bottom_field
            w.ue(0)  // num_ref_frames_in_pic_order_cnt_cycle
        }
        w.ue(Int(p.num_ref_frames))
        w.flag(s.gaps_in_frame_num_value_allowed_flag != 0)
        w.ue(Int(p.picture_width_in_mbs_minus1))
        // VA gives the frame height in macroblocks; the SPS counts map units (field pairs when not frame-only).
        let heightInMbs = Int(p.picture_height_in_mbs_minus1) + 1
        w.ue(s.frame_mbs_only_flag != 0 ? heightInMbs - 1 : (heightInMbs + 1) / 2 - 1)
        w.flag(s.frame_mbs_only_flag != 0)
        if s.frame_mbs_only_flag == 0 { w.flag(s.mb_adaptive_frame_field_flag != 0) }
        w.flag(s.direct_8x8_inference_flag != 0)
        w.flag(false)  // frame_cropping_flag
        w.flag(false)  // vui_parameters_present_flag
        w.rbspTrailingBits()
        return nal(type: .sequenceParameterSet, w.bytes)
    }

    /// pic_parameter_set_rbsp() (7.3.2.2), as a NAL unit without start code.
    /// `defaults` are num_ref_idx_l0/l1_default_active_minus1, which VA does not carry: the caller
    /// recovers them from slices that do not override them.
    func pictureParameterSet(_ p: VAPictureParameterBufferH264, scaling: VAIQMatrixBufferH264?, id: Int, defaults: (Int, Int)) -> [UInt8] {
        let f = p.pic_fields.bits
        var w = BitWriter()
        w.ue(id)
        w.ue(Self.sequenceParameterSetID)
        w.flag(f.entropy_coding_mode_flag != 0)
        w.flag(f.pic_order_present_flag != 0)  // bottom_field_pic_order_in_frame_present_flag
        // num_slice_groups_minus1: VA passes only the count and map type, not the maps, so FMO cannot be
        // rebuilt; none of the profiles vtksoft reports allows it.
        w.ue(0)
        w.ue(defaults.0)
        w.ue(defaults.1)
        w.flag(f.weighted_pred_flag != 0)
        w.u(2, Int(f.weighted_bipred_idc))
        w.se(Int(p.pic_init_qp_minus26))
        w.se(Int(p.pic_init_qs_minus26))
        w.se(Int(p.chroma_qp_index_offset))
        w.flag(f.deblocking_filter_control_present_flag != 0)
        w.flag(f.constrained_intra_pred_flag != 0)
        w.flag(f.redundant_pic_cnt_present_flag != 0)
        if profileIDC == 100 {
            w.flag(f.transform_8x8_mode_flag != 0)
            let lists = scaling.map(ScalingLists.init)
            let explicit = lists.map { !$0.isFlat(transform8x8: f.transform_8x8_mode_flag != 0) } ?? false
            w.flag(explicit)  // pic_scaling_matrix_present_flag
            if explicit, let lists {
                // Every list sent explicitly, so no fall-back rule (Table 7-2) can pick another.
                for list in lists.list4x4 {
                    w.flag(true)
                    Self.writeScalingList(list, into: &w)
                }
                if f.transform_8x8_mode_flag != 0 {
                    for list in lists.list8x8 {
                        w.flag(true)
                        Self.writeScalingList(list, into: &w)
                    }
                }
            }
            w.se(Int(p.second_chroma_qp_index_offset))
        }
        w.rbspTrailingBits()
        return nal(type: .pictureParameterSet, w.bytes)
    }

    /// scaling_list() (7.3.2.1.1.1). VA's lists are in raster order (va.h); the bitstream sends them
    /// in zig-zag scan order (8.5.6, 8.5.7).
    static func writeScalingList(_ raster: [UInt8], into w: inout BitWriter) {
        let scan = raster.count == 16 ? zigzag4x4 : zigzag8x8
        var last = 8
        for position in scan {
            let value = raster[position]
            var delta = Int(value) - last
            if delta > 127 { delta -= 256 }
            if delta < -128 { delta += 256 }
            w.se(delta)
            last = Int(value)
        }
    }

    /// Raster index of each zig-zag position: Table 8-12 (4x4), 8.5.7 frame scan (8x8).
    static let zigzag4x4 = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
    static let zigzag8x8 = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    private func nal(type: NALUnitType, _ rbsp: [UInt8]) -> [UInt8] {
        [NALUnitHeader(nalRefIdc: 3, nalUnitType: type).byte] + EmulationPrevention.insert(rbsp)
    }
}

/// The scaling lists of a VAIQMatrixBufferH264 as arrays.
struct ScalingLists {
    let list4x4: [[UInt8]]
    let list8x8: [[UInt8]]

    init(_ m: VAIQMatrixBufferH264) {
        let flat4 = withUnsafeBytes(of: m.ScalingList4x4) { Array($0) }
        let flat8 = withUnsafeBytes(of: m.ScalingList8x8) { Array($0) }
        list4x4 = (0..<6).map { Array(flat4[$0 * 16..<($0 + 1) * 16]) }
        list8x8 = (0..<2).map { Array(flat8[$0 * 64..<($0 + 1) * 64]) }
    }

    func isFlat(transform8x8: Bool) -> Bool {
        list4x4.allSatisfy { $0.allSatisfy { $0 == 16 } } && (!transform8x8 || list8x8.allSatisfy { $0.allSatisfy { $0 == 16 } })
    }
}
