/// PicOrderCntMsb from the LSBs of the current picture and of the previous one (H.264 8-3; the same rule is
/// H.265's 8-44).
public enum PicOrderCntMsb {
    /// A wrap of the LSB counter either way moves the MSB by MaxPicOrderCntLsb.
    public static func derive(lsb: Int, previousLsb: Int, previousMsb: Int, maxLsb: Int) -> Int {
        if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 { return previousMsb + maxLsb }
        if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 { return previousMsb - maxLsb }
        return previousMsb
    }
}
