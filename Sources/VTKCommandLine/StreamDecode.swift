import DecompressionSession
import MP4
import VideoAcceleration
import VTKMedia
import Y4M

/// `vtk decode` of one codec's stream, written once for every codec: what differs per codec (assembler,
/// session, bit depth, refusals and warnings, how a quick scan finds pictures) comes from `Codec`.
/// 10-bit streams (H.265 Main 10) give 10-bit frames: Y4M C420p10, raw yuv420p10le (default) or p010,
/// checksums over yuv420p10le, PNG shifted to 8 bits.
enum StreamDecode<Codec: StreamDecodingCodec> {
    typealias Session = VADecompressionSession<Codec>
    static var name: String { DecodeCommand.name }
    static var codecName: String { Codec.videoCodec.name }

    // Specialised per codec: `vtk decode` opens the codec type at run time, and its per-frame work would otherwise run as
    // unspecialised generic code.
    @_specialize(where Codec == H264Codec)
    @_specialize(where Codec == H265Codec)
    static func run(_ options: DecodeOptions, input: InputFile) throws(CommandFailure) -> ExitCode {
        let parsed = options.parsed
        if let message = input.signature?.notMessage(input.displayName, codec: Codec.videoCodec) {
            throw CommandFailure(.input, "vtk decode: \(message)")
        }
        if !Codec.decodesTenBit, let format = options.pixelFormat, format.is10Bit {
            throw CommandFailure(.usage, "vtk decode: --pix-fmt \(parsed["pix-fmt"] ?? "") is a 10-bit layout, for H.265 Main 10 streams; "
                                 + "\(input.displayName) is \(codecName)")
        }
        let mp4 = try MP4Input.open(input, command: name)
        let mp4Format = mp4?.format.flatMap(Codec.format)
        if let mp4, mp4Format == nil, Codec.needsRecordParameterSets {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): the MP4 track has no parameter sets in its "
                                 + Codec.videoCodec.configurationRecordType)
        }
        if let mp4Format, let why = Codec.refusal(for: mp4Format) {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): unsupported format: \(why)")
        }
        let progress = ProgressLine(label: "decode", quiet: options.quiet)
        // How many frames to expect (for the progress line), and whether the size changes (Y4M cannot).
        var expectedFrames: Int?
        if let mp4 {
            expectedFrames = mp4.reader.isFragmented ? nil : mp4.reader.track.sampleCount
        } else if input.path != "-" && (options.y4mOutput != nil || progress.isShown) {
            let scan = try StreamScan(path: input.path, codec: Codec.self, command: name)
            expectedFrames = scan.pictures
            if options.y4mOutput != nil, let change = scan.sizeChange, let before = scan.picturesBeforeChange, options.frameLimit ?? Int.max > before {
                throw CommandFailure(.usage, "vtk decode: \(input.displayName) changes size (\(change)), and a Y4M file has one size; "
                                     + "write raw frames (-o frames.yuv), pictures (--png-dir DIR), or the first \(before) frames (-n \(before))")
            }
        }
        if let limit = options.frameLimit { expectedFrames = min(expectedFrames ?? limit, limit) }

        let connection: VADisplayConnection
        do {
            connection = try Codec.deviceJob.map { job in try VADisplayConnection.open(options.device, for: job) }
                ?? VADisplayConnection.open(options.device)
        } catch {
            throw CommandFailure(.device, "vtk decode: cannot open VA device '\(options.device)': \(error)")
        }
        var run = Run(options: options, input: input, progress: progress, expectedFrames: expectedFrames)
        defer { run.session?.invalidate() }
        /// The session and sinks are made for the bit depth: an MP4's record tells it before any sample; an
        /// Annex B stream's first SPS does, unless the codec has only 8-bit pictures.
        func prepare(tenBit: Bool) throws(CommandFailure) -> Session {
            if let session = run.session { return session }
            (run.sinks, run.md5Sink) = try options.makeSinks(tenBit: tenBit)
            do {
                let made = try Codec.makeSession(format: mp4Format, connection: connection,
                                                 outputFormat: Codec.sessionOutputFormat(tenBit: tenBit, nv12Wanted: options.wantsNV12))
                // 8-bit NV12 raw output (or none) is written from the mapped surface, with no copy of its own: the
                // session lends each frame its surface (a few at once; past that, a frame carries its pixels).
                if options.wantsNV12 && !tenBit {
                    let mapped = run.sinks.compactMap { ($0 as? MappedNV12Sink).flatMap { $0.takesMappedNV12 ? $0 : nil } }
                    if mapped.count == run.sinks.count {
                        run.mappedSinks = mapped
                        made.surfaceFrameLimit = 2
                        made.surfaceFramesFallBackToPixels = true
                    }
                }
                run.session = made
                return made
            } catch {
                throw CommandFailure(.input, "vtk decode: \(input.displayName): \(error)")
            }
        }
        if let mp4 {
            if let mp4Format { run.warn(Codec.warning(for: mp4Format)) }
            let session = try prepare(tenBit: mp4.bitDepth > 8)
            var index = 0
            while !run.done {
                let sample: MP4Sample?
                do { sample = try mp4.reader.nextSample() } catch {
                    // Keep what was decoded; report where the file went wrong.
                    session.noteProblem("sample \(index): \(error)")
                    break
                }
                guard let sample else { break }
                if run.containerFrameRate == nil { run.containerFrameRate = FrameRate.ofSamples(duration: sample.duration.value, timescale: sample.duration.timescale) }
                run.sawNALUnits = true
                run.pictureUnits += 1
                let buffer = sample.sampleBuffer(nalUnitLengthSize: mp4.reader.nalUnitLengthSize)
                do { try run.deliver(session.decode(buffer)) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.device, "vtk decode: sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                index += 1
            }
        } else {
            if !Codec.decodesTenBit { _ = try prepare(tenBit: false) }
            var assembler = Codec.Assembler()
            func decode(_ units: [Codec.Assembler.AccessUnit]) throws(CommandFailure) {
                for unit in units where !run.done {
                    run.sawNALUnits = true
                    // Streams VA or vtk cannot decode are refused in one line, before any picture of them.
                    if let why = Codec.refusal(for: unit) {
                        progress.finish()
                        throw CommandFailure(.input, "vtk decode: \(input.displayName): unsupported format: \(why)")
                    }
                    run.warn(Codec.warning(for: unit))
                    if unit.hasPicture { run.pictureUnits += 1 }
                    let session = try prepare(tenBit: Codec.bitDepth(of: unit) > 8)
                    do { try run.deliver(session.decode(accessUnit: unit)) } catch let failure as CommandFailure {
                        throw failure
                    } catch {
                        throw CommandFailure(.device, "vtk decode: access unit \(max(run.pictureUnits - 1, 0)) at byte \(unit.offset): \(error)")
                    }
                }
            }
            while !run.done {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                if input.bytesRead == chunk.count {
                    // A pipe has no signature until its first bytes come.
                    let signature = InputSignature(head: chunk)
                    if signature == .mp4 {
                        throw CommandFailure(.input, "vtk decode: \(input.displayName) is an MP4 file; MP4 needs seeking, so give its file name instead of a pipe")
                    }
                    if let message = signature.notMessage(input.displayName, codec: Codec.videoCodec) { throw CommandFailure(.input, "vtk decode: \(message)") }
                }
                try decode(assembler.append(chunk))
            }
            if !run.done { try decode(assembler.finish()) }
        }
        guard let session = run.session else { throw CommandFailure(.input, "vtk decode: no \(codecName) NAL units in \(input.displayName)") }
        if !run.limitReached {
            do { try run.deliver(session.finishDelayedFrames()) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk decode: \(error)")
            }
        }
        progress.finish()
        // No "MD5=" of nothing: with no frame decoded there is no output to sum.
        for sink in run.sinks where run.frameIndex > 0 || !(sink === run.md5Sink) { try sink.finish() }
        return try report(run, session: session)
    }

    /// The summary line, notes and JSON, and the exit code: problems and pictures missing are input errors.
    private static func report(_ run: Run, session: Session) throws(CommandFailure) -> ExitCode {
        let input = run.input, options = run.options
        let stats = session.statistics
        let summary = DecodeSummary(input: input, frames: run.frameIndex, sizes: run.sizes, device: session.deviceDescription,
                                    seconds: Clock.now() - run.started, md5: run.md5Sink?.digest, statistics: stats)
        if !options.quiet && run.frameIndex > 0 { StandardStreams.error(summary.line) }
        if !options.quiet { for note in stats.notes { StandardStreams.error("vtk decode: \(note)\n") } }
        var failure: CommandFailure?
        if !run.sawNALUnits {
            failure = CommandFailure(.input, "vtk decode: no \(codecName) NAL units in \(input.displayName) (is it an Annex B byte stream?)")
        } else if run.pictureUnits == 0 {
            failure = CommandFailure(.input, "vtk decode: no coded pictures in \(input.displayName)" + (stats.problems.first.map { ": \($0)" } ?? ""))
        } else if stats.problemCount > 0 {
            failure = CommandFailure(.input, summary.problemReport)
        }
        if options.json { StandardStreams.out(summary.json(exitCode: Interruption.requested ? .interrupted : failure?.code ?? .success).text + "\n") }
        if Interruption.requested {
            return Interruption.report(name, "\(run.frameIndex) frames decoded" + (options.output.map { " and written to \($0)" } ?? ""))
        }
        if let failure { throw failure }
        return .success
    }

    /// The state of one decode: the session, where frames go, and what has been seen.
    private struct Run {
        let options: DecodeOptions
        let input: InputFile
        let progress: ProgressLine
        let expectedFrames: Int?
        let started = Clock.now()
        var session: Session?
        var sinks: [FrameSink] = []
        /// The sinks again, when every one takes frames where they are in the mapped surface (nil: read back).
        var mappedSinks: [MappedNV12Sink]?
        var md5Sink: WholeMD5Sink?
        var y4m: Y4MFrameSink?
        var sizes = FrameSizes()
        var frameIndex = 0
        var pictureUnits = 0
        var sawNALUnits = false
        var warned = false
        /// The frame rate of an MP4 track: its timescale over the first sample's duration.
        var containerFrameRate: (Int, Int)?

        var limitReached: Bool { options.frameLimit.map { frameIndex >= $0 } ?? false }
        // SIGINT/SIGTERM stops the reading; the pictures already in the decoder are still output, each whole.
        var done: Bool { limitReached || Interruption.requested }

        /// One warning per stream, on standard error.
        mutating func warn(_ warning: String?) {
            guard !warned, !options.quiet, let warning else { return }
            warned = true
            StandardStreams.error("vtk decode: warning: \(warning)\n")
        }

        mutating func deliver(_ frames: [DecodedFrame]) throws(CommandFailure) {
            let format = session?.formatDescription
            for frame in frames where !limitReached {
                if let mappedSinks, let surface = frame.surface {
                    let index = frameIndex
                    let written: (width: Int, height: Int)?
                    do {
                        written = try surface.withMappedNV12 { picture in
                            for sink in mappedSinks { try sink.take(picture, index: index) }
                            return (picture.width, picture.height)
                        }
                    } catch let failure as CommandFailure {
                        throw failure
                    } catch {
                        // As the session does when it reads a picture back itself: the frame is dropped and counted.
                        session?.noteReadbackFailure(of: frame, error)
                        continue
                    }
                    if let written {
                        _ = sizes.take(width: written.width, height: written.height, index: index)
                        frameIndex += 1
                        continue
                    }
                }
                let picture = frame.pixelBuffer
                if let path = options.y4mOutput, y4m == nil {
                    let rate = containerFrameRate ?? format?.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) }
                    // The field order of an interlaced stream, from its first frame (It/Ib).
                    let interlace: Y4MHeader.Interlace = frame.fieldOrder.map { $0 == .topFieldFirst ? .topFieldFirst : .bottomFieldFirst } ?? .progressive
                    let sink = try Y4MFrameSink(path: path, frame: picture, frameRate: rate, sampleAspectRatio: format?.sampleAspectRatio,
                                                interlace: interlace, command: name)
                    y4m = sink
                    sinks.append(sink)
                }
                if sizes.take(picture, index: frameIndex), let y4m {
                    progress.finish()
                    try? y4m.finish()
                    throw CommandFailure(.output, "vtk decode: the picture size changes to \(picture.width)x\(picture.height) at frame \(frameIndex), "
                                         + "and a Y4M file has one size: frames 0-\(frameIndex - 1) were written to \(y4m.path); "
                                         + "write raw frames (-o frames.yuv) or pictures (--png-dir DIR) for the whole stream, or -n \(frameIndex)")
                }
                for sink in sinks { try sink.take(picture, index: frameIndex) }
                frameIndex += 1
            }
            progress.update(frames: frameIndex, fraction: expectedFrames.map { Double(frameIndex) / Double(max($0, 1)) } ?? input.fractionDone)
        }
    }
}
