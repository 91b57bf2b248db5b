import DecompressionSession
import H264Bitstream
import H265Bitstream
import MP4
import VideoAcceleration
import VTKMedia
import Y4M

/// `vtk decode` for H.265 streams (chosen by ``VideoCodec/detect(annexB:)`` or `--codec h265`): the
/// same outputs as for H.264, and for Main 10 the 10-bit ones (Y4M C420p10, raw p010 or yuv420p10le,
/// checksums over yuv420p10le, PNG shifted to 8 bits).
enum H265DecodeCommand {
    static let name = DecodeCommand.name

    /// True when the input is H.265: `--codec h265`, or an Annex B stream whose NAL headers say so.
    /// An MP4's sample description decides; `--codec` is for Annex B and must not contradict it.
    static func isH265(_ parsed: ParsedArguments, input: InputFile, command: String = name) throws(CommandFailure) -> Bool {
        let forced = try VideoCodec.forced(OptionValues(parsed: parsed, command: command))
        if let mp4 = try MP4Input.open(input, command: command) {
            let format = mp4.reader.track.sampleDescription.format
            if let forced, (forced == .h265) != mp4.reader.isHEVC {
                throw CommandFailure(.usage, "vtk \(command): --codec \(forced.rawValue) contradicts \(input.displayName), whose MP4 track is \(format) "
                                     + "(\(mp4.reader.isHEVC ? "H.265" : "H.264")); --codec is for Annex B input, an MP4 says its codec itself")
            }
            return mp4.reader.isHEVC
        }
        if let forced { return forced == .h265 }
        return VideoCodec.detect(annexB: try input.peek(1 << 16)) == .h265
    }

