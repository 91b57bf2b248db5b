import CLibVA
import VideoAcceleration

/// The VA parameter buffers for one picture (va_enc_h264.h), filled from the stream's headers and the
/// GOP planner's plan. Plain values; creating the VA buffers is the encoder's job. Like FFmpeg's
/// vaapi_encode_h264.c, this only maps syntax to VA structures.
struct H264EncodeParameters {
    let headers: H264StreamHeaders
    var configuration: EncoderConfiguration { headers.configuration }
    /// Bit rate and frame rate in force; they may change between pictures (``H264VAEncoder/update(rate:)``).
    var rate: H264RateSettings

    init(headers: H264StreamHeaders) {
        self.headers = headers
        rate = H264RateSettings(configuration: headers.configuration)
    }

    /// VAEncSequenceParameterBufferH264: the SPS (7.3.2.1.1) and its GOP hints.
    func sequence() -> VAEncSequenceParameterBufferH264 {
        let c = configuration, sps = headers.sps, vui = sps.vui
        var s = VAEncSequenceParameterBufferH264()
        s.seq_parameter_set_id = UInt8(sps.seqParameterSetId)
        s.level_idc = sps.levelIdc
        (s.intra_period, s.intra_idr_period, s.ip_period) = c.vaPeriods
        s.bits_per_second = UInt32(rate.bitsPerSecond)
        s.max_num_ref_frames = UInt32(sps.maxNumRefFrames)
        s.picture_width_in_mbs = UInt16(sps.picWidthInMbs)
        s.picture_height_in_mbs = UInt16(sps.frameHeightInMbs)
        s.seq_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        s.seq_fields.bits.frame_mbs_only_flag = sps.frameMbsOnlyFlag ? 1 : 0
        s.seq_fields.bits.direct_8x8_inference_flag = sps.direct8x8InferenceFlag ? 1 : 0
        s.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(sps.log2MaxFrameNumMinus4)
        s.seq_fields.bits.pic_order_cnt_type = UInt32(sps.picOrderCntType)
        s.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(sps.log2MaxPicOrderCntLsbMinus4)
        if sps.frameCroppingFlag {
            s.frame_cropping_flag = 1
            s.frame_crop_left_offset = UInt32(sps.frameCropLeftOffset)
            s.frame_crop_right_offset = UInt32(sps.frameCropRightOffset)
            s.frame_crop_top_offset = UInt32(sps.frameCropTopOffset)
            s.frame_crop_bottom_offset = UInt32(sps.frameCropBottomOffset)
        }
        s.vui_parameters_present_flag = sps.vuiParametersPresentFlag ? 1 : 0
        s.vui_fields.bits.aspect_ratio_info_present_flag = vui.aspectRatioInfoPresentFlag ? 1 : 0
        s.aspect_ratio_idc = vui.aspectRatioIdc
        s.vui_fields.bits.timing_info_present_flag = vui.timingInfoPresentFlag ? 1 : 0
        s.vui_fields.bits.fixed_frame_rate_flag = vui.fixedFrameRateFlag ? 1 : 0
        s.vui_fields.bits.bitstream_restriction_flag = vui.bitstreamRestrictionFlag ? 1 : 0
        s.vui_fields.bits.log2_max_mv_length_horizontal = UInt32(vui.log2MaxMvLengthHorizontal)
        s.vui_fields.bits.log2_max_mv_length_vertical = UInt32(vui.log2MaxMvLengthVertical)
        s.vui_fields.bits.motion_vectors_over_pic_boundaries_flag = vui.motionVectorsOverPicBoundariesFlag ? 1 : 0
        s.num_units_in_tick = vui.numUnitsInTick
        s.time_scale = vui.timeScale
        return s
    }

    /// VAEncPictureParameterBufferH264: the PPS (7.3.2.2) and this picture's place among the references.
    func picture(_ plan: H264GOPPlanner.PicturePlan, reconstructed: (Int) -> VASurfaceID, codedBuffer: VABufferID) -> VAEncPictureParameterBufferH264 {
        let pps = headers.pps
        var p = VAEncPictureParameterBufferH264()
        p.CurrPic = Self.picture(surface: reconstructed(plan.reconstructedSlot), frameNum: plan.frameNum, picOrderCnt: plan.picOrderCnt, reference: false)
        Self.fill(&p.ReferenceFrames, count: 16, with: plan.referenceFrames.map { Self.picture($0, reconstructed) })
        p.coded_buf = codedBuffer
        p.pic_parameter_set_id = UInt8(pps.picParameterSetId)
        p.seq_parameter_set_id = UInt8(pps.seqParameterSetId)
        p.last_picture = 0
        p.frame_num = UInt16(plan.frameNum)
        p.pic_init_qp = UInt8(26 + pps.picInitQpMinus26)
        p.num_ref_idx_l0_active_minus1 = UInt8(pps.numRefIdxL0DefaultActiveMinus1)
        p.num_ref_idx_l1_active_minus1 = UInt8(pps.numRefIdxL1DefaultActiveMinus1)
        p.pic_fields.bits.idr_pic_flag = plan.isIDR ? 1 : 0
        p.pic_fields.bits.reference_pic_flag = UInt32(min(plan.nalRefIdc, 1))
        p.pic_fields.bits.entropy_coding_mode_flag = pps.entropyCodingModeFlag ? 1 : 0
        p.pic_fields.bits.transform_8x8_mode_flag = pps.transform8x8ModeFlag ? 1 : 0
        p.pic_fields.bits.deblocking_filter_control_present_flag = pps.deblockingFilterControlPresentFlag ? 1 : 0
        return p
    }

