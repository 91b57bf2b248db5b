/// A reconstructed picture that a list entry names (8.2.4): its samples and what direct prediction and
/// implicit weights need of it.
public struct ReferencePicture: Sendable {
    public var picture: EncoderPicture
    /// PicOrderCnt of the frame (8.2.1).
    public var picOrderCnt: Int
    public var isLongTerm: Bool
    public init(picture: EncoderPicture, picOrderCnt: Int, isLongTerm: Bool = false) {
        self.picture = picture
        self.picOrderCnt = picOrderCnt
        self.isLongTerm = isLongTerm
    }
}