    static func run(_ parsed: ParsedArguments, input: InputFile) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        let choice = try values.choice("pix-fmt", ["nv12", "i420", "p010", "yuv420p10le"])
        let json = parsed.has("json")
        let quiet = parsed.has("quiet") || json
        // As for H.264: --png-dir DIR, or the older --frames DIR; -n/--frames N stops after N frames.
        var pngDirectory = parsed["png-dir"]
        var frameLimit: Int?
        if let text = parsed["frames"] {
            if Int(text) == nil && pngDirectory == nil && !text.hasPrefix("-") { pngDirectory = text } else {
                frameLimit = try values.int("frames", range: 1...Int(Int32.max))
            }
        }
        let y4mPath = parsed["output"].flatMap { $0.lowercased().hasSuffix(".y4m") ? ($0.lowercased() == "-.y4m" ? "-" : $0) : nil }
        let device = VADeviceChoice(parsed["device"] ?? "auto")
        let mp4 = try MP4Input.open(input, command: name)
        if let mp4, !mp4.reader.isHEVC {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): the MP4 track is \(mp4.reader.track.sampleDescription.format), not H.265")
        }
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch {
            throw CommandFailure(.device, "vtk decode: cannot open VA device '\(device)': \(error)")
        }

        // The session reads 10-bit pictures as P010 and 8-bit ones as NV12; sinks convert as they need.
        var session: H265DecompressionSession?
        var sinks: [FrameSink] = []
        var y4m: Y4MFrameSink?
        var md5Sink: WholeMD5Sink?
        var frameIndex = 0, pictureUnits = 0, sawNALUnits = false
        var sizes = FrameSizes()
        var limitReached: Bool { frameLimit.map { frameIndex >= $0 } ?? false }
        // SIGINT/SIGTERM stops the reading; the pictures already in the decoder are still output, each whole.
        var done: Bool { limitReached || Interruption.requested }
        let progress = ProgressLine(label: "decode", quiet: quiet)
        let started = Clock.now()

        func makeSession(tenBit: Bool) throws(CommandFailure) -> H265DecompressionSession {
            if let session { return session }
            do {
                // An MP4's parameter sets are in its hvcC (hvc1), or in the samples (hev1).
                let made = try H265DecompressionSession(formatDescription: mp4?.reader.hevcFormatDescription, connection: connection,
                                                        outputFormat: tenBit ? .p010 : .nv12)
                session = made
                return made
            } catch {
                throw CommandFailure(.input, "vtk decode: \(input.displayName): \(error)")
            }
        }
        func openSinks(tenBit: Bool) throws(CommandFailure) {
            guard sinks.isEmpty && y4m == nil else { return }
            let raw: PixelFormat = switch choice {
            case "nv12": .nv12
            case "p010": .p010
            case "yuv420p10le": .yuv420p10
            case "i420": .i420
            default: tenBit ? .yuv420p10 : .i420
            }
            if parsed.has("md5") { md5Sink = WholeMD5Sink(print: !json) }
            if let md5Sink { sinks.append(md5Sink) }
            if parsed.has("framemd5") {
                if json { throw CommandFailure(.usage, "vtk decode: --framemd5 and --json would both write to standard output") }
                sinks.append(FrameMD5Sink())
            }
            if let output = parsed["output"], y4mPath == nil {
                if parsed.has("md5") || parsed.has("framemd5") || json, output == "-" {
                    throw CommandFailure(.usage, "vtk decode: -o - and --md5/--framemd5/--json would all write to standard output")
                }
                sinks.append(RawFrameSink(file: try OutputFile(output, command: name), format: raw))
            }
            if let pngDirectory { sinks.append(try PNGFrameSink(directory: pngDirectory, command: name)) }
        }
        func deliver(_ frames: [DecodedFrame], format: H265FormatDescription?) throws(CommandFailure) {
            for frame in frames where !limitReached {
                if let path = y4mPath, y4m == nil {
                    let sink = try Y4MFrameSink(path: path, frame: frame.pixelBuffer, frameRate: format?.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) },
                                                sampleAspectRatio: format?.sampleAspectRatio, command: name)
                    y4m = sink
                    sinks.append(sink)
                }
                if sizes.take(frame.pixelBuffer, index: frameIndex), y4m != nil {
                    throw CommandFailure(.output, "vtk decode: the picture size changes to \(frame.pixelBuffer.width)x\(frame.pixelBuffer.height) at frame \(frameIndex), "
                                         + "and a Y4M file has one size; write raw frames (-o frames.yuv) or pictures (--png-dir DIR), or -n \(frameIndex)")
                }
                for sink in sinks { try sink.take(frame.pixelBuffer, index: frameIndex) }
                frameIndex += 1
            }
            progress.update(frames: frameIndex, fraction: input.fractionDone)
        }

        var assembler = H265AccessUnitAssembler()
        var profileWarned = false
        /// One warning for a stream whose profile is inferred (general_profile_idc 0).
        func warnAboutProfile(_ sets: [H265SequenceParameterSet]) {
            guard !profileWarned, !quiet, let warning = sets.lazy.compactMap(H265ProfileInference.warning(for:)).first else { return }
            profileWarned = true
            StandardStreams.error("vtk decode: warning: \(warning)\n")
        }
        func decode(_ units: [H265AccessUnit]) throws(CommandFailure) {
            for unit in units where !done {
                sawNALUnits = true
                warnAboutProfile(Array(unit.parameterSets.sps.values))
                if unit.hasPicture { pictureUnits += 1 }
                // The bit depth is known from the first SPS; the session and the sinks are made for it.
                let tenBit = unit.parameterSets.sps.values.contains { $0.bitDepthLuma > 8 }
                let current = try makeSession(tenBit: tenBit)
                try openSinks(tenBit: tenBit)
                do { try deliver(current.decode(accessUnit: unit), format: current.formatDescription) } catch let failure as CommandFailure {
                    throw failure
                } catch {
                    throw CommandFailure(.device, "vtk decode: access unit \(max(pictureUnits - 1, 0)) at byte \(unit.offset): \(error)")
                }
            }
        }
        if let mp4 {
            let reader = mp4.reader
            warnAboutProfile(reader.hevcFormatDescription.map { [$0.sps] } ?? [])
            let tenBit = (reader.hevcFormatDescription?.bitDepth ?? Int(reader.track.sampleDescription.hvcC?.bitDepthLumaMinus8 ?? 0) + 8) > 8
            let current = try makeSession(tenBit: tenBit)
            try openSinks(tenBit: tenBit)
            var index = 0
            while !done {
                let sample: MP4Sample?
                do { sample = try reader.nextSample() } catch {
                    current.noteProblem("sample \(index): \(error)")
                    break
                }
                guard let sample else { break }
                sawNALUnits = true
                pictureUnits += 1
                let buffer = sample.sampleBuffer(nalUnitLengthSize: reader.nalUnitLengthSize)
                do { try deliver(current.decode(buffer), format: current.formatDescription) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.device, "vtk decode: sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                index += 1
            }
        } else {
            while !done {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                try decode(assembler.append(chunk))
            }
            if !done { try decode(assembler.finish()) }
        }
        defer { session?.invalidate() }
        if let session = session, !limitReached {
            do { try deliver(session.finishDelayedFrames(), format: session.formatDescription) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk decode: \(error)")
            }
        }
        progress.finish()
        // No "MD5=" of nothing: with no frame decoded there is no output to sum.
        for sink in sinks where frameIndex > 0 || !(sink === md5Sink) { try sink.finish() }

        guard let session, sawNALUnits else { throw CommandFailure(.input, "vtk decode: no H.265 NAL units in \(input.displayName)") }
        let stats = session.statistics
        let summary = DecodeSummary(input: input, frames: frameIndex, sizes: sizes, device: session.deviceDescription, seconds: Clock.now() - started,
                                    md5: md5Sink?.digest, statistics: stats)
        if !quiet && frameIndex > 0 { StandardStreams.error(summary.line) }
        if !quiet { for note in stats.notes { StandardStreams.error("vtk decode: \(note)\n") } }
        var failure: CommandFailure?
        if pictureUnits == 0 {
            failure = CommandFailure(.input, "vtk decode: no coded pictures in \(input.displayName)" + (stats.problems.first.map { ": \($0)" } ?? ""))
        } else if stats.problemCount > 0 {
            failure = CommandFailure(.input, summary.problemReport)
        }
        if json { StandardStreams.out(summary.json(exitCode: Interruption.requested ? .interrupted : failure?.code ?? .success).text + "\n") }
        if Interruption.requested { return Interruption.report(name, "\(frameIndex) frames decoded" + (parsed["output"].map { " and written to \($0)" } ?? "")) }
        if let failure { throw failure }
        return .success
    }
}
