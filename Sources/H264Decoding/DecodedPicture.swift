import H264Bitstream
import VTKMedia

/// How a decoded frame is used for reference (8.2.5).
public enum ReferenceMarking: Hashable, Sendable {
    case unused
    case shortTerm
    case longTerm
}

/// Identity of a picture inside one decoder, stable while the picture is in the DPB. The accelerator
/// maps it to its surface.
public struct PictureID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public var description: String { "pic#\(rawValue)" }
}

/// A decoded (or non-existing) frame and the state the decoding process keeps for it.
public struct DecodedPicture: Hashable, Sendable {
    public let id: PictureID
    /// Position in decoding order, from 0.
    public let decodeIndex: Int
    public var frameNum: Int
    /// FrameNumWrap (8.2.4.1), updated for each new current picture.
    public var frameNumWrap = 0
    public var longTermFrameIdx = 0
    public var topFieldOrderCnt = 0
    public var bottomFieldOrderCnt = 0
    public var reference: ReferenceMarking = .unused
    public var neededForOutput = false
    public var isIDR = false
    public var nalRefIdc: UInt8 = 0
    /// Made for a gap in frame_num (8.2.5.2): no sample data, never output.
    public var nonExisting = false
    /// The picture had a memory_management_control_operation equal to 5.
    public var hadMMCO5 = false
    /// Decoded from damaged input or with references that were missing: the pixels may be wrong.
    public var isDamaged = false
    /// Presentation time of the sample the picture came from.
    public var presentationTime: MediaTime = .invalid

    /// PicOrderCnt(frame) = Min(TopFieldOrderCnt, BottomFieldOrderCnt) (8-1).
    public var picOrderCnt: Int { min(topFieldOrderCnt, bottomFieldOrderCnt) }
    /// PicNum of a short-term frame (8-28).
    public var picNum: Int { frameNumWrap }
    /// LongTermPicNum of a long-term frame (8-29).
    public var longTermPicNum: Int { longTermFrameIdx }
    public var isReference: Bool { reference != .unused }
}
