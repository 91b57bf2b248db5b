import Dispatch
import H264Bitstream
import VideoAcceleration
import VTKMedia

/// Decoding through VA-API, shaped like VideoToolbox's VTDecompressionSession, for any codec that brings
/// its assembler, decoding process and accelerator (``H264DecompressionSession`` for H.264,
/// ``H265DecompressionSession`` for H.265).
///
/// Create it from a format description (or nil when the parameter sets come in band), then hand it samples
/// in decoding order: synchronously with ``decode(_:)``, which returns the frames that became ready, or
/// asynchronously with ``decodeAsync(_:)``, whose frames arrive through the output handler and ``frames``.
/// Frames come out in display order as pixel buffers of the display (cropped) size, carrying the
/// sample's presentation time. New parameter sets that change the size or profile drain the old pictures
/// and re-create the VA context; nothing is lost. Every call may come from any thread: the decoding state
/// is under one lock, which is not held while frames are handed to the output handler.
public final class VADecompressionSession<Codec: DecompressionCodec>: @unchecked Sendable {
    public typealias AccessUnit = Codec.Assembler.AccessUnit
    typealias PictureID = Codec.Process.Request.Picture.ID

    public let connection: VADisplayConnection
    public let outputFormat: PixelFormat
    public var formatDescription: Codec.Format? { lock.withLock { format } }
    public var statistics: DecodeStatistics { lock.withLock { counts } }

    /// 0 (the default): frames carry their pixels, read back in ``outputFormat`` as they are output. n > 0:
    /// frames carry the VA surface they were decoded into (``DecodedFrame/surface``), read back only when
    /// asked, and hold it until dropped; the pool has n surfaces more for them, and decoding fails clearly
    /// (``DecompressionError/device(_:)``) when more than n are held at once. Set it before the first sample.
    public var surfaceFrameLimit: Int {
        get { lock.withLock { lendable } }
        set { lock.withLock { lendable = max(0, newValue) } }
    }

    /// false (the default): holding more than ``surfaceFrameLimit`` surface frames at once makes decoding fail.
    /// true: a frame output while that many are held carries its pixels instead (read back at once), so decoding
    /// never fails for want of a surface: for callers that drop each frame soon (`vtk decode` writing the
    /// mapped surface out).
    public var surfaceFramesFallBackToPixels: Bool {
        get { lock.withLock { fallsBackToPixels } }
        set { lock.withLock { fallsBackToPixels = newValue } }
    }

    // Everything below that is `var` is touched only holding `lock` (what makes the class Sendable).
    private let lock = Lock()
    private var format: Codec.Format?
    private var counts = DecodeStatistics()
    private var lendable = 0
    private var fallsBackToPixels = false

    private let accelerator: any VADecodingAccelerator<Codec>
    /// Pictures the driver failed to decode, flagged damaged when output.
    private var failedPictures = Set<PictureID>()
    /// Pictures decoded and not yet released by the decoding process: none after the final flush.
    private var heldPictures = Set<PictureID>()
    private var process = Codec.Process()
    private var assembler = Codec.Assembler()
    private var crop = (x: 0, y: 0, width: 0, height: 0)
    /// The format description of the last sample that carried one.
    private var sampleFormat: Codec.Format?
    private var isInvalidated = false
    private let queue = DispatchQueue(label: "vtk.decompression")
    private let group = DispatchGroup()
    private var stream: AsyncStream<DecodedFrame>?
    private var continuation: AsyncStream<DecodedFrame>.Continuation?
    private var handler: (@Sendable (Result<DecodedFrame, Error>) -> Void)?

