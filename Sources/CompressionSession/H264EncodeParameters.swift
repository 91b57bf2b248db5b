import CLibVA
import VideoAcceleration

/// The VA parameter buffers for one picture (va_enc_h264.h), filled from the resolved configuration
/// and the reference planner's plan. Plain values; creating the VA buffers is the encoder's job.
struct H264EncodeParameters {
    let configuration: EncoderConfiguration

    /// VAEncSequenceParameterBufferH264: the SPS the driver writes (7.3.2.1.1) and its GOP hints.
    func sequence() -> VAEncSequenceParameterBufferH264 {
        let c = configuration
        var s = VAEncSequenceParameterBufferH264()
        s.seq_parameter_set_id = 0
        s.level_idc = UInt8(c.levelIdc)
        // Frames from one I/IDR picture to the next; 0 means only the first (va_enc_h264.h).
        s.intra_period = UInt32(c.maxKeyFrameInterval)
        s.intra_idr_period = UInt32(c.maxKeyFrameInterval)
        s.ip_period = 1  // no B-frames
        s.bits_per_second = UInt32(c.bitsPerSecond)
        s.max_num_ref_frames = UInt32(c.referenceCount)
        s.picture_width_in_mbs = UInt16(c.widthInMbs)
        s.picture_height_in_mbs = UInt16(c.heightInMbs)
        s.seq_fields.bits.chroma_format_idc = 1
        s.seq_fields.bits.frame_mbs_only_flag = 1
        s.seq_fields.bits.direct_8x8_inference_flag = 1
        s.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(c.log2MaxFrameNum - 4)
        s.seq_fields.bits.pic_order_cnt_type = 0
        s.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(c.log2MaxPicOrderCntLsb - 4)
        // Cropping in units of 2 luma samples for 4:2:0 frames (CropUnitX/Y, 7.4.2.1.1).
        let cropRight = (c.codedWidth - c.width) / 2, cropBottom = (c.codedHeight - c.height) / 2
        if cropRight > 0 || cropBottom > 0 {
            s.frame_cropping_flag = 1
            s.frame_crop_right_offset = UInt32(cropRight)
            s.frame_crop_bottom_offset = UInt32(cropBottom)
        }
        // VUI timing (E.2.1): a frame lasts two ticks of time_scale.
        s.vui_parameters_present_flag = 1
        s.vui_fields.bits.timing_info_present_flag = 1
        s.vui_fields.bits.fixed_frame_rate_flag = 1
        s.vui_fields.bits.bitstream_restriction_flag = 1
        s.vui_fields.bits.log2_max_mv_length_horizontal = 15
        s.vui_fields.bits.log2_max_mv_length_vertical = 15
        s.vui_fields.bits.motion_vectors_over_pic_boundaries_flag = 1
        s.num_units_in_tick = UInt32(c.frameRate.denominator)
        s.time_scale = UInt32(2 * c.frameRate.numerator)
        return s
    }

    /// VAEncPictureParameterBufferH264: the PPS (7.3.2.2) and this picture's place among the references.
    func picture(_ plan: H264ReferencePlanner.PicturePlan, reconstructed: (Int) -> VASurfaceID, codedBuffer: VABufferID) -> VAEncPictureParameterBufferH264 {
        let c = configuration
        var p = VAEncPictureParameterBufferH264()
        p.CurrPic = Self.picture(surface: reconstructed(plan.reconstructedSlot), frameNum: plan.frameNum, picOrderCnt: plan.picOrderCnt, reference: false)
        Self.fill(&p.ReferenceFrames, count: 16, with: plan.references.map {
            Self.picture(surface: reconstructed($0.slot), frameNum: $0.frameNum, picOrderCnt: $0.picOrderCnt, reference: true)
        })
        p.coded_buf = codedBuffer
        p.pic_parameter_set_id = 0
        p.seq_parameter_set_id = 0
        p.last_picture = 0
        p.frame_num = UInt16(plan.frameNum)
        p.pic_init_qp = UInt8(c.rateControl == .constantQP ? c.quantizer : 26)
        p.num_ref_idx_l0_active_minus1 = UInt8(max(0, c.referenceCount - 1))
        p.num_ref_idx_l1_active_minus1 = 0
        p.pic_fields.bits.idr_pic_flag = plan.isIDR ? 1 : 0
        // nal_ref_idc: any non-zero value marks a reference (7.4.1); 1 as FFmpeg and the Intel drivers use.
        p.pic_fields.bits.reference_pic_flag = plan.isReference ? 1 : 0
        p.pic_fields.bits.entropy_coding_mode_flag = c.cabac ? 1 : 0
        p.pic_fields.bits.transform_8x8_mode_flag = c.profile == .high ? 1 : 0
        p.pic_fields.bits.deblocking_filter_control_present_flag = 1
        return p
    }

