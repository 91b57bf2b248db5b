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
    static func isH265(_ parsed: ParsedArguments, input: InputFile, command: String = name) throws(CommandFailure) -> Bool {
        if let forced = try VideoCodec.forced(OptionValues(parsed: parsed, command: command)) { return forced == .h265 }
        if command == name, let mp4 = try MP4Input.open(input, command: command) { return mp4.reader.isHEVC }
        return VideoCodec.detect(annexB: try input.peek(1 << 16)) == .h265
    }

    static func run(_ parsed: ParsedArguments, input: InputFile) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        let choice = try values.choice("pix-fmt", ["nv12", "i420", "p010", "yuv420p10le"])
        let quiet = parsed.has("quiet")
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
        var frameIndex = 0, pictureUnits = 0, sawNALUnits = false
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
            if parsed.has("md5") { sinks.append(WholeMD5Sink(print: true)) }
            if parsed.has("framemd5") { sinks.append(FrameMD5Sink()) }
            if let output = parsed["output"], !output.lowercased().hasSuffix(".y4m") {
                if parsed.has("md5") || parsed.has("framemd5"), output == "-" {
                    throw CommandFailure(.usage, "vtk decode: -o - and --md5/--framemd5 would both write to standard output")
                }
                sinks.append(RawFrameSink(file: try OutputFile(output, command: name), format: raw))
            }
            if let directory = parsed["frames"] { sinks.append(try PNGFrameSink(directory: directory, command: name)) }
        }
        func deliver(_ frames: [DecodedFrame], format: H265FormatDescription?) throws(CommandFailure) {
            for frame in frames {
                if let path = parsed["output"], path.lowercased().hasSuffix(".y4m"), y4m == nil {
                    let sink = try Y4MFrameSink(path: path, frame: frame.pixelBuffer, frameRate: format?.frameRate,
                                                sampleAspectRatio: format?.sampleAspectRatio, command: name)
                    y4m = sink
                    sinks.append(sink)
                }
                for sink in sinks { try sink.take(frame.pixelBuffer, index: frameIndex) }
                frameIndex += 1
            }
            progress.update(frames: frameIndex, fraction: input.fractionDone)
        }

        var assembler = H265AccessUnitAssembler()
        func decode(_ units: [H265AccessUnit]) throws(CommandFailure) {
            for unit in units {
                sawNALUnits = true
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
            let tenBit = (reader.hevcFormatDescription?.bitDepth ?? Int(reader.track.sampleDescription.hvcC?.bitDepthLumaMinus8 ?? 0) + 8) > 8
            let current = try makeSession(tenBit: tenBit)
            try openSinks(tenBit: tenBit)
            var index = 0
            while true {
                let sample: MP4Sample?
                do { sample = try reader.nextSample() } catch {
                    current.noteProblem("sample \(index): \(error)")
                    break
                }
                guard let sample else { break }
                sawNALUnits = true
                pictureUnits += 1
                let buffer = SampleBuffer(data: sample.data, framing: .lengthPrefixed(reader.nalUnitLengthSize),
                                          presentationTime: sample.presentationTime, decodeTime: sample.decodeTime,
                                          duration: sample.duration, isSync: sample.isSync)
                do { try deliver(current.decode(buffer), format: current.formatDescription) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.device, "vtk decode: sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                index += 1
            }
        } else {
            while true {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                try decode(assembler.append(chunk))
            }
            try decode(assembler.finish())
        }
        defer { session?.invalidate() }
        if let session = session {
            do { try deliver(session.finishDelayedFrames(), format: session.formatDescription) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk decode: \(error)")
            }
        }
        for sink in sinks { try sink.finish() }
        progress.finish()

        guard let session, sawNALUnits else { throw CommandFailure(.input, "vtk decode: no H.265 NAL units in \(input.displayName)") }
        let stats = session.statistics
        let elapsed = Clock.now() - started
        if !quiet {
            let size = session.formatDescription.map { "\($0.displayWidth)x\($0.displayHeight)" } ?? "?"
            StandardStreams.error("vtk decode: \(frameIndex) frames \(size) H.265 from \(input.displayName) on \(session.deviceDescription), "
                                  + "\(String(format2: elapsed)) s (\(String(format1: elapsed > 0 ? Double(frameIndex) / elapsed : 0)) fps)\n")
        }
        if pictureUnits == 0 {
            throw CommandFailure(.input, "vtk decode: no coded pictures in \(input.displayName)" + (stats.problems.first.map { ": \($0)" } ?? ""))
        }
        for note in stats.notes where !quiet { StandardStreams.error("vtk decode: \(note)\n") }
        if stats.problemCount > 0 {
            var message = "vtk decode: \(input.displayName): \(stats.problemCount) problem(s); \(frameIndex) frame(s) output"
            if stats.damagedFrames > 0 { message += ", \(stats.damagedFrames) of them possibly wrong" }
            if stats.accessUnitsSkipped > 0 { message += ", \(stats.accessUnitsSkipped) access unit(s) skipped" }
            message += ":\n" + stats.problems.prefix(10).map { "  \($0)" }.joined(separator: "\n")
            if stats.problemCount > 10 { message += "\n  ... and \(stats.problemCount - 10) more" }
            throw CommandFailure(.input, message)
        }
        return .success
    }
}