    /// Called for each frame decoded through ``decodeAsync(_:)`` (and for errors).
    public var outputHandler: (@Sendable (Result<DecodedFrame, Error>) -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    /// Frames from ``decodeAsync(_:)``, in display order; ends at ``invalidate()``. Made at the first ask.
    public var frames: AsyncStream<DecodedFrame> {
        lock.withLock {
            if let stream { return stream }
            let (made, continuation) = AsyncStream.makeStream(of: DecodedFrame.self)
            stream = made
            self.continuation = continuation
            return made
        }
    }

    /// The codec's public initialisers check the profile, then make their accelerator and call this.
    init(formatDescription: Codec.Format?, connection: VADisplayConnection, outputFormat: PixelFormat,
         accelerator: any VADecodingAccelerator<Codec>) {
        self.connection = connection
        self.outputFormat = outputFormat
        self.accelerator = accelerator
        if let formatDescription {
            format = formatDescription
            for unit in Codec.parameterSets(of: formatDescription) { _ = assembler.push(unit) }
            _ = assembler.finish()
            sampleFormat = formatDescription
        }
    }

    /// "vtksoft (vtksoft ...)" or "/dev/dri/renderD128 (Intel iHD driver ...)".
    public var deviceDescription: String { "\(connection.devicePath) (\(connection.vendor))" }

    /// Decodes one sample (one access unit) and returns the frames it made ready, in display order.
    // Specialised for each codec: the caller (`vtk decode`, a player) holds the codec only as a generic parameter, and
    // unspecialised, every picture would pay for generic metadata look-ups, Set<ID> and event copies through witnesses.
    @_specialize(where Codec == H264Codec)
    @_specialize(where Codec == H265Codec)
    public func decode(_ sample: SampleBuffer) throws -> [DecodedFrame] {
        try lock.withLock { try decodeLocked(sample) }
    }

    private func decodeLocked(_ sample: SampleBuffer) throws -> [DecodedFrame] {
        // A sample whose format description is new brings its parameter sets, as an encoder's samples do.
        if let format = Codec.format(of: sample), format != sampleFormat {
            sampleFormat = format
            for unit in Codec.parameterSets(of: format) { _ = assembler.push(unit) }
        }
        let units: [NALUnit]
        do { units = try sample.nalUnits() } catch {
            record("sample at \(sample.presentationTime): \(error)")
            counts.accessUnitsSkipped += 1
            return []
        }
        var frames: [DecodedFrame] = []
        for unit in units { if let au = assembler.push(unit) { frames += try decodeLocked(accessUnit: au, presentationTime: sample.presentationTime) } }
        for au in assembler.finish() { frames += try decodeLocked(accessUnit: au, presentationTime: sample.presentationTime) }
        return frames
    }

    /// Decodes one access unit (from the codec's assembler, e.g. for an Annex B stream).
    @_specialize(where Codec == H264Codec)
    @_specialize(where Codec == H265Codec)
    public func decode(accessUnit: AccessUnit, presentationTime: MediaTime = .invalid) throws -> [DecodedFrame] {
        try lock.withLock { try decodeLocked(accessUnit: accessUnit, presentationTime: presentationTime) }
    }

    private func decodeLocked(accessUnit: AccessUnit, presentationTime: MediaTime) throws -> [DecodedFrame] {
        guard !isInvalidated else { throw DecompressionError.invalidated }
        guard accessUnit.hasPicture else {
            for problem in accessUnit.problems { record("byte \(accessUnit.offset): \(problem)") }
            return []
        }
        counts.accessUnits += 1
        return try run(process.decode(accessUnit, presentationTime: presentationTime))
    }

    /// Outputs the frames still held for reordering (end of stream), like
    /// VTDecompressionSessionFinishDelayedFrames.
    @_specialize(where Codec == H264Codec)
    @_specialize(where Codec == H265Codec)
    public func finishDelayedFrames() throws -> [DecodedFrame] {
        try lock.withLock {
            guard !isInvalidated else { return [] }
            let frames = try run(process.flush())
            // The process's own invariant: every picture it decodes it releases. One it lost is a decoder bug that
            // would otherwise pass in silence (a frame missing, and its surface held): say so, and free the surfaces.
            if !heldPictures.isEmpty {
                record("the decoding process never output or released \(heldPictures.count) decoded picture(s): frames may be missing (a vtk bug)")
                for id in heldPictures { accelerator.release(id) }
                heldPictures.removeAll()
            }
            return frames
        }
    }

    // MARK: Asynchronous use

    /// Queues a sample; its frames go to ``outputHandler`` and ``frames``.
    public func decodeAsync(_ sample: SampleBuffer) {
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            deliver { try decode(sample) }
        }
    }

