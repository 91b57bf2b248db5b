import H264Bitstream
import H265Bitstream
import H265Decoding
import VideoAcceleration
import VTKMedia

/// H.265 decoding through VA-API, shaped like ``DecompressionSession`` (and VideoToolbox's
/// VTDecompressionSession made from CMVideoFormatDescriptionCreateFromHEVCParameterSets).
///
/// Hand it access units (``decode(accessUnit:presentationTime:)``) or samples in decoding order; frames
/// come out in display order, cropped to the conformance window: NV12 or I420 for 8-bit streams, and for
/// Main 10 whatever `outputFormat` asks (P010, yuv420p10, or 8-bit layouts shifted down).
public final class H265DecompressionSession: @unchecked Sendable {
    public let connection: VADisplayConnection
    public let outputFormat: PixelFormat
    public private(set) var formatDescription: H265FormatDescription?
    public private(set) var statistics = DecodeStatistics()

    private let accelerator: H265VAAccelerator
    private var failedPictures = Set<H265PictureID>()
    private var process = H265DecodingProcess()
    private var assembler = H265AccessUnitAssembler()
    private var crop = (x: 0, y: 0, width: 0, height: 0)
    private var isInvalidated = false

    public init(formatDescription: H265FormatDescription?, connection: VADisplayConnection, outputFormat: PixelFormat = .nv12) throws {
        self.connection = connection
        self.outputFormat = outputFormat
        accelerator = H265VAAccelerator(connection: connection)
        if let formatDescription {
            _ = try H265VAAccelerator.profile(for: formatDescription.sps)
            self.formatDescription = formatDescription
            for unit in formatDescription.videoParameterSets + formatDescription.sequenceParameterSets + formatDescription.pictureParameterSets {
                _ = assembler.push(unit)
            }
            _ = assembler.finish()
        }
    }

    public var deviceDescription: String { "\(connection.devicePath) (\(connection.vendor))" }

    /// Decodes one sample (one access unit) and returns the frames it made ready, in display order.
    public func decode(_ sample: SampleBuffer) throws -> [DecodedFrame] {
        let units: [NALUnit]
        do { units = try sample.nalUnits() } catch {
            record("sample at \(sample.presentationTime): \(error)")
            statistics.accessUnitsSkipped += 1
            return []
        }
        var frames: [DecodedFrame] = []
        for unit in units { if let au = assembler.push(unit) { frames += try decode(accessUnit: au, presentationTime: sample.presentationTime) } }
        for au in assembler.finish() { frames += try decode(accessUnit: au, presentationTime: sample.presentationTime) }
        return frames
    }

    /// Decodes one access unit (from ``H265AccessUnitAssembler``).
    public func decode(accessUnit: H265AccessUnit, presentationTime: MediaTime = .invalid) throws -> [DecodedFrame] {
        guard !isInvalidated else { throw DecompressionError.invalidated }
        guard accessUnit.hasPicture else {
            for problem in accessUnit.problems { record("byte \(accessUnit.offset): \(problem)") }
            return []
        }
        statistics.accessUnits += 1
        return try run(process.decode(accessUnit, presentationTime: presentationTime))
    }

    /// Outputs the frames still held for reordering (end of stream).
    public func finishDelayedFrames() throws -> [DecodedFrame] {
        guard !isInvalidated else { return [] }
        return try run(process.flush())
    }

    /// Releases the VA objects; later calls fail with ``DecompressionError/invalidated``.
    public func invalidate() {
        guard !isInvalidated else { return }
        isInvalidated = true
        accelerator.releaseAll()
        accelerator.shutdown()
    }

    deinit { accelerator.shutdown() }

    /// True when the stream is 10-bit (frames come in the 10-bit layouts unless asked otherwise).
    public var isTenBit: Bool { (formatDescription?.bitDepth ?? 8) > 8 }

    public func noteProblem(_ problem: String) { record(problem) }

    private func run(_ events: [H265DecoderEvent]) throws -> [DecodedFrame] {
        var frames: [DecodedFrame] = []
        for event in events {
            switch event {
            case let .newSequence(format, dpbCapacity):
                formatDescription = format
                crop = format.cleanAperture
                // The DPB (the current picture included) and one picture being read back.
                try accelerator.configure(format: format, surfaceCount: dpbCapacity + 2)
            case .decode(let request):
                do {
                    try accelerator.decode(request)
                    statistics.picturesDecoded += 1
                } catch let error as VAError {
                    failedPictures.insert(request.picture.id)
                    record("picture \(request.picture.decodeIndex) at byte \(request.slices.first?.segment.nalUnit.offset ?? 0): \(error)")
                }
            case .output(let picture):
                let failed = failedPictures.remove(picture.id) != nil
                var pixels: PixelBuffer
                do { pixels = try accelerator.read(picture.id, crop: crop, format: outputFormat) } catch {
                    record("picture \(picture.decodeIndex): reading it back failed: \(error)")
                    statistics.framesDropped += 1
                    continue
                }
                pixels.presentationTime = picture.presentationTime
                var concealed = false
                if let count = accelerator.macroblocksInError(picture.id), count > 0 {
                    concealed = true
                    process.markDamaged(picture.id)
                    record("picture \(picture.decodeIndex): the decoder concealed errors in \(count) block(s)")
                }
                let damaged = picture.isDamaged || failed || concealed
                statistics.framesOutput += 1
                if damaged { statistics.damagedFrames += 1 }
                frames.append(DecodedFrame(pixelBuffer: pixels, isDamaged: damaged, decodeIndex: picture.decodeIndex))
            case .discarded:
                statistics.framesDiscarded += 1
            case .released(let id):
                failedPictures.remove(id)
                accelerator.release(id)
            case .problem(.skippedRASL(let offset, let poc)):
                // Not a problem: a decoder starting at a CRA must skip them (8.1.3); reported, not counted.
                statistics.accessUnitsSkipped += 1
                if statistics.notes.count < 100 { statistics.notes.append("RASL picture at byte \(offset) (POC \(poc)) skipped: decoding started at its CRA") }
            case .problem(let problem):
                switch problem {
                case .waitingForKeyframe, .unsupportedStream: statistics.accessUnitsSkipped += 1
                default: break
                }
                record(problem.description)
            }
        }
        return frames
    }

    private func record(_ problem: String) {
        statistics.problemCount += 1
        if statistics.problems.count < 100 { statistics.problems.append(problem) }
    }
}
