import DecompressionSession
import H264Bitstream

/// What turns the layer's compressed samples into frames, in display order (a decompression session).
public protocol SampleDecoding: AnyObject {
    /// Frames made ready by `sample` (none while the decoder reorders).
    func decode(_ sample: SampleBuffer) throws(DisplayError) -> [DisplayFrame]
    /// The frames still held for reordering (end of stream).
    func finish() throws(DisplayError) -> [DisplayFrame]
    /// Forgets everything decoded: the next sample is a sync sample (after a seek).
    func reset() throws(DisplayError)
}

/// A decompression session (H.264 or H.265) as the layer's decoder. Frames without a presentation time
/// (an Annex B stream) get consecutive times, one `frameDuration` apart, from the decode time of the first
/// sample after a reset: an IDR's pictures follow every picture decoded before it (8.2.1).
/// `delay` slows each decode on purpose (the drop tests).
public final class SessionSampleDecoder: SampleDecoding {
    private let makeSession: () throws -> any VideoDecompressionSession
    private var session: (any VideoDecompressionSession)?
    private let frameDuration: Double
    private let delay: Double
    private let clock: any HostClock
    /// Bob-deinterlace interlaced frames: two pictures per frame, one per field.
    private let deinterlace: Bool
    /// The time of the first frame after a reset, and how many frames were stamped since.
    private var firstTime: Double?
    private var stamped = 0

    public init(frameDuration: Double, delay: Double = 0, deinterlace: Bool = false, clock: any HostClock,
                makeSession: @escaping () throws -> any VideoDecompressionSession) {
        self.frameDuration = frameDuration
        self.deinterlace = deinterlace
        self.delay = delay
        self.clock = clock
        self.makeSession = makeSession
    }

    deinit { session?.invalidate() }

    /// The session's statistics so far (nil before the first sample).
    public var statistics: DecodeStatistics? { session?.statistics }

    public func decode(_ sample: SampleBuffer) throws(DisplayError) -> [DisplayFrame] {
        if firstTime == nil, sample.decodeTime.isNumeric { firstTime = sample.decodeTime.seconds }
        let frames = try run { session throws in try session.decode(sample) }
        if delay > 0 { clock.sleep(for: delay) }
        return frames
    }

    public func finish() throws(DisplayError) -> [DisplayFrame] {
        guard session != nil else { return [] }
        return try run { session throws in try session.finishDelayedFrames() }
    }

    public func reset() {
        session?.invalidate()
        session = nil
        firstTime = nil
        stamped = 0
    }

    private func run(_ body: (any VideoDecompressionSession) throws -> [DecodedFrame]) throws(DisplayError) -> [DisplayFrame] {
        do {
            let current: any VideoDecompressionSession
            if let session { current = session } else {
                current = try makeSession()
                session = current
            }
            return try body(current).flatMap { frame in
                deinterlace ? BobDeinterlacer.fields(of: stamp(frame), order: frame.fieldOrder) : [stamp(frame)]
            }
        } catch {
            throw DisplayError.decode("\(error)")
        }
    }

    private func stamp(_ frame: DecodedFrame) -> DisplayFrame {
        let given = frame.presentationTime
        // Multiplied, not summed, so that frame n is at exactly n durations (a screenshot time lands on it).
        let time = given.isNumeric ? given.seconds : (firstTime ?? 0) + Double(stamped) * frameDuration
        stamped += 1
        let duration = frame.pixelBuffer.duration.isNumeric ? frame.pixelBuffer.duration.seconds : frameDuration
        return DisplayFrame(pixelBuffer: frame.pixelBuffer, presentationTime: time, duration: duration)
    }
}