    /// Queues the end of the stream: the delayed frames are delivered.
    public func finishDelayedFramesAsync() {
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            deliver { try finishDelayedFrames() }
        }
    }

    /// Blocks until every queued sample has been decoded and delivered.
    public func waitForAsynchronousFrames() {
        group.wait()
    }

    /// Runs `work` (which takes the lock itself), then hands its frames on outside the lock, so that a
    /// handler may call the session.
    private func deliver(_ work: () throws -> [DecodedFrame]) {
        let result = Result { try work() }
        let (handler, continuation) = lock.withLock { (self.handler, self.continuation) }
        switch result {
        case .success(let frames):
            for frame in frames {
                handler?(.success(frame))
                continuation?.yield(frame)
            }
        case .failure(let error):
            handler?(.failure(error))
        }
    }

    /// Releases the VA objects; later calls fail with ``DecompressionError/invalidated``.
    public func invalidate() {
        waitForAsynchronousFrames()
        let continuation: AsyncStream<DecodedFrame>.Continuation? = lock.withLock {
            guard !isInvalidated else { return nil }
            isInvalidated = true
            accelerator.releaseAll()
            accelerator.shutdown()
            return self.continuation
        }
        continuation?.finish()
    }

    deinit { accelerator.shutdown() }

    // MARK: Events of the decoding process

    private func run(_ events: [Codec.Process.Event]) throws -> [DecodedFrame] {
        var frames: [DecodedFrame] = []
        for event in events {
            switch event {
            case let .newSequence(format, dpbCapacity):
                self.format = format
                crop = format.cleanAperture
                // The DPB, the picture being decoded, and one picture being read back.
                accelerator.decoder.lendable = lendable
                try accelerator.configure(format: format, surfaceCount: dpbCapacity + 2)
            case .decode(let request):
                heldPictures.insert(request.picture.id)
                // A driver that refuses one picture (a decoding error on damaged data) must not stop the
                // session or strand its surface: the picture is flagged, and the events after it still run.
                do {
                    try accelerator.decode(request)
                    counts.picturesDecoded += 1
                } catch let error as VAError {
                    failedPictures.insert(request.picture.id)
                    record("picture \(request.picture.decodeIndex) at byte \(request.firstSliceOffset): \(error)")
                }
            case .output(let picture):
                if let frame = output(picture) { frames.append(frame) }
            case .discarded:
                counts.framesDiscarded += 1
            case .released(let id):
                heldPictures.remove(id)
                failedPictures.remove(id)
                accelerator.release(id)
            case .problem(let problem):
                if Codec.skipsAccessUnit(problem) { counts.accessUnitsSkipped += 1 }
                if let note = Codec.note(for: problem) {
                    if counts.notes.count < 100 { counts.notes.append(note) }
                } else {
                    record(problem.description)
                }
            }
        }
        return frames
    }

    /// Reads a picture back straight into the output format (one pass over the pixels, not a copy then a
    /// conversion), or lends its surface to the frame (``surfaceFrameLimit``); nil when that fails (the frame
    /// is dropped and the problem recorded).
    private func output(_ picture: Codec.Process.Request.Picture) -> DecodedFrame? {
        let failed = failedPictures.remove(picture.id) != nil
        let image: FrameImage
        do {
            let surface = try accelerator.picture(picture.id, crop: crop)
            if lendable > 0, let pool = accelerator.decoder.surfacePool,
               !fallsBackToPixels || accelerator.decoder.framesHoldingSurfaces < lendable {
                image = .surface(DecodedSurface(picture: surface, pool: pool, format: outputFormat, presentationTime: picture.presentationTime))
            } else {
                var pixels = try surface.read(as: outputFormat)
                pixels.presentationTime = picture.presentationTime
                image = .pixels(pixels)
            }
        } catch {
            record("picture \(picture.decodeIndex): reading it back failed: \(error)")
            counts.framesDropped += 1
            return nil
        }
        // The driver may have met errors the bitstream layer could not see (damaged slice data)
        // and concealed them: such a picture is not passed off as right.
        var concealed = false
        if let count = accelerator.macroblocksInError(picture.id), count > 0 {
            concealed = true
            process.markDamaged(picture.id)
            record("picture \(picture.decodeIndex): the decoder concealed errors in \(count) \(Codec.blockName)(s)")
        }
        let damaged = picture.isDamaged || failed || concealed
        counts.framesOutput += 1
        if damaged { counts.damagedFrames += 1 }
        return DecodedFrame(image: image, isDamaged: damaged, decodeIndex: picture.decodeIndex, fieldOrder: picture.fieldOrder)
    }

    /// Adds a problem found outside the session (by the container reader, say) to its statistics.
    public func noteProblem(_ problem: String) { lock.withLock { record(problem) } }

    /// Counts a surface frame whose pixels could not be read back by the caller as the session counts one it
    /// could not read back itself: dropped, not output, and a problem.
    public func noteReadbackFailure(of frame: DecodedFrame, _ error: Error) {
        lock.withLock {
            record("picture \(frame.decodeIndex): reading it back failed: \(error)")
            counts.framesDropped += 1
            counts.framesOutput -= 1
            if frame.isDamaged { counts.damagedFrames -= 1 }
        }
    }

    private func record(_ problem: String) {
        counts.problemCount += 1
        if counts.problems.count < 100 { counts.problems.append(problem) }
    }
}
