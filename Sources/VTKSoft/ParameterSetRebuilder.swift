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
    /// The sets written last, with the values they were written from: a client sends the same parameters
    /// picture after picture, and comparing the values costs less than writing the set again.
    private var lastSPS: (values: SequenceParameterSet, bytes: [UInt8])?
    private var lastPPS: [Int: (values: PictureParameterSet, sps: SequenceParameterSet, bytes: [UInt8])] = [:]

    init(profile: VAProfile) {
        self.profile = profile
    }

    static let sequenceParameterSetID = 0

    var profileIDC: Int {
        switch profile {
        case VAProfileH264ConstrainedBaseline: return 66
        case VAProfileH264Main: return 77
        default: return 100
        }
    }

    /// seq_parameter_set_rbsp() (7.3.2.1.1), as a NAL unit without start code.
    mutating func sequenceParameterSet(_ p: VAPictureParameterBufferH264) -> [UInt8] {
        let values = sequenceParameterSetValues(p)
        if let last = lastSPS, last.values == values { return last.bytes }
        let bytes = Array(values.nalUnit(nalRefIdc: 3).bytes)
        lastSPS = (values, bytes)
        return bytes
    }

    /// The SPS that VAPictureParameterBufferH264 implies, with the neutral values above where VA is silent.
    func sequenceParameterSetValues(_ p: VAPictureParameterBufferH264) -> SequenceParameterSet {
        let s = p.seq_fields.bits
        var sps = SequenceParameterSet()
        sps.profileIdc = UInt8(profileIDC)
        // constraint_set0..5: Constrained Baseline is Baseline with set1 (A.2.1.1); Main streams satisfy set1 too.
        sps.constraintSet0Flag = profile == VAProfileH264ConstrainedBaseline
        sps.constraintSet1Flag = profile == VAProfileH264ConstrainedBaseline || profile == VAProfileH264Main
        sps.levelIdc = 51  // not in VA; the highest level limits nothing
        sps.seqParameterSetId = Self.sequenceParameterSetID
        if profileIDC == 100 {
            sps.chromaFormatIdc = Int(s.chroma_format_idc)
            sps.separateColourPlaneFlag = s.chroma_format_idc == 3 && s.residual_colour_transform_flag != 0
            sps.bitDepthLumaMinus8 = Int(p.bit_depth_luma_minus8)
            sps.bitDepthChromaMinus8 = Int(p.bit_depth_chroma_minus8)
            // qpprime_y_zero_transform_bypass_flag: High 4:4:4 only. No SPS matrices: those in the PPS override.
        }
        sps.log2MaxFrameNumMinus4 = Int(s.log2_max_frame_num_minus4)
        sps.picOrderCntType = Int(s.pic_order_cnt_type)
        if s.pic_order_cnt_type == 0 {
            sps.log2MaxPicOrderCntLsbMinus4 = Int(s.log2_max_pic_order_cnt_lsb_minus4)
        } else if s.pic_order_cnt_type == 1 {
            // offset_for_non_ref_pic, offset_for_top_to_bottom_field 0; an empty offset cycle.
            sps.deltaPicOrderAlwaysZeroFlag = s.delta_pic_order_always_zero_flag != 0
        }
        sps.maxNumRefFrames = Int(p.num_ref_frames)
        sps.gapsInFrameNumValueAllowedFlag = s.gaps_in_frame_num_value_allowed_flag != 0
        sps.picWidthInMbsMinus1 = Int(p.picture_width_in_mbs_minus1)
        // VA gives the frame height in macroblocks; the SPS counts map units (field pairs when not frame-only).
        let heightInMbs = Int(p.picture_height_in_mbs_minus1) + 1
        sps.picHeightInMapUnitsMinus1 = s.frame_mbs_only_flag != 0 ? heightInMbs - 1 : (heightInMbs + 1) / 2 - 1
        sps.frameMbsOnlyFlag = s.frame_mbs_only_flag != 0
        sps.mbAdaptiveFrameFieldFlag = s.frame_mbs_only_flag == 0 && s.mb_adaptive_frame_field_flag != 0
        sps.direct8x8InferenceFlag = s.direct_8x8_inference_flag != 0
        // No frame cropping, no VUI.
        return sps
    }

    /// pic_parameter_set_rbsp() (7.3.2.2), as a NAL unit without start code.
    /// `defaults` are num_ref_idx_l0/l1_default_active_minus1, which VA does not carry: the caller
    /// recovers them from slices that do not override them.
    mutating func pictureParameterSet(_ p: VAPictureParameterBufferH264, scaling: VAIQMatrixBufferH264?, id: Int, defaults: (Int, Int)) -> [UInt8] {
        let pps = pictureParameterSetValues(p, scaling: scaling, id: id, defaults: defaults)
        let sps = sequenceParameterSetValues(p)
        if let last = lastPPS[id], last.values == pps, last.sps == sps { return last.bytes }
        let bytes = Array(pps.nalUnit(sps: sps, nalRefIdc: 3).bytes)
        lastPPS[id] = (pps, sps, bytes)
        return bytes
    }

    /// The PPS that VAPictureParameterBufferH264 and VAIQMatrixBufferH264 imply.
    func pictureParameterSetValues(_ p: VAPictureParameterBufferH264, scaling: VAIQMatrixBufferH264?, id: Int,
                                   defaults: (Int, Int)) -> PictureParameterSet {
        let f = p.pic_fields.bits
        var pps = PictureParameterSet()
        pps.picParameterSetId = id
        pps.seqParameterSetId = Self.sequenceParameterSetID
        pps.entropyCodingModeFlag = f.entropy_coding_mode_flag != 0
        pps.bottomFieldPicOrderInFramePresentFlag = f.pic_order_present_flag != 0
        // num_slice_groups_minus1 0: VA passes only the count and map type, not the maps, so FMO cannot be
        // rebuilt; none of the profiles vtksoft reports allows it.
        pps.numRefIdxL0DefaultActiveMinus1 = defaults.0
        pps.numRefIdxL1DefaultActiveMinus1 = defaults.1
        pps.weightedPredFlag = f.weighted_pred_flag != 0
        pps.weightedBipredIdc = Int(f.weighted_bipred_idc)
        pps.picInitQpMinus26 = Int(p.pic_init_qp_minus26)
        pps.picInitQsMinus26 = Int(p.pic_init_qs_minus26)
        pps.chromaQpIndexOffset = Int(p.chroma_qp_index_offset)
        pps.deblockingFilterControlPresentFlag = f.deblocking_filter_control_present_flag != 0
        pps.constrainedIntraPredFlag = f.constrained_intra_pred_flag != 0
        pps.redundantPicCntPresentFlag = f.redundant_pic_cnt_present_flag != 0
        pps.secondChromaQpIndexOffset = pps.chromaQpIndexOffset
        if profileIDC == 100 {
            pps.hasHighProfileTail = true
            pps.transform8x8ModeFlag = f.transform_8x8_mode_flag != 0
            let lists = scaling.map(ScalingLists.init)
            if let lists, !lists.isFlat(transform8x8: pps.transform8x8ModeFlag) {
                // Every list sent explicitly, so no fall-back rule (Table 7-2) can pick another. VA's lists
                // are in raster order (va.h); the bitstream sends them in zig-zag scan order (8.5.6, 8.5.7).
                pps.picScalingMatrixPresentFlag = true
                let sent = lists.list4x4 + (pps.transform8x8ModeFlag ? lists.list8x8 : [])
                pps.picScalingLists = sent.map { .explicit(ScalingMatrices.zigzag($0)) }
            }
            pps.secondChromaQpIndexOffset = Int(p.second_chroma_qp_index_offset)
        }
        return pps
    }
}
