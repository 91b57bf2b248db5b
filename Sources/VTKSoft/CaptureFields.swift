import JSONText
import CLibVA

/// Every field of the VA H.264 parameter structs as JSON, named as in libva's headers, plus what they
/// mean where a flag word or two fields say it together: each picture's "field", and the picture's
/// MbaffFrameFlag. The misc and packed-header encode buffers are VA's own, not H.264's: every codec's capture
/// writes them with these.
enum CaptureFields: CodecCaptureFields {
    static func value(of buffer: RenderedBuffer) -> JSONValue? {
        let elements = 0..<buffer.elementCount
        switch buffer.type {
        case VAPictureParameterBufferType: return picture(buffer.element(as: VAPictureParameterBufferH264.self))
        case VAIQMatrixBufferType: return iqMatrix(buffer.element(as: VAIQMatrixBufferH264.self))
        case VASliceParameterBufferType:
            return .array(elements.map { slice(buffer.element($0, as: VASliceParameterBufferH264.self)) })
        case VAEncSequenceParameterBufferType: return encodeSequence(buffer.element(as: VAEncSequenceParameterBufferH264.self))
        case VAEncPictureParameterBufferType: return encodePicture(buffer.element(as: VAEncPictureParameterBufferH264.self))
        case VAEncSliceParameterBufferType:
            return .array(elements.map { encodeSlice(buffer.element($0, as: VAEncSliceParameterBufferH264.self)) })
        default: return nil
        }
    }

    static func picture(_ p: VAPictureH264) -> JSONValue {
        .object([
            ("picture_id", .int(Int(p.picture_id))),
            ("frame_idx", .int(Int(p.frame_idx))),
            ("flags", .int(Int(p.flags))),
            ("TopFieldOrderCnt", .int(Int(p.TopFieldOrderCnt))),
            ("BottomFieldOrderCnt", .int(Int(p.BottomFieldOrderCnt))),
            ("field", .string(field(p.flags))),
        ])
    }

    /// The field a VAPictureH264 names by its flags: "top" or "bottom" (VA_PICTURE_H264_TOP_FIELD or
    /// BOTTOM_FIELD alone), else "frame" (neither, or both: a frame, or a frame store with both fields).
    static func field(_ flags: UInt32) -> String {
        switch flags & UInt32(VA_PICTURE_H264_TOP_FIELD | VA_PICTURE_H264_BOTTOM_FIELD) {
        case UInt32(VA_PICTURE_H264_TOP_FIELD): return "top"
        case UInt32(VA_PICTURE_H264_BOTTOM_FIELD): return "bottom"
        default: return "frame"
        }
    }

    static func pictures<Tuple>(_ tuple: Tuple, count: Int) -> JSONValue {
        .array(CArray.elements(tuple, as: VAPictureH264.self, count: count).map(picture))
    }

