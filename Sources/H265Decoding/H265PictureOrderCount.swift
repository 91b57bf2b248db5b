import H265Bitstream
import VideoDecoding

/// The decoding process for picture order count (8.3.1).
public struct H265PictureOrderCount: Sendable {
    /// PicOrderCntVal of prevTid0Pic: the last picture with TemporalId 0 that is not a RASL, RADL or
    /// sub-layer non-reference picture.
    private var prevTid0POC = 0

    public init() {}

    /// PicOrderCntVal of a picture whose first slice segment header is `header`.
    public mutating func compute(_ header: H265SliceSegmentHeader, sps: H265SequenceParameterSet, noRaslOutputFlag: Bool) -> Int {
        let maxLsb = sps.maxPicOrderCntLsb
        let lsb = header.picOrderCntLsb
        var msb = 0
        if !(header.nalUnitType.isIRAP && noRaslOutputFlag) {
            let prevLsb = prevTid0POC & (maxLsb - 1)
            msb = PicOrderCntMsb.derive(lsb: lsb, previousLsb: prevLsb, previousMsb: prevTid0POC - prevLsb, maxLsb: maxLsb)
        }
        let poc = msb + lsb
        let type = header.nalUnitType
        if header.temporalID == 0 && !type.isRASL && !type.isRADL && !type.isSubLayerNonReference { prevTid0POC = poc }
        return poc
    }
}
