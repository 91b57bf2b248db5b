import CLibVA
import H264Bitstream
import H264Encoding

/// SPS, PPS and slice headers written from VA's encode parameter buffers, as iHD writes them when the
/// client sends no packed headers (7.3.2.1, 7.3.2.2, 7.3.3).
enum EncodeHeaderDerivation {
    static func sequenceParameterSet(_ s: VAEncSequenceParameterBufferH264, profile: VAProfile,
                                     rateControl: RateController.Parameters?) -> SequenceParameterSet {
        let f = s.seq_fields.bits, v = s.vui_fields.bits
        var sps = SequenceParameterSet()
        switch profile {
        case VAProfileH264ConstrainedBaseline:
            sps.profileIdc = 66
            sps.constraintSet0Flag = true
            sps.constraintSet1Flag = true  // A.2.1.1
        case VAProfileH264Main:
            sps.profileIdc = 77
            sps.constraintSet1Flag = true
        default:
            sps.profileIdc = 100
        }
        sps.levelIdc = s.level_idc
        sps.seqParameterSetId = Int(s.seq_parameter_set_id)
        sps.chromaFormatIdc = Int(f.chroma_format_idc)
        sps.bitDepthLumaMinus8 = Int(s.bit_depth_luma_minus8)
        sps.bitDepthChromaMinus8 = Int(s.bit_depth_chroma_minus8)
        sps.log2MaxFrameNumMinus4 = Int(f.log2_max_frame_num_minus4)
        sps.picOrderCntType = Int(f.pic_order_cnt_type)
        sps.log2MaxPicOrderCntLsbMinus4 = Int(f.log2_max_pic_order_cnt_lsb_minus4)
        sps.deltaPicOrderAlwaysZeroFlag = f.delta_pic_order_always_zero_flag != 0
        sps.offsetForNonRefPic = Int(s.offset_for_non_ref_pic)
        sps.offsetForTopToBottomField = Int(s.offset_for_top_to_bottom_field)
        let cycle = withUnsafeBytes(of: s.offset_for_ref_frame) { Array($0.bindMemory(to: Int32.self)) }
        sps.offsetForRefFrame = cycle.prefix(Int(s.num_ref_frames_in_pic_order_cnt_cycle)).map(Int.init)
        sps.maxNumRefFrames = Int(s.max_num_ref_frames)
        sps.picWidthInMbsMinus1 = max(Int(s.picture_width_in_mbs) - 1, 0)
        sps.frameMbsOnlyFlag = f.frame_mbs_only_flag != 0
        sps.picHeightInMapUnitsMinus1 = max(Int(s.picture_height_in_mbs) / (sps.frameMbsOnlyFlag ? 1 : 2) - 1, 0)
        sps.mbAdaptiveFrameFieldFlag = f.mb_adaptive_frame_field_flag != 0
        sps.direct8x8InferenceFlag = f.direct_8x8_inference_flag != 0
        sps.frameCroppingFlag = s.frame_cropping_flag != 0
        sps.frameCropLeftOffset = Int(s.frame_crop_left_offset)
        sps.frameCropRightOffset = Int(s.frame_crop_right_offset)
        sps.frameCropTopOffset = Int(s.frame_crop_top_offset)
        sps.frameCropBottomOffset = Int(s.frame_crop_bottom_offset)
        sps.vuiParametersPresentFlag = s.vui_parameters_present_flag != 0
        if sps.vuiParametersPresentFlag {
            var vui = VUIParameters()
            vui.aspectRatioInfoPresentFlag = v.aspect_ratio_info_present_flag != 0
            vui.aspectRatioIdc = s.aspect_ratio_idc
            vui.sarWidth = Int(s.sar_width)
            vui.sarHeight = Int(s.sar_height)
            vui.timingInfoPresentFlag = v.timing_info_present_flag != 0
            vui.numUnitsInTick = s.num_units_in_tick
            vui.timeScale = s.time_scale
            vui.fixedFrameRateFlag = v.fixed_frame_rate_flag != 0
            // E.2.2: a NAL HRD describing the rate and buffer the client asked for (CBR/VBR only).
            if let rc = rateControl {
                vui.nalHrdParametersPresentFlag = true
                var sched = HRDParameters.SchedSel()
                sched.bitRateValueMinus1 = UInt32(max(rc.bitsPerSecond >> 6, 1) - 1)  // bit_rate_scale 0: units of 2^6
                sched.cpbSizeValueMinus1 = UInt32(max((rc.bufferSize > 0 ? rc.bufferSize : rc.bitsPerSecond) >> 4, 1) - 1)  // cpb_size_scale 0: units of 2^4
                sched.cbrFlag = rc.mode == .cbr
                vui.nalHrd.schedSel = [sched]
                vui.lowDelayHrdFlag = v.low_delay_hrd_flag != 0
            }
            vui.bitstreamRestrictionFlag = v.bitstream_restriction_flag != 0
            vui.motionVectorsOverPicBoundariesFlag = v.motion_vectors_over_pic_boundaries_flag != 0
            vui.log2MaxMvLengthHorizontal = Int(v.log2_max_mv_length_horizontal)
            vui.log2MaxMvLengthVertical = Int(v.log2_max_mv_length_vertical)
            vui.maxNumReorderFrames = s.ip_period > 1 ? 1 : 0
            vui.maxDecFrameBuffering = Int(s.max_num_ref_frames)
            sps.vui = vui
        }
        return sps
    }