    static func picture(_ p: VAPictureParameterBufferH264) -> JSONValue {
        let s = p.seq_fields.bits, f = p.pic_fields.bits
        return .object([
            ("CurrPic", picture(p.CurrPic)),
            ("ReferenceFrames", pictures(p.ReferenceFrames, count: 16)),
            ("picture_width_in_mbs_minus1", .int(Int(p.picture_width_in_mbs_minus1))),
            ("picture_height_in_mbs_minus1", .int(Int(p.picture_height_in_mbs_minus1))),
            ("bit_depth_luma_minus8", .int(Int(p.bit_depth_luma_minus8))),
            ("bit_depth_chroma_minus8", .int(Int(p.bit_depth_chroma_minus8))),
            ("num_ref_frames", .int(Int(p.num_ref_frames))),
            ("seq_fields", .object([
                ("chroma_format_idc", .int(Int(s.chroma_format_idc))),
                ("residual_colour_transform_flag", .int(Int(s.residual_colour_transform_flag))),
                ("gaps_in_frame_num_value_allowed_flag", .int(Int(s.gaps_in_frame_num_value_allowed_flag))),
                ("frame_mbs_only_flag", .int(Int(s.frame_mbs_only_flag))),
                ("mb_adaptive_frame_field_flag", .int(Int(s.mb_adaptive_frame_field_flag))),
                ("direct_8x8_inference_flag", .int(Int(s.direct_8x8_inference_flag))),
                ("MinLumaBiPredSize8x8", .int(Int(s.MinLumaBiPredSize8x8))),
                ("log2_max_frame_num_minus4", .int(Int(s.log2_max_frame_num_minus4))),
                ("pic_order_cnt_type", .int(Int(s.pic_order_cnt_type))),
                ("log2_max_pic_order_cnt_lsb_minus4", .int(Int(s.log2_max_pic_order_cnt_lsb_minus4))),
                ("delta_pic_order_always_zero_flag", .int(Int(s.delta_pic_order_always_zero_flag))),
            ])),
            ("num_slice_groups_minus1", .int(Int(p.num_slice_groups_minus1))),
            ("slice_group_map_type", .int(Int(p.slice_group_map_type))),
            ("slice_group_change_rate_minus1", .int(Int(p.slice_group_change_rate_minus1))),
            ("pic_init_qp_minus26", .int(Int(p.pic_init_qp_minus26))),
            ("pic_init_qs_minus26", .int(Int(p.pic_init_qs_minus26))),
            ("chroma_qp_index_offset", .int(Int(p.chroma_qp_index_offset))),
            ("second_chroma_qp_index_offset", .int(Int(p.second_chroma_qp_index_offset))),
            ("pic_fields", .object([
                ("entropy_coding_mode_flag", .int(Int(f.entropy_coding_mode_flag))),
                ("weighted_pred_flag", .int(Int(f.weighted_pred_flag))),
                ("weighted_bipred_idc", .int(Int(f.weighted_bipred_idc))),
                ("transform_8x8_mode_flag", .int(Int(f.transform_8x8_mode_flag))),
                ("field_pic_flag", .int(Int(f.field_pic_flag))),
                ("constrained_intra_pred_flag", .int(Int(f.constrained_intra_pred_flag))),
                ("pic_order_present_flag", .int(Int(f.pic_order_present_flag))),
                ("deblocking_filter_control_present_flag", .int(Int(f.deblocking_filter_control_present_flag))),
                ("redundant_pic_cnt_present_flag", .int(Int(f.redundant_pic_cnt_present_flag))),
                ("reference_pic_flag", .int(Int(f.reference_pic_flag))),
            ])),
            ("frame_num", .int(Int(p.frame_num))),
            // 7.4.3: MbaffFrameFlag = mb_adaptive_frame_field_flag && !field_pic_flag (VA has no field for it).
            ("MbaffFrameFlag", .int(s.mb_adaptive_frame_field_flag != 0 && f.field_pic_flag == 0 ? 1 : 0)),
        ])
    }

    static func iqMatrix(_ m: VAIQMatrixBufferH264) -> JSONValue {
        .object([
            ("ScalingList4x4", .ints(tuple: m.ScalingList4x4, of: UInt8.self)),
            ("ScalingList8x8", .ints(tuple: m.ScalingList8x8, of: UInt8.self)),
        ])
    }

    /// Both lists' weights and offsets, decode and encode slices alike.
    private static func weights(_ s: some VAPredictionWeightTable) -> [(String, JSONValue)] {
        weights("l0", lumaFlag: s.luma_weight_l0_flag, luma: .ints(tuple: s.luma_weight_l0, of: Int16.self),
                lumaOffset: .ints(tuple: s.luma_offset_l0, of: Int16.self), chromaFlag: s.chroma_weight_l0_flag,
                chroma: .ints(tuple: s.chroma_weight_l0, of: Int16.self), chromaOffset: .ints(tuple: s.chroma_offset_l0, of: Int16.self))
            + weights("l1", lumaFlag: s.luma_weight_l1_flag, luma: .ints(tuple: s.luma_weight_l1, of: Int16.self),
                      lumaOffset: .ints(tuple: s.luma_offset_l1, of: Int16.self), chromaFlag: s.chroma_weight_l1_flag,
                      chroma: .ints(tuple: s.chroma_weight_l1, of: Int16.self), chromaOffset: .ints(tuple: s.chroma_offset_l1, of: Int16.self))
    }

    private static func weights(_ prefix: String, lumaFlag: UInt8, luma: JSONValue, lumaOffset: JSONValue,
                                chromaFlag: UInt8, chroma: JSONValue, chromaOffset: JSONValue) -> [(String, JSONValue)] {
        [
            ("luma_weight_\(prefix)_flag", .int(Int(lumaFlag))),
            ("luma_weight_\(prefix)", luma),
            ("luma_offset_\(prefix)", lumaOffset),
            ("chroma_weight_\(prefix)_flag", .int(Int(chromaFlag))),
            ("chroma_weight_\(prefix)", chroma),
            ("chroma_offset_\(prefix)", chromaOffset),
        ]
    }

