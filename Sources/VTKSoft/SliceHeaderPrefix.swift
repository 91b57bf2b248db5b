import CLibVA
import H264Bitstream

/// The start of a slice header (7.3.3), read up to num_ref_idx_active_override_flag: the decoder needs
/// the PPS id the slice refers to, whether the slice's reference counts are the PPS defaults, and which
/// picture it belongs to (frame_num, and the field it codes).
struct SliceHeaderPrefix {
    var sliceType = 0
    var pictureParameterSetID = 0
    var overridesRefCounts = false
    var frameNum = 0
    var structure = PictureStructure.frame

    /// `nalUnit` is the whole NAL unit, header byte first, emulation prevention still in.
    init(nalUnit: ArraySlice<UInt8>, picture p: VAPictureParameterBufferH264) throws {
        guard let header = nalUnit.first else { throw VAError.invalidParameter }
        let nalType = header & 0x1f
        // 64 bytes hold any slice header up to this point.
        var r = BitReader(EmulationPrevention.unescaped(nalUnit.dropFirst().prefix(64)).rbsp)
        let s = p.seq_fields.bits, f = p.pic_fields.bits
        _ = try r.ue()  // first_mb_in_slice
        sliceType = Int(try r.ue()) % 5
        pictureParameterSetID = Int(try r.ue())
        guard pictureParameterSetID < 256 else { throw VAError.invalidParameter }
        frameNum = Int(try r.u(Int(s.log2_max_frame_num_minus4) + 4))
        var fieldPicture = false, bottomField = false
        if s.frame_mbs_only_flag == 0 {
            fieldPicture = try r.flag()
            if fieldPicture { bottomField = try r.flag() }
        }
        structure = PictureStructure(fieldPicture: fieldPicture, bottomField: bottomField)
        if nalType == 5 { _ = try r.ue() }  // idr_pic_id
        if s.pic_order_cnt_type == 0 {
            _ = try r.u(Int(s.log2_max_pic_order_cnt_lsb_minus4) + 4)
            if f.pic_order_present_flag != 0 && !fieldPicture { _ = try r.se() }
        }
        if s.pic_order_cnt_type == 1 && s.delta_pic_order_always_zero_flag == 0 {
            _ = try r.se()
            if f.pic_order_present_flag != 0 && !fieldPicture { _ = try r.se() }
        }
        if f.redundant_pic_cnt_present_flag != 0 { _ = try r.ue() }
        let isB = sliceType == 1
        if isB { _ = try r.flag() }  // direct_spatial_mv_pred_flag
        if sliceType == 0 || sliceType == 3 || isB {
            overridesRefCounts = try r.flag()
        }
    }

    var isP: Bool { sliceType == 0 || sliceType == 3 }
    var isB: Bool { sliceType == 1 }
}
