import DecompressionSession
import Dispatch
import PixelConversion
import NALStream
import VideoAcceleration
import VTKMedia

/// `vtk roundtrip`'s decode and compare stages, each on a thread of its own (serial queues), so that the
/// next pictures encode while the last ones decode and are measured. Every stage takes its work in the
/// order it was given, so the records come out in the same order, with the same figures, as when the
/// stages ran one after the other. At most `depth` samples wait for the decoder and `depth` frames for
/// the comparison: memory stays bounded when a later stage is the slower one. `serial` runs each stage to
/// its end before the encoder goes on (the same work in the same order, one thing at a time): the
/// reference the pipelined run must equal.
final class RoundtripStages: Sendable {
    /// What the decode stage owns: touched only on its queue (under the lock, which it never waits for).
    private struct DecodeState {
        var decoder: (any VideoDecompressionSession)?
        var pending: [MediaTime: PixelBuffer] = [:]
        var bitsOf: [MediaTime: Int] = [:]
        var idrAt = Set<MediaTime>()
        var typeOf: [MediaTime: Character] = [:]
        var speed = StageSpeed()
        var totalBytes = 0
        var samplesDecoded = 0
        var failure: CommandFailure?
    }
    private struct QualityState {
        var records: [RoundtripCommand.FrameRecord] = []
        /// The reference in I420 when the source is NV12: memory kept from frame to frame.
        var scratch: PixelBuffer?
    }

    /// A decoded frame on its way to the comparison, with its source and what its sample said.
    private struct Decoded: Sendable {
        let original: PixelBuffer
        let decoded: PixelBuffer
        let bits: Int
        let idr: Bool
        let type: Character
    }

    /// What a run measured, once every stage is done.
    struct Results {
        let records: [RoundtripCommand.FrameRecord]
        let decodeSpeed: StageSpeed
        let totalBytes: Int
    }

    private let connection: VADisplayConnection
    private let wantSSIM: Bool
    private let serial: Bool
    /// Where measured source frames go back to be read into again (raw input), if anywhere.
    private let recycler: FrameRecycler?
    private let decodeQueue = DispatchQueue(label: "vtk.roundtrip.decode")
    private let qualityQueue = DispatchQueue(label: "vtk.roundtrip.quality")
    private let decodeSlots: DispatchSemaphore
    private let qualitySlots: DispatchSemaphore
    private let decodeState = Locked(DecodeState())
    private let qualityState = Locked(QualityState())
    /// Set by a failing stage: later work is skipped, and the encoding loop stops at its next picture.
    private let failed = Locked<CommandFailure?>(nil)

    init(decodeConnection: VADisplayConnection, ssim: Bool, depth: Int = 4, serial: Bool = false, recycler: FrameRecycler? = nil) {
        connection = decodeConnection
        wantSSIM = ssim
        self.serial = serial
        self.recycler = recycler
        decodeSlots = DispatchSemaphore(value: depth)
        qualitySlots = DispatchSemaphore(value: depth)
    }

    /// The first failure of a stage, if any (checked by the encoding loop between pictures).
    var failure: CommandFailure? { failed.withLock { $0 } }

    /// A source frame handed to the encoder: kept until its decoded frame is compared with it.
    func encoded(_ frame: PixelBuffer, at time: MediaTime) {
        // Measured in 8 bits, as the decoder outputs them (a 10-bit source is shifted down).
        let reference = frame.format.is10Bit ? PixelConverter.convert(frame, to: .i420) : frame
        run(on: decodeQueue) { [self] in decodeState.withLock { $0.pending[time] = reference } }
    }

    /// `work` on `queue`, in turn after what was given to it before; in a serial run, done before this returns.
    private func run(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        if serial { queue.sync(execute: work) } else { queue.async(execute: work) }
    }

    /// Decodes the encoder's samples in order (as they are: length-prefixed, with their format description).
    func decode(_ samples: [SampleBuffer]) {
        for sample in samples {
            decodeSlots.wait()
            run(on: decodeQueue) { [self] in
                defer { decodeSlots.signal() }
                let frames = decodeState.withLock { state -> [Decoded] in
                    guard state.failure == nil else { return [] }
                    do throws(CommandFailure) {
                        return try Self.decode(sample, state: &state, connection: connection)
                    } catch {
                        state.failure = error
                        failed.withLock { $0 = $0 ?? error }
                        return []
                    }
                }
                compare(frames)
            }
        }
    }

