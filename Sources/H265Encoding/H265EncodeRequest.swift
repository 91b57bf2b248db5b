import H265Bitstream
import VTKMedia

/// Everything a hardware HEVC encoder is told for one picture, as Swift values (no VA types).
public typealias H265EncodeRequest = PictureEncodeRequest<H265ActiveParameterSets, H265SliceRequest, H265EncoderPicture>

extension PictureEncodeRequest where ParameterSets == H265ActiveParameterSets {
    public init(vps: VideoParameterSet = VideoParameterSet(), sps: H265SequenceParameterSet, pps: H265PictureParameterSet,
                slices: [Slice], source: Picture, refPicList0: [EncoderReferencePicture<Picture>] = [],
                refPicList1: [EncoderReferencePicture<Picture>] = [], picOrderCnt: Int = 0) {
        self.init(parameterSets: H265ActiveParameterSets(vps: vps, sps: sps, pps: pps), slices: slices, source: source,
                  refPicList0: refPicList0, refPicList1: refPicList1, picOrderCnt: picOrderCnt)
    }
}
