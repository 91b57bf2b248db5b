import H264Bitstream
import VTKMedia

/// One compressed sample (one access unit), like CMSampleBuffer: its bytes, how NAL units are framed in
/// them, and its timing.
public struct SampleBuffer: Sendable {
    public enum Framing: Hashable, Sendable {
        /// Each NAL unit preceded by its big-endian length of 1, 2 or 4 bytes (MP4, avcC).
        case lengthPrefixed(Int)
        /// Start codes (an Annex B byte stream fragment).
        case annexB
    }

    public var data: [UInt8]
    public var framing: Framing
    public var presentationTime: MediaTime
    public var decodeTime: MediaTime
    public var duration: MediaTime
    /// A sync sample (IDR or recovery point).
    public var isSync: Bool

    public init(data: [UInt8], framing: Framing = .lengthPrefixed(4), presentationTime: MediaTime = .invalid,
                decodeTime: MediaTime = .invalid, duration: MediaTime = .invalid, isSync: Bool = false) {
        self.data = data
        self.framing = framing
        self.presentationTime = presentationTime
        self.decodeTime = decodeTime
        self.duration = duration
        self.isSync = isSync
    }

    /// The sample's NAL units. Offsets are within the sample.
    public func nalUnits() throws(BitstreamError) -> [NALUnit] {
        switch framing {
        case .lengthPrefixed(let size): return try LengthPrefixedSample.nalUnits(in: data, lengthSize: size)
        case .annexB: return AnnexBScanner.nalUnits(in: data)
        }
    }
}

/// A decoded frame, in display order.
public struct DecodedFrame: Sendable {
    public var pixelBuffer: PixelBuffer
    public var presentationTime: MediaTime { pixelBuffer.presentationTime }
    /// Decoded from damaged input, or referring to pictures that were lost: the picture may be wrong
    /// (VideoToolbox would flag it kVTDecodeInfo_FrameDropped or leave it out).
    public var isDamaged: Bool
    /// Position of the frame's access unit in decoding order.
    public var decodeIndex: Int
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
}