    /// VAEncSliceParameterBufferH264: one slice of the whole picture (7.3.3).
    func slice(_ plan: H264ReferencePlanner.PicturePlan, reconstructed: (Int) -> VASurfaceID) -> VAEncSliceParameterBufferH264 {
        let c = configuration
        var s = VAEncSliceParameterBufferH264()
        s.macroblock_address = 0
        s.num_macroblocks = UInt32(c.widthInMbs * c.heightInMbs)
        s.macroblock_info = VABufferID(VA_INVALID_ID)
        s.slice_type = plan.isIntra ? 2 : 0  // I : P (Table 7-6)
        s.pic_parameter_set_id = 0
        s.idr_pic_id = UInt16(plan.idrPicId)
        s.pic_order_cnt_lsb = UInt16(plan.picOrderCntLsb)
        s.direct_spatial_mv_pred_flag = 1
        s.num_ref_idx_active_override_flag = 0
        s.num_ref_idx_l0_active_minus1 = UInt8(max(0, c.referenceCount - 1))
        Self.fill(&s.RefPicList0, count: 32, with: plan.references.map {
            Self.picture(surface: reconstructed($0.slot), frameNum: $0.frameNum, picOrderCnt: $0.picOrderCnt, reference: true)
        })
        Self.fill(&s.RefPicList1, count: 32, with: [])
        s.cabac_init_idc = 0
        s.slice_qp_delta = 0  // the picture's QP is pic_init_qp
        s.disable_deblocking_filter_idc = 0
        return s
    }

    /// VAEncMiscParameterRateControl for CBR and VBR (va.h).
    func rateControl() -> VAEncMiscParameterRateControl {
        let c = configuration
        var r = VAEncMiscParameterRateControl()
        r.bits_per_second = UInt32(c.bitsPerSecond)
        r.target_percentage = UInt32(c.targetPercentage)
        r.window_size = 1000  // ms
        r.initial_qp = 0
        r.min_qp = 0
        r.max_qp = 0  // 0: the driver's own limits
        r.rc_flags.bits.disable_frame_skip = 1  // one coded picture for every frame handed in
        return r
    }

    /// VAEncMiscParameterFrameRate: numerator in bits 0-15, denominator in bits 16-31 (va.h).
    func frameRate() -> VAEncMiscParameterFrameRate {
        var f = VAEncMiscParameterFrameRate()
        let rate = configuration.frameRate
        f.framerate = UInt32(rate.numerator) | (rate.denominator == 1 ? 0 : UInt32(rate.denominator) << 16)
        return f
    }

    /// VAEncMiscParameterHRD: a one-second coded picture buffer, three quarters full at the start.
    func hrd() -> VAEncMiscParameterHRD {
        var h = VAEncMiscParameterHRD()
        h.buffer_size = UInt32(configuration.bitsPerSecond)
        h.initial_buffer_fullness = UInt32(configuration.bitsPerSecond / 4 * 3)
        return h
    }

    // MARK: VAPictureH264

    static func picture(surface: VASurfaceID, frameNum: Int, picOrderCnt: Int, reference: Bool) -> VAPictureH264 {
        var p = VAPictureH264()
        p.picture_id = surface
        p.frame_idx = UInt32(frameNum)
        p.flags = reference ? UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE) : 0
        p.TopFieldOrderCnt = Int32(picOrderCnt)
        p.BottomFieldOrderCnt = Int32(picOrderCnt)
        return p
    }

    static var invalidPicture: VAPictureH264 {
        var p = VAPictureH264()
        p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
        p.flags = UInt32(VA_PICTURE_H264_INVALID)
        return p
    }

    /// Sets a fixed C array of VAPictureH264 (imported as a tuple): `pictures` first, invalid entries after.
    static func fill<Tuple>(_ array: inout Tuple, count: Int, with pictures: [VAPictureH264]) {
        precondition(MemoryLayout<Tuple>.size == count * MemoryLayout<VAPictureH264>.stride)
        withUnsafeMutableBytes(of: &array) { raw in
            let list = raw.bindMemory(to: VAPictureH264.self)
            for i in 0..<count { list[i] = i < pictures.count ? pictures[i] : invalidPicture }
        }
    }
}
