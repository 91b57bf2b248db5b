import DecompressionSession
import Dispatch
import NALStream
import RTP
import VideoAcceleration
import VideoDisplay
import VTKMedia

/// A live RTP input for a player: an ``RTPReceiver`` (jitter buffer, loss handling, RTCP, decoding) on a
/// thread of its own, handing each decoded frame, stamped with its RTP time from the first frame received,
/// to the player's thread. The receiver, its decoder and its VA display live and die on that thread; only
/// frames and the outcome cross, through the lock.
public final class LiveRTPFeed: Sendable {
    /// How the reception ended.
    public struct Outcome: Sendable {
        public var report = ReceptionReport()
        public var statistics = DecodeStatistics()
        /// The receiver or decoder failed.
        public var error: RTPSessionError?
        /// The command the feed was started for, which messages name.
        public var command = ""

        public init(report: ReceptionReport = ReceptionReport(), statistics: DecodeStatistics = DecodeStatistics(),
                    error: RTPSessionError? = nil, command: String = "") {
            self.report = report
            self.statistics = statistics
            self.error = error
            self.command = command
        }
    }

    private struct State {
        var frames: [DisplayFrame] = []
        var port: Int?
        var stopRequested = false
        var outcome: Outcome?
    }

    public let codec: VideoCodec
    /// The command the feed serves ("play"), which messages name.
    public let command: String
    private let state = Locked(State())
    private let ended = DispatchSemaphore(value: 0)

    /// Starts receiving on `port` (0: the kernel picks; an SDP's description gives its payload type and
    /// parameter sets); returns once the sockets are bound (or the receiver failed before that).
    /// `outputFormat`: the frames' layout (NV12 for vaPutSurface; nil: I420, or yuv420p10 for 10-bit H.265).
    /// `settings.shouldStop` is asked besides ``stop()``.
    public init(port: Int, description: SessionDescription?, codec: VideoCodec, settings: ReceiverSettings, device: VADeviceChoice,
                outputFormat: PixelFormat?, command: String) {
        self.codec = codec
        self.command = command
        var settings = settings
        let outer = settings.shouldStop
        settings.shouldStop = { [unowned self] in state.withLock { $0.stopRequested } || outer?() == true }
        let bound = DispatchSemaphore(value: 0)
        let work = Reception(feed: self, port: port, description: description, settings: settings, device: device, outputFormat: outputFormat) {
            bound.signal()
        }
        let started = DetachedThread.start { [self] in
            finish(try? RTPCodecs.run(work, for: codec))
            bound.signal()
        }
        if started { bound.wait() } else { finish(nil) }
    }

    /// The receiver's outcome (an empty one when it never ran), for ``stop()``.
    private func finish(_ result: Outcome?) {
        var outcome = result ?? Outcome()
        outcome.command = command
        state.withLock { $0.outcome = outcome }
        ended.signal()
    }

    /// The UDP port RTP arrives on (RTCP on the next); nil when the receiver could not listen.
    public var port: Int? { state.withLock { $0.port } }

    /// The frames decoded since the last call, in display order.
    public func takeFrames() -> [DisplayFrame] {
        state.withLock { s in
            defer { s.frames.removeAll(keepingCapacity: true) }
            return s.frames
        }
    }

    /// True once the reception ended (BYE, timeout, failure or ``stop()``) and every frame was taken.
    public var isFinished: Bool { state.withLock { $0.outcome != nil && $0.frames.isEmpty } }

    /// Ends the reception (if it still runs) and waits for the receiving thread; returns how it went.
    public func stop() -> Outcome {
        state.withLock { $0.stopRequested = true }
        ended.wait()
        ended.signal()  // a second stop() returns at once
        return state.withLock { $0.outcome ?? Outcome(command: command) }
    }

    // MARK: The receiving thread

    private func listening(on port: Int) { state.withLock { $0.port = port } }
    private func append(_ frame: DisplayFrame) { state.withLock { $0.frames.append(frame) } }
    private var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// One reception, run with the codec's static type on the receiving thread.
    private struct Reception: RTPCodecWork, Sendable {
        let feed: LiveRTPFeed
        let port: Int
        let description: SessionDescription?
        let settings: ReceiverSettings
        let device: VADeviceChoice
        let outputFormat: PixelFormat?
        let bound: @Sendable () -> Void

        func run<Codec: RTPCodec>(_ codec: Codec.Type) -> Outcome {
            let connection: VADisplayConnection
            do { connection = try VADisplayConnection.open(device) } catch {
                return Outcome(error: RTPSessionError(.device, "cannot open VA device '\(device)': \(error)"))
            }
            let decoder: RTPPictureDecoder<Codec>
            do { decoder = try RTPPictureDecoder(connection: connection, outputFormat: outputFormat) } catch {
                return Outcome(error: RTPSessionError(.device, "\(error)"))
            }
            defer { decoder.invalidate() }
            let receiver: RTPReceiver<Codec>
            do { receiver = try RTPReceiver(port: port, description: description, settings: settings, decoder: decoder) } catch {
                return Outcome(error: Self.sessionError(error))
            }
            feed.listening(on: receiver.port)
            bound()
            var last: DisplayFrame?
            var error: RTPSessionError?
            do {
                try receiver.run { decoded in
                    // The frame lasts the stream's VUI frame period, else the sender's pacing, else 1/30 s.
                    let vuiPeriod = decoder.frameRate.flatMap { $0.0 > 0 ? MediaTime(value: Int64($0.1), timescale: Int32(clamping: $0.0)) : nil }
                    let duration = decoded.image.duration.isNumeric ? decoded.image.duration
                        : vuiPeriod ?? receiver.frameStep ?? MediaTime(value: 1, timescale: 30)
                    let time = decoded.presentationTime.isNumeric ? decoded.presentationTime : (last.map { $0.presentationTime + $0.duration } ?? .zero)
                    let frame = DisplayFrame(image: decoded.image, presentationTime: time, duration: duration)
                    last = frame
                    feed.append(frame)
                }
            } catch let failure {
                error = Self.sessionError(failure)
            }
            if error == nil, receiver.report.packets == 0, !feed.stopRequested {
                error = RTPSessionError(.input, "no RTP packets arrived on port \(receiver.port)")
            }
            return Outcome(report: receiver.report, statistics: decoder.statistics, error: error)
        }

        static func sessionError(_ error: any Error) -> RTPSessionError {
            (error as? RTPSessionError) ?? RTPSessionError(.device, "\(error)")
        }
    }
}
