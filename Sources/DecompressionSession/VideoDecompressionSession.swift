import H264Bitstream
import VTKMedia

/// What the H.264 and H.265 sessions have in common, for callers that decode samples of either codec
/// (an MP4 track, say) without caring which.
public protocol VideoDecompressionSession: AnyObject {
    /// Decodes one sample (one access unit) and returns the frames it made ready, in display order.
    func decode(_ sample: SampleBuffer) throws -> [DecodedFrame]
    /// Decodes an access unit already assembled (the codec's own type, e.g. from a byte stream read by the
    /// caller), so that it is not serialised and assembled again; throws when it is of another codec.
    func decode(assembled unit: any Sendable, presentationTime: MediaTime) throws -> [DecodedFrame]
    /// Outputs the frames still held for reordering (end of stream).
    func finishDelayedFrames() throws -> [DecodedFrame]
    /// Adds a problem found outside the session (by the container reader, say) to its statistics.
    func noteProblem(_ problem: String)
    /// Releases the VA objects.
    func invalidate()
    var statistics: DecodeStatistics { get }
    /// Frames that may hold their VA surface at once (0: frames carry pixels); see ``VADecompressionSession/surfaceFrameLimit``.
    var surfaceFrameLimit: Int { get set }
    var deviceDescription: String { get }
}

extension VADecompressionSession: VideoDecompressionSession {
    public func decode(assembled unit: any Sendable, presentationTime: MediaTime) throws -> [DecodedFrame] {
        guard let unit = unit as? AccessUnit else {
            throw DecompressionError.unsupportedFormat("an access unit of type \(type(of: unit)), not \(AccessUnit.self)")
        }
        return try decode(accessUnit: unit, presentationTime: presentationTime)
    }
}
