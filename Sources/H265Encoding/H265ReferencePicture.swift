/// A reconstructed picture that a reference picture list entry names (8.3.4), with what merge and AMVP
/// candidate scaling need of it (8.5.3.2.8: POC distances, long-term marking).
public struct H265ReferencePicture: Sendable {
    public var picture: H265EncoderPicture
    /// PicOrderCntVal (8.3.1).
    public var picOrderCnt: Int
    public var isLongTerm: Bool
    public init(picture: H265EncoderPicture, picOrderCnt: Int, isLongTerm: Bool = false) {
        self.picture = picture
        self.picOrderCnt = picOrderCnt
        self.isLongTerm = isLongTerm
    }
}
