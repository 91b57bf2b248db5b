import H264Bitstream

/// What the H.264 and H.265 sessions have in common, for callers that decode samples of either codec
/// (an MP4 track, say) without caring which.
public protocol VideoDecompressionSession: AnyObject {
    /// Decodes one sample (one access unit) and returns the frames it made ready, in display order.
    func decode(_ sample: SampleBuffer) throws -> [DecodedFrame]
    /// Outputs the frames still held for reordering (end of stream).
    func finishDelayedFrames() throws -> [DecodedFrame]
    /// Adds a problem found outside the session (by the container reader, say) to its statistics.
    func noteProblem(_ problem: String)
    /// Releases the VA objects.
    func invalidate()
    var statistics: DecodeStatistics { get }
    var deviceDescription: String { get }
}

extension VADecompressionSession: VideoDecompressionSession {}