    /// VAEncSliceParameterBufferH264: one slice of the whole picture (7.3.3), the same header the packed slice carries.
    func slice(_ plan: H264GOPPlanner.PicturePlan, reconstructed: (Int) -> VASurfaceID) -> VAEncSliceParameterBufferH264 {
        let c = configuration, h = headers.sliceHeader(plan)
        var s = VAEncSliceParameterBufferH264()
        s.macroblock_address = UInt32(h.firstMbInSlice)
        s.num_macroblocks = UInt32(c.widthInMbs * c.heightInMbs)
        s.macroblock_info = VABufferID(VA_INVALID_ID)
        s.slice_type = UInt8(h.sliceTypeRaw % 5)
        s.pic_parameter_set_id = UInt8(h.picParameterSetId)
        s.idr_pic_id = UInt16(h.idrPicId)
        s.pic_order_cnt_lsb = UInt16(h.picOrderCntLsb)
        // Only B slices carry it; FFmpeg sets it on every slice buffer, and so does vtk.
        s.direct_spatial_mv_pred_flag = 1
        s.num_ref_idx_active_override_flag = h.numRefIdxActiveOverrideFlag ? 1 : 0
        s.num_ref_idx_l0_active_minus1 = UInt8(h.numRefIdxL0ActiveMinus1)
        s.num_ref_idx_l1_active_minus1 = UInt8(h.numRefIdxL1ActiveMinus1)
        Self.fill(&s.RefPicList0, count: 32, with: plan.list0.map { Self.picture($0, reconstructed) })
        Self.fill(&s.RefPicList1, count: 32, with: plan.list1.map { Self.picture($0, reconstructed) })
        s.cabac_init_idc = UInt8(h.cabacInitIdc)
        s.slice_qp_delta = Int8(h.sliceQpDelta)
        s.disable_deblocking_filter_idc = UInt8(h.disableDeblockingFilterIdc)
        s.slice_alpha_c0_offset_div2 = Int8(h.sliceAlphaC0OffsetDiv2)
        s.slice_beta_offset_div2 = Int8(h.sliceBetaOffsetDiv2)
        return s
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

    static func picture(_ ref: H264GOPPlanner.Reference, _ reconstructed: (Int) -> VASurfaceID) -> VAPictureH264 {
        picture(surface: reconstructed(ref.slot), frameNum: ref.frameNum, picOrderCnt: ref.picOrderCnt, reference: true)
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
        VAFixedArray.store(pictures, into: &array, padding: invalidPicture)
    }
}

/// Bit rate and frame rate, which VideoToolbox lets a caller change mid-stream; a change goes to the
/// driver in new misc parameter buffers with the next picture.
struct H264RateSettings: Equatable, Sendable {
    /// For CBR the average, for VBR the peak (VAEncMiscParameterRateControl.bits_per_second).
    var bitsPerSecond: Int
    /// VBR: average as a percentage of the peak; 100 for CBR.
    var targetPercentage: Int
    var frameRate: (numerator: Int, denominator: Int)

    init(configuration c: EncoderConfiguration) {
        bitsPerSecond = c.bitsPerSecond
        targetPercentage = c.targetPercentage
        frameRate = c.frameRate
    }

    static func == (a: H264RateSettings, b: H264RateSettings) -> Bool {
        a.bitsPerSecond == b.bitsPerSecond && a.targetPercentage == b.targetPercentage && a.frameRate == b.frameRate
    }
}

/// The misc parameter buffers of the rate settings (va.h), the same for every codec.
extension H264RateSettings {
    /// VAEncMiscParameterRateControl for CBR and VBR (va.h).
    func rateControl(window: Int) -> VAEncMiscParameterRateControl {
        var r = VAEncMiscParameterRateControl()
        r.bits_per_second = UInt32(bitsPerSecond)
        r.target_percentage = UInt32(targetPercentage)
        r.window_size = UInt32(window)  // ms
        r.initial_qp = 0
        r.min_qp = 0
        r.max_qp = 0  // 0: the driver's own limits
        r.rc_flags.bits.disable_frame_skip = 1  // one coded picture for every frame handed in
        return r
    }

    /// VAEncMiscParameterFrameRate: numerator in bits 0-15, denominator in bits 16-31 (va.h).
    func frameRateParameter() -> VAEncMiscParameterFrameRate {
        var f = VAEncMiscParameterFrameRate()
        let fraction = frameRate
        f.framerate = UInt32(fraction.numerator) | UInt32(fraction.denominator) << 16
        return f
    }

    /// VAEncMiscParameterHRD: a one-second coded picture buffer, three quarters full at the start.
    func hrd() -> VAEncMiscParameterHRD {
        var h = VAEncMiscParameterHRD()
        h.buffer_size = UInt32(bitsPerSecond)
        h.initial_buffer_fullness = UInt32(bitsPerSecond / 4 * 3)
        return h
    }
}