    static func pictureParameterSet(_ p: VAEncPictureParameterBufferH264, sps: SequenceParameterSet) -> PictureParameterSet {
        let f = p.pic_fields.bits
        var pps = PictureParameterSet()
        pps.picParameterSetId = Int(p.pic_parameter_set_id)
        pps.seqParameterSetId = Int(p.seq_parameter_set_id)
        pps.entropyCodingModeFlag = f.entropy_coding_mode_flag != 0
        pps.bottomFieldPicOrderInFramePresentFlag = f.pic_order_present_flag != 0
        pps.numRefIdxL0DefaultActiveMinus1 = Int(p.num_ref_idx_l0_active_minus1)
        pps.numRefIdxL1DefaultActiveMinus1 = Int(p.num_ref_idx_l1_active_minus1)
        pps.weightedPredFlag = f.weighted_pred_flag != 0
        pps.weightedBipredIdc = Int(f.weighted_bipred_idc)
        pps.picInitQpMinus26 = Int(p.pic_init_qp) - 26
        pps.chromaQpIndexOffset = Int(p.chroma_qp_index_offset)
        pps.deblockingFilterControlPresentFlag = f.deblocking_filter_control_present_flag != 0
        pps.constrainedIntraPredFlag = f.constrained_intra_pred_flag != 0
        pps.redundantPicCntPresentFlag = f.redundant_pic_cnt_present_flag != 0
        pps.transform8x8ModeFlag = f.transform_8x8_mode_flag != 0
        pps.secondChromaQpIndexOffset = Int(p.second_chroma_qp_index_offset)
        // 7.3.2.2: the tail only where it says something (High profiles).
        pps.hasHighProfileTail = sps.hasHighProfileFields
            && (pps.transform8x8ModeFlag || pps.secondChromaQpIndexOffset != pps.chromaQpIndexOffset || f.pic_scaling_matrix_present_flag != 0)
        return pps
    }

