import DecompressionSession
import H264Bitstream
import VTKMedia

/// A compressed sample as the layer queues it: a sample buffer, or an access unit already assembled from a
/// byte stream (which the decoder takes as it is, not assembled again), with the sample's times in `sample`.
public struct PlaybackSample: Sendable {
    /// The sample; for an access unit, its times and sync flag (and no data).
    public var sample: SampleBuffer
    /// The codec's access unit (H264Bitstream's `AccessUnit`, H265Bitstream's `H265AccessUnit`), when the
    /// sample is one.
    public var accessUnit: (any Sendable)?

    public init(_ sample: SampleBuffer, accessUnit: (any Sendable)? = nil) {
        self.sample = sample
        self.accessUnit = accessUnit
    }

    public var presentationTime: MediaTime { sample.presentationTime }
    public var decodeTime: MediaTime { sample.decodeTime }
    public var duration: MediaTime { sample.duration }
    public var isSync: Bool { sample.isSync }
}

/// What turns the layer's compressed samples into frames, in display order (a decompression session).
public protocol SampleDecoding: AnyObject {
    /// Frames made ready by `sample` (none while the decoder reorders).
    func decode(_ sample: SampleBuffer) throws(DisplayError) -> [DisplayFrame]
    /// The same for a sample that may be an access unit already assembled.
    func decode(_ sample: PlaybackSample) throws(DisplayError) -> [DisplayFrame]
    /// The frames still held for reordering (end of stream).
    func finish() throws(DisplayError) -> [DisplayFrame]
    /// Forgets everything decoded: the next sample is a sync sample (after a seek).
    func reset() throws(DisplayError)
}

extension SampleDecoding {
    /// A decoder of sample buffers only.
    public func decode(_ sample: PlaybackSample) throws(DisplayError) -> [DisplayFrame] {
        guard sample.accessUnit == nil else { throw DisplayError.decode("this decoder takes sample buffers, not access units") }
        return try decode(sample.sample)
    }
}

/// A decompression session (H.264 or H.265) as the layer's decoder. Frames without a presentation time
/// (an Annex B stream's) get consecutive times, one frame duration apart, from the time of the first sample
/// after a reset: its presentation time (for an Annex B sync sample, the time of the first picture decoding
/// from it shows), else its decode time. The frames come out in display order (the decoder's own POC order
/// and bumping), so no other pass over the stream is needed to time them.
/// `delay` slows each decode on purpose (the drop tests).
public final class SessionSampleDecoder: SampleDecoding {
    private let makeSession: () throws -> any VideoDecompressionSession
    private var session: (any VideoDecompressionSession)?
    /// How long a frame lasts when the decoder does not say; frame n after a reset is at first + n of them, exactly.
    private let frameDuration: MediaTime
    private let delay: Double
    private let clock: any HostClock
    /// Bob-deinterlace interlaced frames: two pictures per frame, one per field.
    private let deinterlace: Bool
    /// The time of the first frame after a reset, and how many frames were stamped since.
    private var firstTime: MediaTime?
    private var stamped = 0

    /// `frameDuration` exact (a stream's 1001/30000 s): frames without a time of their own are stamped at exact
    /// multiples of it.
    public init(frameDuration: MediaTime, delay: Double = 0, deinterlace: Bool = false, clock: any HostClock,
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
        try decode(PlaybackSample(sample))
    }

    public func decode(_ sample: PlaybackSample) throws(DisplayError) -> [DisplayFrame] {
        if firstTime == nil {
            if sample.accessUnit != nil, sample.presentationTime.isNumeric { firstTime = sample.presentationTime }
            else if sample.decodeTime.isNumeric { firstTime = sample.decodeTime }
        }
        let frames = try run { session throws in
            if let unit = sample.accessUnit { return try session.decode(assembled: unit, presentationTime: .invalid) }
            return try session.decode(sample.sample)
        }
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
        // Multiplied, not summed, so that frame n is at exactly n durations (a screenshot time lands on it).
        let time = frame.presentationTime.isNumeric ? frame.presentationTime : (firstTime ?? .zero) + frameDuration * Int64(stamped)
        stamped += 1
        // A surface-backed frame is not read back here: its pixels stay in the surface until a presenter needs them.
        let duration = frame.image.duration.isNumeric ? frame.image.duration : frameDuration
        return DisplayFrame(image: frame.image, presentationTime: time, duration: duration)
    }
}