    static func slice(_ s: VASliceParameterBufferH264) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("slice_data_size", .int(Int(s.slice_data_size))),
            ("slice_data_offset", .int(Int(s.slice_data_offset))),
            ("slice_data_flag", .int(Int(s.slice_data_flag))),
            ("slice_data_bit_offset", .int(Int(s.slice_data_bit_offset))),
            ("first_mb_in_slice", .int(Int(s.first_mb_in_slice))),
            ("slice_type", .int(Int(s.slice_type))),
            ("direct_spatial_mv_pred_flag", .int(Int(s.direct_spatial_mv_pred_flag))),
            ("num_ref_idx_l0_active_minus1", .int(Int(s.num_ref_idx_l0_active_minus1))),
            ("num_ref_idx_l1_active_minus1", .int(Int(s.num_ref_idx_l1_active_minus1))),
            ("cabac_init_idc", .int(Int(s.cabac_init_idc))),
            ("slice_qp_delta", .int(Int(s.slice_qp_delta))),
            ("disable_deblocking_filter_idc", .int(Int(s.disable_deblocking_filter_idc))),
            ("slice_alpha_c0_offset_div2", .int(Int(s.slice_alpha_c0_offset_div2))),
            ("slice_beta_offset_div2", .int(Int(s.slice_beta_offset_div2))),
            ("RefPicList0", pictures(s.RefPicList0, count: 32)),
            ("RefPicList1", pictures(s.RefPicList1, count: 32)),
            ("luma_log2_weight_denom", .int(Int(s.luma_log2_weight_denom))),
            ("chroma_log2_weight_denom", .int(Int(s.chroma_log2_weight_denom))),
        ]
        fields += weights(s)
        return .object(fields)
    }

    static func encodeSequence(_ s: VAEncSequenceParameterBufferH264) -> JSONValue {
        let f = s.seq_fields.bits, v = s.vui_fields.bits
        return .object([
            ("seq_parameter_set_id", .int(Int(s.seq_parameter_set_id))),
            ("level_idc", .int(Int(s.level_idc))),
            ("intra_period", .int(Int(s.intra_period))),
            ("intra_idr_period", .int(Int(s.intra_idr_period))),
            ("ip_period", .int(Int(s.ip_period))),
            ("bits_per_second", .int(Int(s.bits_per_second))),
            ("max_num_ref_frames", .int(Int(s.max_num_ref_frames))),
            ("picture_width_in_mbs", .int(Int(s.picture_width_in_mbs))),
            ("picture_height_in_mbs", .int(Int(s.picture_height_in_mbs))),
            ("seq_fields", .object([
                ("chroma_format_idc", .int(Int(f.chroma_format_idc))),
                ("frame_mbs_only_flag", .int(Int(f.frame_mbs_only_flag))),
                ("mb_adaptive_frame_field_flag", .int(Int(f.mb_adaptive_frame_field_flag))),
                ("seq_scaling_matrix_present_flag", .int(Int(f.seq_scaling_matrix_present_flag))),
                ("direct_8x8_inference_flag", .int(Int(f.direct_8x8_inference_flag))),
                ("log2_max_frame_num_minus4", .int(Int(f.log2_max_frame_num_minus4))),
                ("pic_order_cnt_type", .int(Int(f.pic_order_cnt_type))),
                ("log2_max_pic_order_cnt_lsb_minus4", .int(Int(f.log2_max_pic_order_cnt_lsb_minus4))),
                ("delta_pic_order_always_zero_flag", .int(Int(f.delta_pic_order_always_zero_flag))),
            ])),
            ("bit_depth_luma_minus8", .int(Int(s.bit_depth_luma_minus8))),
            ("bit_depth_chroma_minus8", .int(Int(s.bit_depth_chroma_minus8))),
            ("num_ref_frames_in_pic_order_cnt_cycle", .int(Int(s.num_ref_frames_in_pic_order_cnt_cycle))),
            ("offset_for_non_ref_pic", .int(Int(s.offset_for_non_ref_pic))),
            ("offset_for_top_to_bottom_field", .int(Int(s.offset_for_top_to_bottom_field))),
            ("offset_for_ref_frame", .ints(tuple: s.offset_for_ref_frame, of: Int32.self)),
            ("frame_cropping_flag", .int(Int(s.frame_cropping_flag))),
            ("frame_crop_left_offset", .int(Int(s.frame_crop_left_offset))),
            ("frame_crop_right_offset", .int(Int(s.frame_crop_right_offset))),
            ("frame_crop_top_offset", .int(Int(s.frame_crop_top_offset))),
            ("frame_crop_bottom_offset", .int(Int(s.frame_crop_bottom_offset))),
            ("vui_parameters_present_flag", .int(Int(s.vui_parameters_present_flag))),
            ("vui_fields", .object([
                ("aspect_ratio_info_present_flag", .int(Int(v.aspect_ratio_info_present_flag))),
                ("timing_info_present_flag", .int(Int(v.timing_info_present_flag))),
                ("bitstream_restriction_flag", .int(Int(v.bitstream_restriction_flag))),
                ("log2_max_mv_length_horizontal", .int(Int(v.log2_max_mv_length_horizontal))),
                ("log2_max_mv_length_vertical", .int(Int(v.log2_max_mv_length_vertical))),
                ("fixed_frame_rate_flag", .int(Int(v.fixed_frame_rate_flag))),
                ("low_delay_hrd_flag", .int(Int(v.low_delay_hrd_flag))),
                ("motion_vectors_over_pic_boundaries_flag", .int(Int(v.motion_vectors_over_pic_boundaries_flag))),
            ])),
            ("aspect_ratio_idc", .int(Int(s.aspect_ratio_idc))),
            ("sar_width", .int(Int(s.sar_width))),
            ("sar_height", .int(Int(s.sar_height))),
            ("num_units_in_tick", .int(Int(s.num_units_in_tick))),
            ("time_scale", .int(Int(s.time_scale))),
        ])
    }

    static func encodePicture(_ p: VAEncPictureParameterBufferH264) -> JSONValue {
        let f = p.pic_fields.bits
        return .object([
            ("CurrPic", picture(p.CurrPic)),
            ("ReferenceFrames", pictures(p.ReferenceFrames, count: 16)),
            ("coded_buf", .int(Int(p.coded_buf))),
            ("pic_parameter_set_id", .int(Int(p.pic_parameter_set_id))),
            ("seq_parameter_set_id", .int(Int(p.seq_parameter_set_id))),
            ("last_picture", .int(Int(p.last_picture))),
            ("frame_num", .int(Int(p.frame_num))),
            ("pic_init_qp", .int(Int(p.pic_init_qp))),
            ("num_ref_idx_l0_active_minus1", .int(Int(p.num_ref_idx_l0_active_minus1))),
            ("num_ref_idx_l1_active_minus1", .int(Int(p.num_ref_idx_l1_active_minus1))),
            ("chroma_qp_index_offset", .int(Int(p.chroma_qp_index_offset))),
            ("second_chroma_qp_index_offset", .int(Int(p.second_chroma_qp_index_offset))),
            ("pic_fields", .object([
                ("idr_pic_flag", .int(Int(f.idr_pic_flag))),
                ("reference_pic_flag", .int(Int(f.reference_pic_flag))),
                ("entropy_coding_mode_flag", .int(Int(f.entropy_coding_mode_flag))),
                ("weighted_pred_flag", .int(Int(f.weighted_pred_flag))),
                ("weighted_bipred_idc", .int(Int(f.weighted_bipred_idc))),
                ("constrained_intra_pred_flag", .int(Int(f.constrained_intra_pred_flag))),
                ("transform_8x8_mode_flag", .int(Int(f.transform_8x8_mode_flag))),
                ("deblocking_filter_control_present_flag", .int(Int(f.deblocking_filter_control_present_flag))),
                ("redundant_pic_cnt_present_flag", .int(Int(f.redundant_pic_cnt_present_flag))),
                ("pic_order_present_flag", .int(Int(f.pic_order_present_flag))),
                ("pic_scaling_matrix_present_flag", .int(Int(f.pic_scaling_matrix_present_flag))),
            ])),
        ])
    }

    static func encodeSlice(_ s: VAEncSliceParameterBufferH264) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("macroblock_address", .int(Int(s.macroblock_address))),
            ("num_macroblocks", .int(Int(s.num_macroblocks))),
            ("macroblock_info", .int(Int(s.macroblock_info))),
            ("slice_type", .int(Int(s.slice_type))),
            ("pic_parameter_set_id", .int(Int(s.pic_parameter_set_id))),
            ("idr_pic_id", .int(Int(s.idr_pic_id))),
            ("pic_order_cnt_lsb", .int(Int(s.pic_order_cnt_lsb))),
            ("delta_pic_order_cnt_bottom", .int(Int(s.delta_pic_order_cnt_bottom))),
            ("delta_pic_order_cnt", .ints(tuple: s.delta_pic_order_cnt, of: Int32.self)),
            ("direct_spatial_mv_pred_flag", .int(Int(s.direct_spatial_mv_pred_flag))),
            ("num_ref_idx_active_override_flag", .int(Int(s.num_ref_idx_active_override_flag))),
            ("num_ref_idx_l0_active_minus1", .int(Int(s.num_ref_idx_l0_active_minus1))),
            ("num_ref_idx_l1_active_minus1", .int(Int(s.num_ref_idx_l1_active_minus1))),
            ("RefPicList0", pictures(s.RefPicList0, count: 32)),
            ("RefPicList1", pictures(s.RefPicList1, count: 32)),
            ("luma_log2_weight_denom", .int(Int(s.luma_log2_weight_denom))),
            ("chroma_log2_weight_denom", .int(Int(s.chroma_log2_weight_denom))),
        ]
        fields += weights(s)
        fields += [
            ("cabac_init_idc", .int(Int(s.cabac_init_idc))),
            ("slice_qp_delta", .int(Int(s.slice_qp_delta))),
            ("disable_deblocking_filter_idc", .int(Int(s.disable_deblocking_filter_idc))),
            ("slice_alpha_c0_offset_div2", .int(Int(s.slice_alpha_c0_offset_div2))),
            ("slice_beta_offset_div2", .int(Int(s.slice_beta_offset_div2))),
        ]
        return .object(fields)
    }

    static func packedHeader(_ p: VAEncPackedHeaderParameterBuffer) -> JSONValue {
        .object([("type", .int(Int(p.type))), ("bit_length", .int(Int(p.bit_length))),
                 ("has_emulation_bytes", .int(Int(p.has_emulation_bytes)))])
    }

    static func misc(_ bytes: [UInt8]) -> JSONValue {
        let type = bytes.withUnsafeBytes { $0.loadUnaligned(as: VAEncMiscParameterBuffer.self) }.type
        let payloadOffset = MemoryLayout<VAEncMiscParameterBuffer>.size
        var fields: [(String, JSONValue)] = [("misc_type", .int(Int(type.rawValue)))]
        guard let needed = BufferRules.miscPayloadSize(type), bytes.count >= payloadOffset + needed else { return .object(fields) }
        func load<T>(_: T.Type) -> T { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: payloadOffset, as: T.self) } }
        switch type {
        case VAEncMiscParameterTypeRateControl:
            let r = load(VAEncMiscParameterRateControl.self)
            fields += [
                ("bits_per_second", .int(Int(r.bits_per_second))), ("target_percentage", .int(Int(r.target_percentage))),
                ("window_size", .int(Int(r.window_size))), ("initial_qp", .int(Int(r.initial_qp))),
                ("min_qp", .int(Int(r.min_qp))), ("basic_unit_size", .int(Int(r.basic_unit_size))),
                ("rc_flags", .int(Int(r.rc_flags.value))), ("ICQ_quality_factor", .int(Int(r.ICQ_quality_factor))),
                ("max_qp", .int(Int(r.max_qp))), ("quality_factor", .int(Int(r.quality_factor))),
                ("target_frame_size", .int(Int(r.target_frame_size))),
            ]
        case VAEncMiscParameterTypeFrameRate:
            let r = load(VAEncMiscParameterFrameRate.self)
            fields += [("framerate", .int(Int(r.framerate))), ("framerate_flags", .int(Int(r.framerate_flags.value)))]
        case VAEncMiscParameterTypeHRD:
            let r = load(VAEncMiscParameterHRD.self)
            fields += [("initial_buffer_fullness", .int(Int(r.initial_buffer_fullness))), ("buffer_size", .int(Int(r.buffer_size)))]
        case VAEncMiscParameterTypeMaxFrameSize:
            let r = load(VAEncMiscParameterBufferMaxFrameSize.self)
            fields += [("max_frame_size", .int(Int(r.max_frame_size)))]
        case VAEncMiscParameterTypeQualityLevel:
            let r = load(VAEncMiscParameterBufferQualityLevel.self)
            fields += [("quality_level", .int(Int(r.quality_level)))]
        default:
            break
        }
        return .object(fields)
    }
}

/// The prediction weight table (7.3.3.2) as VA's H.264 decode and encode slice parameters both carry it.
protocol VAPredictionWeightTable {
    associatedtype LumaTable
    associatedtype ChromaTable
    var luma_weight_l0_flag: UInt8 { get }
    var luma_weight_l0: LumaTable { get }
    var luma_offset_l0: LumaTable { get }
    var chroma_weight_l0_flag: UInt8 { get }
    var chroma_weight_l0: ChromaTable { get }
    var chroma_offset_l0: ChromaTable { get }
    var luma_weight_l1_flag: UInt8 { get }
    var luma_weight_l1: LumaTable { get }
    var luma_offset_l1: LumaTable { get }
    var chroma_weight_l1_flag: UInt8 { get }
    var chroma_weight_l1: ChromaTable { get }
    var chroma_offset_l1: ChromaTable { get }
}

extension VASliceParameterBufferH264: VAPredictionWeightTable {}
extension VAEncSliceParameterBufferH264: VAPredictionWeightTable {}
