/// A reconstructed picture that an encoder's reference list entry names (H.264 8.2.4, H.265 8.3.4), with what
/// prediction needs of it besides its samples: its POC (temporal direct and implicit weights in H.264, merge
/// and AMVP candidate scaling in H.265 8.5.3.2.8) and whether it is a long-term reference.
public struct EncoderReferencePicture<Picture: Sendable>: Sendable {
    public var picture: Picture
    /// PicOrderCnt of the frame (H.264 8.2.1), PicOrderCntVal (H.265 8.3.1).
    public var picOrderCnt: Int
    public var isLongTerm: Bool

    public init(picture: Picture, picOrderCnt: Int, isLongTerm: Bool = false) {
        self.picture = picture
        self.picOrderCnt = picOrderCnt
        self.isLongTerm = isLongTerm
    }
}