    /// Waits for every stage, after the decoder's delayed frames; the records in decode order, or the first failure.
    func finish() throws(CommandFailure) -> Results {
        let frames = decodeQueue.sync { () -> [Decoded] in
            decodeState.withLock { state in
                guard state.failure == nil else { return [] }
                do {
                    let delayed = try state.speed.time { () throws -> [DecodedFrame] in try state.decoder?.finishDelayedFrames() ?? [] }
                    state.speed.frames += delayed.count
                    return try Self.originals(of: delayed, state: &state)
                } catch {
                    let failure = error as? CommandFailure ?? CommandFailure(.device, "vtk roundtrip: \(error)")
                    state.failure = failure
                    failed.withLock { $0 = $0 ?? failure }
                    return []
                }
            }
        }
        compare(frames)
        qualityQueue.sync {}
        if let failure { throw failure }
        let (speed, bytes) = decodeState.withLock { ($0.speed, $0.totalBytes) }
        return Results(records: qualityState.withLock { $0.records }, decodeSpeed: speed, totalBytes: bytes)
    }

    /// Ends the decoder (after ``finish()``, or when the run stops early).
    func invalidate() {
        decodeQueue.sync { decodeState.withLock { $0.decoder?.invalidate() } }
    }

    /// Measures decoded frames against their sources on the compare stage, in the order given.
    private func compare(_ frames: [Decoded]) {
        for frame in frames {
            qualitySlots.wait()
            run(on: qualityQueue) { [self] in
                qualityState.withLock { state in
                    let quality = FrameQuality(reference: frame.original, decoded: frame.decoded, ssim: wantSSIM, scratch: &state.scratch)
                    state.records.append(RoundtripCommand.FrameRecord(index: state.records.count, bits: frame.bits, quality: quality,
                                                                      idr: frame.idr, type: frame.type))
                }
                recycler?.give(frame.original)
                qualitySlots.signal()
            }
        }
    }

    /// One sample through the decoder (timed), and the frames it gave with their sources.
    private static func decode(_ sample: SampleBuffer, state: inout DecodeState,
                               connection: VADisplayConnection) throws(CommandFailure) -> [Decoded] {
        state.totalBytes += sample.data.count
        state.bitsOf[sample.presentationTime] = sample.data.count
        if sample.isSync { state.idrAt.insert(sample.presentationTime) }
        state.typeOf[sample.presentationTime] = PictureType.of(sample)
        let frames: [DecodedFrame]
        do {
            if state.decoder == nil {
                if let hevc = sample.formatDescription?.hevc {
                    state.decoder = try H265DecompressionSession(formatDescription: hevc, connection: connection, outputFormat: .i420)
                } else {
                    state.decoder = try H264DecompressionSession(formatDescription: sample.formatDescription?.avc, connection: connection, outputFormat: .i420)
                }
            }
            let decoder = state.decoder
            frames = try state.speed.time { () throws -> [DecodedFrame] in try decoder?.decode(sample) ?? [] }
        } catch {
            throw CommandFailure(.device, "vtk roundtrip: decoding sample \(state.samplesDecoded): \(error)")
        }
        state.samplesDecoded += 1
        state.speed.frames += frames.count
        // A picture decoded but held for reordering is read back (and waited for) by a later call,
        // after other work ran: its decoding time was not seen.
        if state.speed.frames < state.samplesDecoded, state.speed.unmeasured == nil {
            state.speed.unmeasured = "the decoder held decoded pictures for reordering (B-frames, or no max_num_reorder_frames "
                + "in the stream), and finished them out of sight"
        }
        return try originals(of: frames, state: &state)
    }

    /// Pairs each decoded frame with the source frame of its presentation time, and its record so far.
    private static func originals(of frames: [DecodedFrame],
                                  state: inout DecodeState) throws(CommandFailure) -> [Decoded] {
        var out: [Decoded] = []
        for frame in frames {
            let time = frame.presentationTime
            guard let original = state.pending.removeValue(forKey: time) else {
                throw CommandFailure(.internalError, "vtk roundtrip: decoded a frame at \(time) that was never encoded")
            }
            out.append(Decoded(original: original, decoded: frame.pixelBuffer, bits: 8 * (state.bitsOf.removeValue(forKey: time) ?? 0),
                               idr: state.idrAt.remove(time) != nil, type: state.typeOf.removeValue(forKey: time) ?? "?"))
        }
        return out
    }
}
