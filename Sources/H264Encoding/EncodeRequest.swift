import H264Bitstream

/// Everything a hardware encoder is told for one picture, as Swift values (no VA types).
public struct EncodeRequest: Sendable {
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    public var slices: [SliceRequest]
    /// The source picture at coded size (the driver replicates edges past the visible size).
    public var source: EncoderPicture
    /// RefPicList0 / RefPicList1 in list order (after any modification), as the slice headers imply.
    public var refPicList0: [ReferencePicture]
    public var refPicList1: [ReferencePicture]
    /// PicOrderCnt of the current picture (temporal direct, implicit weights).
    public var picOrderCnt: Int
    public init(sps: SequenceParameterSet, pps: PictureParameterSet, slices: [SliceRequest], source: EncoderPicture,
                refPicList0: [ReferencePicture] = [], refPicList1: [ReferencePicture] = [], picOrderCnt: Int = 0) {
        self.sps = sps
        self.pps = pps
        self.slices = slices
        self.source = source
        self.refPicList0 = refPicList0
        self.refPicList1 = refPicList1
        self.picOrderCnt = picOrderCnt
    }
}