    /// The slice header of one VAEncSliceParameterBufferH264 (no reference list modification: VA has none,
    /// and no adaptive marking).
    static func sliceHeader(_ s: VAEncSliceParameterBufferH264, picture p: VAEncPictureParameterBufferH264,
                            sps: SequenceParameterSet, pps: PictureParameterSet) -> SliceHeader {
        let f = p.pic_fields.bits
        var h = SliceHeader()
        let idr = f.idr_pic_flag != 0
        h.nalUnitType = idr ? .idrSlice : .nonIDRSlice
        h.nalRefIdc = f.reference_pic_flag != 0 ? (idr ? 3 : 2) : 0
        h.firstMbInSlice = Int(s.macroblock_address)
        h.sliceTypeRaw = Int(s.slice_type)
        h.picParameterSetId = Int(s.pic_parameter_set_id)
        // u(v) fields keep their low bits, as a header packer writes them.
        h.frameNum = Int(p.frame_num) & (sps.maxFrameNum - 1)
        h.idrPicId = Int(s.idr_pic_id)
        h.picOrderCntLsb = Int(s.pic_order_cnt_lsb) & (sps.maxPicOrderCntLsb - 1)
        h.deltaPicOrderCntBottom = Int(s.delta_pic_order_cnt_bottom)
        h.deltaPicOrderCnt = [Int(s.delta_pic_order_cnt.0), Int(s.delta_pic_order_cnt.1)]
        h.directSpatialMvPredFlag = s.direct_spatial_mv_pred_flag != 0
        let type = h.sliceType
        h.numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        h.numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        if type == .p || type == .b {
            h.numRefIdxActiveOverrideFlag = s.num_ref_idx_active_override_flag != 0
            if h.numRefIdxActiveOverrideFlag {
                h.numRefIdxL0ActiveMinus1 = Int(s.num_ref_idx_l0_active_minus1)
                if type == .b { h.numRefIdxL1ActiveMinus1 = Int(s.num_ref_idx_l1_active_minus1) }
            }
        }
        if (pps.weightedPredFlag && type == .p) || (pps.weightedBipredIdc == 1 && type == .b) {
            h.predWeightTable = predWeightTable(s, header: h)
        }
        if h.nalRefIdc != 0 { h.decRefPicMarking = DecRefPicMarking() }
        h.cabacInitIdc = Int(s.cabac_init_idc)
        h.sliceQpDelta = Int(s.slice_qp_delta)
        h.disableDeblockingFilterIdc = Int(s.disable_deblocking_filter_idc)
        h.sliceAlphaC0OffsetDiv2 = Int(s.slice_alpha_c0_offset_div2)
        h.sliceBetaOffsetDiv2 = Int(s.slice_beta_offset_div2)
        return h
    }

    private static func predWeightTable(_ s: VAEncSliceParameterBufferH264, header h: SliceHeader) -> PredWeightTable {
        func ints<T>(_ tuple: T, _: Int16.Type) -> [Int] { withUnsafeBytes(of: tuple) { $0.bindMemory(to: Int16.self).map(Int.init) } }
        func pairs<T>(_ tuple: T) -> [[Int]] {
            let flat = ints(tuple, Int16.self)
            return stride(from: 0, to: flat.count, by: 2).map { [flat[$0], flat[$0 + 1]] }
        }
        func entries(_ count: Int, lumaFlag: UInt8, luma: [Int], lumaOffset: [Int], chromaFlag: UInt8,
                     chroma: [[Int]], chromaOffset: [[Int]]) -> [PredWeightTable.Entry] {
            (0..<min(count, 32)).map { i in
                var e = PredWeightTable.Entry()
                e.lumaWeightFlag = lumaFlag != 0
                e.lumaWeight = luma[i]
                e.lumaOffset = lumaOffset[i]
                e.chromaWeightFlag = chromaFlag != 0
                e.chromaWeight = chroma[i]
                e.chromaOffset = chromaOffset[i]
                return e
            }
        }
        var t = PredWeightTable()
        t.lumaLog2WeightDenom = Int(s.luma_log2_weight_denom)
        t.chromaLog2WeightDenom = Int(s.chroma_log2_weight_denom)
        t.l0 = entries(h.numRefIdxL0ActiveMinus1 + 1, lumaFlag: s.luma_weight_l0_flag, luma: ints(s.luma_weight_l0, Int16.self),
                       lumaOffset: ints(s.luma_offset_l0, Int16.self), chromaFlag: s.chroma_weight_l0_flag,
                       chroma: pairs(s.chroma_weight_l0), chromaOffset: pairs(s.chroma_offset_l0))
        if h.sliceType == .b {
            t.l1 = entries(h.numRefIdxL1ActiveMinus1 + 1, lumaFlag: s.luma_weight_l1_flag, luma: ints(s.luma_weight_l1, Int16.self),
                           lumaOffset: ints(s.luma_offset_l1, Int16.self), chromaFlag: s.chroma_weight_l1_flag,
                           chroma: pairs(s.chroma_weight_l1), chromaOffset: pairs(s.chroma_offset_l1))
        }
        return t
    }
}
