import H264Bitstream
import VTKMedia

/// Everything a hardware encoder is told for one picture, as Swift values (no VA types).
public typealias EncodeRequest = PictureEncodeRequest<H264ActiveParameterSets, SliceRequest, EncoderPicture>

extension PictureEncodeRequest where ParameterSets == H264ActiveParameterSets {
    public init(sps: SequenceParameterSet, pps: PictureParameterSet, slices: [Slice], source: Picture,
                refPicList0: [EncoderReferencePicture<Picture>] = [], refPicList1: [EncoderReferencePicture<Picture>] = [],
                picOrderCnt: Int = 0) {
        self.init(parameterSets: H264ActiveParameterSets(sps: sps, pps: pps), slices: slices, source: source,
                  refPicList0: refPicList0, refPicList1: refPicList1, picOrderCnt: picOrderCnt)
    }
}
