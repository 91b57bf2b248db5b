import VTKMedia

/// A decoded frame, in display order.
public struct DecodedFrame: Sendable {
    public var pixelBuffer: PixelBuffer
    public var presentationTime: MediaTime { pixelBuffer.presentationTime }
    /// Decoded from damaged input, or referring to pictures that were lost: the picture may be wrong
    /// (VideoToolbox would flag it kVTDecodeInfo_FrameDropped or leave it out).
    public var isDamaged: Bool
    /// Position of the frame's access unit in decoding order.
    public var decodeIndex: Int
    /// For interlaced content (H.264 field pairs, and frames of a stream with frame_mbs_only_flag 0 whose
    /// pic_struct or field order counts give an order), which field comes first in time; nil for progressive
    /// content. The frame itself holds both fields woven.
    public var fieldOrder: FieldOrder?
}

/// The temporal order of the two fields of an interlaced frame.
public enum FieldOrder: String, Hashable, Sendable {
    case topFieldFirst = "top field first"
    case bottomFieldFirst = "bottom field first"
}

/// What happened during a session, for the caller to report.
public struct DecodeStatistics: Sendable {
    public var accessUnits = 0
    public var picturesDecoded = 0
    public var framesOutput = 0
    public var damagedFrames = 0
    /// Access units skipped (before the first keyframe, unsupported, or undecodable).
    public var accessUnitsSkipped = 0
    /// Frames the stream said not to output (no_output_of_prior_pics_flag).
    public var framesDiscarded = 0
    /// Frames that could not be read back from the device.
    public var framesDropped = 0
    /// The first problems met (at most 100), with their positions.
    public var problems: [String] = []
    public var problemCount = 0
    /// Things worth saying that are not problems (RASL pictures skipped where decoding started).
    public var notes: [String] = []

    public init() {}
}
