import CLibVA
import Glibc
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
    /// The sets written last, with the VA fields they were written from: a client sends the same parameters
    /// picture after picture, and comparing those fields costs less than building the set's values again.
    private var lastSPS: (inputs: SequenceInputs, bytes: [UInt8])?
    private var lastPPS: [Int: (inputs: PictureInputs, bytes: [UInt8])] = [:]

    /// Every field of VAPictureParameterBufferH264 that ``sequenceParameterSetValues(_:)`` reads.
    struct SequenceInputs: Equatable {
        var fields: UInt32
        var widthInMbsMinus1: UInt16, heightInMbsMinus1: UInt16
        var bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8
        var numRefFrames: UInt8

        init(_ p: VAPictureParameterBufferH264) {
            fields = p.seq_fields.value
            widthInMbsMinus1 = p.picture_width_in_mbs_minus1
            heightInMbsMinus1 = p.picture_height_in_mbs_minus1
            bitDepthLumaMinus8 = p.bit_depth_luma_minus8
            bitDepthChromaMinus8 = p.bit_depth_chroma_minus8
            numRefFrames = p.num_ref_frames
        }
    }

    /// Everything ``pictureParameterSetValues(_:scaling:id:defaults:)`` and the SPS it is written against read.
    struct PictureInputs: Equatable {
        var sequence: SequenceInputs
        var fields: UInt32
        var picInitQpMinus26: Int8, picInitQsMinus26: Int8
        var chromaQpIndexOffset: Int8, secondChromaQpIndexOffset: Int8
        var defaults: (Int, Int)
        var scaling: VAIQMatrixBufferH264?

        init(_ p: VAPictureParameterBufferH264, scaling: VAIQMatrixBufferH264?, defaults: (Int, Int)) {
            sequence = SequenceInputs(p)
            fields = p.pic_fields.value
            picInitQpMinus26 = p.pic_init_qp_minus26
            picInitQsMinus26 = p.pic_init_qs_minus26
            chromaQpIndexOffset = p.chroma_qp_index_offset
            secondChromaQpIndexOffset = p.second_chroma_qp_index_offset
            self.defaults = defaults
            self.scaling = scaling
        }

        static func == (a: Self, b: Self) -> Bool {
            guard a.sequence == b.sequence, a.fields == b.fields, a.picInitQpMinus26 == b.picInitQpMinus26,
                  a.picInitQsMinus26 == b.picInitQsMinus26, a.chromaQpIndexOffset == b.chromaQpIndexOffset,
                  a.secondChromaQpIndexOffset == b.secondChromaQpIndexOffset, a.defaults == b.defaults else { return false }
            switch (a.scaling, b.scaling) {
            case (nil, nil): return true
            case (var x?, var y?):
                // A C struct of byte arrays: equal when its bytes are (memcmp: elementsEqual went byte by byte).
                return withUnsafeBytes(of: &x) { xs in
                    withUnsafeBytes(of: &y) { ys in
                        guard let xp = xs.baseAddress, let yp = ys.baseAddress else { return xs.count == ys.count }
                        return memcmp(xp, yp, xs.count) == 0
                    }
                }
            default: return false
            }
        }
    }

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
        let inputs = SequenceInputs(p)
        if let last = lastSPS, last.inputs == inputs { return last.bytes }
        let bytes = Array(sequenceParameterSetValues(p).nalUnit(nalRefIdc: 3).bytes)
        lastSPS = (inputs, bytes)
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
        let inputs = PictureInputs(p, scaling: scaling, defaults: defaults)
        if let last = lastPPS[id], last.inputs == inputs { return last.bytes }
        let pps = pictureParameterSetValues(p, scaling: scaling, id: id, defaults: defaults)
        let bytes = Array(pps.nalUnit(sps: sequenceParameterSetValues(p), nalRefIdc: 3).bytes)
        lastPPS[id] = (inputs, bytes)
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
