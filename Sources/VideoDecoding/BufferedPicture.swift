/// A picture as the decoded picture buffer sees it: what bumping, flushing and removal read and change.
public protocol BufferedPicture: Hashable, Sendable {
    var id: PictureID { get }
    /// PicOrderCnt of the picture (H.264 8-1; H.265's PicOrderCntVal): output is in its order.
    var picOrderCnt: Int { get }
    /// Used for reference (in H.264, at least one field of the store is).
    var isReference: Bool { get }
    /// Waiting for output.
    var neededForOutput: Bool { get set }
}
