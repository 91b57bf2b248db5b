/// Everything a hardware encoder is told for one picture, as Swift values (no VA types): the parameter sets
/// active for it, its slices, the source picture at coded size (edges past the visible size replicated) and
/// the final reference lists (H.264 8.2.4, H.265 8.3.4), as the slice headers imply. Each codec names its
/// own: `EncodeRequest`, `H265EncodeRequest`. `request.sps` reads through to the parameter sets.
@dynamicMemberLookup
public struct PictureEncodeRequest<ParameterSets: Sendable, Slice: Sendable, Picture: Sendable>: Sendable {
    public var parameterSets: ParameterSets
    public var slices: [Slice]
    public var source: Picture
    /// RefPicList0 / RefPicList1 in final list order (after any modification).
    public var refPicList0: [EncoderReferencePicture<Picture>]
    public var refPicList1: [EncoderReferencePicture<Picture>]
    /// PicOrderCnt (H.264 8.2.1) or PicOrderCntVal (H.265 8.3.1) of the current picture.
    public var picOrderCnt: Int

    public init(parameterSets: ParameterSets, slices: [Slice], source: Picture, refPicList0: [EncoderReferencePicture<Picture>] = [],
                refPicList1: [EncoderReferencePicture<Picture>] = [], picOrderCnt: Int = 0) {
        self.parameterSets = parameterSets
        self.slices = slices
        self.source = source
        self.refPicList0 = refPicList0
        self.refPicList1 = refPicList1
        self.picOrderCnt = picOrderCnt
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ParameterSets, Value>) -> Value {
        get { parameterSets[keyPath: keyPath] }
        set { parameterSets[keyPath: keyPath] = newValue }
    }
}
