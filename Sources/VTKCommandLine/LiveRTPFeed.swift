import DecompressionSession
import H264Bitstream
import H265Bitstream
import Dispatch
import Foundation
import VideoAcceleration
import VideoDisplay
import VTKMedia

/// The live input of `vtk play rtp://…` or `vtk play FILE.sdp`: `vtk receive`'s receiver (jitter buffer, loss
/// handling, RTCP, decoding) on a thread of its own, handing each decoded frame, stamped with its RTP time
/// from the first frame received, to the player's thread. The receiver, its decoder and its VA display live
/// and die on that thread; only frames and the outcome cross, through the lock.
final class LiveRTPFeed: Sendable {
    /// How the reception ended.
    struct Outcome: Sendable {
        var report = ReceiveReport()
        var statistics = DecodeStatistics()
        /// The receiver or decoder failed (exit code and message as `vtk receive` gives them).
        var failure: CommandFailure?
    }

    private struct State {
        var frames: [DisplayFrame] = []
        var port: Int?
        var stopRequested = false
        var outcome: Outcome?
    }

    let codec: VideoCodec
    private let state = Locked(State())
    private let ended = DispatchSemaphore(value: 0)

    /// Starts receiving; returns once the sockets are bound (or the receiver failed before that).
    /// `outputFormat`: the frames' layout (NV12 for vaPutSurface; nil: I420, or yuv420p10 for 10-bit H.265).
    init(source: RTPSource, settings: ReceiverSettings, device: VADeviceChoice, outputFormat: PixelFormat?, command: String) {
        codec = source.codec
        var settings = settings
        settings.shouldStop = { [unowned self] in state.withLock { $0.stopRequested } }
        let bound = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self, settings] in
            let outcome = receive(source: source, settings: settings, device: device, outputFormat: outputFormat, command: command) { bound.signal() }
            state.withLock { $0.outcome = outcome }
            bound.signal()
            ended.signal()
        }
        bound.wait()
    }

    /// The UDP port RTP arrives on (RTCP on the next); nil when the receiver could not listen.
    var port: Int? { state.withLock { $0.port } }

    /// The frames decoded since the last call, in display order.
    func takeFrames() -> [DisplayFrame] {
        state.withLock { s in
            defer { s.frames.removeAll(keepingCapacity: true) }
            return s.frames
        }
    }

    /// True once the reception ended (BYE, timeout, failure or ``stop()``) and every frame was taken.
    var isFinished: Bool { state.withLock { $0.outcome != nil && $0.frames.isEmpty } }

    /// Ends the reception (if it still runs) and waits for the receiving thread; returns how it went.
    func stop() -> Outcome {
        state.withLock { $0.stopRequested = true }
        ended.wait()
        ended.signal()  // a second stop() returns at once
        return state.withLock { $0.outcome ?? Outcome() }
    }

    // MARK: The receiving thread

    private func receive(source: RTPSource, settings: ReceiverSettings, device: VADeviceChoice, outputFormat: PixelFormat?, command: String,
                         listening: () -> Void) -> Outcome {
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch {
            return Outcome(failure: CommandFailure(.device, "vtk \(command): cannot open VA device '\(device)': \(error)"))
        }
        do {
            switch source.codec {
            case .h264:
                let decoder = try H264RTPDecoder(connection: connection, outputFormat: outputFormat ?? .i420)
                defer { decoder.invalidate() }
                return receive(source: source, settings: settings, decoder: decoder, command: command, listening: listening)
            default:
                let decoder = H265RTPDecoder(connection: connection, outputFormat: outputFormat)
                defer { decoder.invalidate() }
                return receive(source: source, settings: settings, decoder: decoder, command: command, listening: listening)
            }
        } catch {
            return Outcome(failure: CommandFailure(.device, "vtk \(command): \(error)"))
        }
    }

    private func receive<Decoder: RTPPictureDecoder>(source: RTPSource, settings: ReceiverSettings, decoder: Decoder, command: String,
                                                     listening: () -> Void) -> Outcome {
        let receiver: RTPReceiver<Decoder>
        do { receiver = try RTPReceiver(port: source.port, description: source.description, settings: settings, decoder: decoder, command: command) } catch {
            return Outcome(failure: error)
        }
        state.withLock { $0.port = receiver.port }
        listening()
        var last: DisplayFrame?
        var failure: CommandFailure?
        do throws(CommandFailure) {
            try receiver.run { decoded throws(CommandFailure) in
                // The frame lasts the stream's VUI frame period, else the sender's pacing, else 1/30 s.
                let duration = decoded.pixelBuffer.duration.isNumeric ? decoded.pixelBuffer.duration.seconds
                    : decoder.frameRate.map { Double($0.1) / Double($0.0) } ?? receiver.frameStep ?? 1.0 / 30
                let time = decoded.presentationTime.isNumeric ? decoded.presentationTime.seconds : (last.map { $0.presentationTime + $0.duration } ?? 0)
                let frame = DisplayFrame(pixelBuffer: decoded.pixelBuffer, presentationTime: time, duration: duration)
                last = frame
                self.state.withLock { $0.frames.append(frame) }
            }
        } catch {
            failure = error
        }
        if failure == nil, receiver.report.packets == 0, !state.withLock({ $0.stopRequested }) {
            failure = CommandFailure(.input, "vtk \(command): no RTP packets arrived on port \(receiver.port)")
        }
        return Outcome(report: receiver.report, statistics: decoder.statistics, failure: failure)
    }
}
