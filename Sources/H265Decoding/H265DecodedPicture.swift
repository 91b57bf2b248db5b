import H265Bitstream
import VTKMedia

/// Identity of a picture inside one H.265 decoder, stable while it is in the DPB; the accelerator maps
/// it to its surface.
public struct H265PictureID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "pic#\(rawValue)" }
}

/// How a decoded picture is used for reference (8.3.2).
public enum H265ReferenceMarking: Hashable, Sendable {
    case unused, shortTerm, longTerm
}

/// A decoded picture and the state the decoding process keeps for it.
public struct H265DecodedPicture: Hashable, Sendable {
    public let id: H265PictureID
    /// Position in decoding order, from 0.
    public let decodeIndex: Int
    /// PicOrderCntVal (8.3.1).
    public var poc: Int
    public var nalUnitType: H265NALUnitType
    public var temporalID = 0
    public var reference: H265ReferenceMarking = .unused
    public var neededForOutput = false
    /// PicLatencyCount (C.5.2.3).
    public var latencyCount = 0
    /// Decoded from damaged input or from references that were missing: the pixels may be wrong.
    public var isDamaged = false
    public var presentationTime: MediaTime = .invalid

    public init(id: H265PictureID, decodeIndex: Int, poc: Int, nalUnitType: H265NALUnitType) {
        self.id = id
        self.decodeIndex = decodeIndex
        self.poc = poc
        self.nalUnitType = nalUnitType
    }

    public var isReference: Bool { reference != .unused }
}
