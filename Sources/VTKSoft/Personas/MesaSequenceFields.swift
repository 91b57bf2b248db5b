import H264Bitstream

/// What Mesa 24's VA frontend takes from a client's packed SPS for the SPS it writes itself (radeonsi-24):
/// parseEncSpsParamsH264 in src/gallium/frontends/va/picture_h264_enc.c, reached from
/// vlVaHandleVAEncPackedHeaderDataBufferTypeH264, keeps constraint_set0..5 flags, then — unless
/// seq_scaling_matrix_present_flag, where it stops ("TODO") — log2_max_frame_num_minus4, pic_order_cnt_type,
/// log2_max_pic_order_cnt_lsb_minus4 and the whole VUI. profile_idc, level_idc, sizes and cropping stay
/// the sequence parameters'. The packed bytes themselves never reach the stream.
struct MesaSequenceFields {
    private let client: SequenceParameterSet

    /// The last SPS in a packed sequence header; nil when it holds none. An SPS that does not parse throws:
    /// Mesa's frontend returns VA_STATUS_SUCCESS whatever it read, so the caller ignores it and logs it.
    init?(_ header: PackedHeader) throws(BitstreamError) {
        guard let unit = header.nalUnits.last(where: { $0.type == .sequenceParameterSet }) else { return nil }
        client = try SequenceParameterSet(nalUnit: unit)
    }

    func apply(to sps: inout SequenceParameterSet) {
        sps.constraintSet0Flag = client.constraintSet0Flag
        sps.constraintSet1Flag = client.constraintSet1Flag
        sps.constraintSet2Flag = client.constraintSet2Flag
        sps.constraintSet3Flag = client.constraintSet3Flag
        sps.constraintSet4Flag = client.constraintSet4Flag
        sps.constraintSet5Flag = client.constraintSet5Flag
        guard !(client.hasHighProfileFields && client.seqScalingMatrixPresentFlag) else { return }
        sps.log2MaxFrameNumMinus4 = client.log2MaxFrameNumMinus4
        sps.picOrderCntType = client.picOrderCntType
        sps.log2MaxPicOrderCntLsbMinus4 = client.log2MaxPicOrderCntLsbMinus4
        sps.vuiParametersPresentFlag = client.vuiParametersPresentFlag
        sps.vui = client.vui
    }
}
