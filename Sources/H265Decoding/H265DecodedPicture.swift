import H265Bitstream
import VideoDecoding
import VTKMedia

/// A decoded picture and the state the decoding process keeps for it.
public struct H265DecodedPicture: BufferedPicture {
    public let id: PictureID
    /// Position in decoding order, from 0.
    public let decodeIndex: Int
    /// PicOrderCntVal (8.3.1).
    public var poc: Int
    public var nalUnitType: H265NALUnitType
    public var temporalID = 0
    public var reference: ReferenceMarking = .unused
    public var neededForOutput = false
    /// PicLatencyCount (C.5.2.3).
    public var latencyCount = 0
    /// Decoded from damaged input or from references that were missing: the pixels may be wrong.
    public var isDamaged = false
    public var presentationTime: MediaTime = .invalid

    public init(id: PictureID, decodeIndex: Int, poc: Int, nalUnitType: H265NALUnitType) {
        self.id = id
        self.decodeIndex = decodeIndex
        self.poc = poc
        self.nalUnitType = nalUnitType
    }

    public var isReference: Bool { reference != .unused }
    /// PicOrderCnt(picX) (8.3.1): the picture's PicOrderCntVal.
    public var picOrderCnt: Int { poc }
}
