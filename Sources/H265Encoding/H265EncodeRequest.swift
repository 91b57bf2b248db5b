import H265Bitstream

/// Everything a hardware HEVC encoder is told for one picture, as Swift values (no VA types).
public struct H265EncodeRequest: Sendable {
    public var vps: VideoParameterSet
    public var sps: H265SequenceParameterSet
    public var pps: H265PictureParameterSet
    public var slices: [H265SliceRequest]
    /// The source picture at coded size (the caller replicates edges past the visible size).
    public var source: H265EncoderPicture
    /// RefPicList0 / RefPicList1 in final list order (8.3.4), as the slice headers imply.
    public var refPicList0: [H265ReferencePicture]
    public var refPicList1: [H265ReferencePicture]
    /// PicOrderCntVal of the current picture (8.3.1).
    public var picOrderCnt: Int
    public init(vps: VideoParameterSet = VideoParameterSet(), sps: H265SequenceParameterSet, pps: H265PictureParameterSet,
                slices: [H265SliceRequest], source: H265EncoderPicture, refPicList0: [H265ReferencePicture] = [],
                refPicList1: [H265ReferencePicture] = [], picOrderCnt: Int = 0) {
        self.vps = vps
        self.sps = sps
        self.pps = pps
        self.slices = slices
        self.source = source
        self.refPicList0 = refPicList0
        self.refPicList1 = refPicList1
        self.picOrderCnt = picOrderCnt
    }
}
