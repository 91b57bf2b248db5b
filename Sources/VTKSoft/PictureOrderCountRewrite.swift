import CLibVA
import H264Bitstream

/// POC type 1 through libavcodec. VA leaves out what type 1 derives POCs from (offset_for_non_ref_pic,
/// offset_for_top_to_bottom_field and the offset_for_ref_frame cycle, 8.2.1.2), so a rebuilt type-1 SPS
/// gives libavcodec wrong POCs, and with them wrong temporal direct prediction, implicit weights and field
/// choices. The client computed the POCs (CurrPic's TopFieldOrderCnt and BottomFieldOrderCnt): vtksoft
/// sends the stream as POC type 0 (8.2.1.1) carrying them, with a 16-bit pic_order_cnt_lsb (POCs of
/// neighbouring pictures differ by far less than 2^15, so the MSB derivation restores them) and
/// bottom_field_pic_order_in_frame_present_flag set so that a frame carries its bottom field's POC.
struct PictureOrderCountRewrite {
    /// The sets as sent to libavcodec.
    let sps: SequenceParameterSet
    let pps: PictureParameterSet

    static let log2MaxLsbMinus4 = 12

    /// The type-0 SPS for the rebuilt type-1 one `coded`; nil when it does not parse.
    static func sequenceParameterSet(_ coded: [UInt8]) -> SequenceParameterSet? {
        guard var sps = try? SequenceParameterSet(nalUnit: NALUnit(coded)) else { return nil }
        sps.picOrderCntType = 0
        sps.log2MaxPicOrderCntLsbMinus4 = log2MaxLsbMinus4
        return sps
    }

    /// The PPS `coded` (rebuilt) as sent with the type-0 SPS `sps`; nil when it does not parse.
    static func pictureParameterSet(_ coded: [UInt8], sps: SequenceParameterSet) -> PictureParameterSet? {
        guard var pps = try? PictureParameterSet(nalUnit: NALUnit(coded), sequenceParameterSet: { _ in sps }) else { return nil }
        pps.bottomFieldPicOrderInFramePresentFlag = true
        return pps
    }

    /// The slice `unit`, parsed with the sets as coded (`coded`), rewritten for the type-0 sets with the
    /// picture's POCs: the field's own, or a frame's top one and its bottom one as the delta.
    func slice(_ unit: NALUnit, coded: ParameterSets, current: VAPictureH264, structure: PictureStructure) throws(BitstreamError) -> NALUnit {
        let original = try SliceHeader(nalUnit: unit, parameterSets: coded)
        var header = original
        let top = Int(current.TopFieldOrderCnt), bottom = Int(current.BottomFieldOrderCnt)
        let mask = (1 << (Self.log2MaxLsbMinus4 + 4)) - 1
        header.picOrderCntLsb = (structure == .bottomField ? bottom : top) & mask
        header.deltaPicOrderCntBottom = structure == .frame ? bottom - top : 0
        header.deltaPicOrderCnt = [0, 0]
        return try header.replacing(in: unit, original: original, sps: sps, pps: pps)
    }
}
