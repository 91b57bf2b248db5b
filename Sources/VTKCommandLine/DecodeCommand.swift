import DecompressionSession
import H264Bitstream
import MP4
import VideoAcceleration
import VTKMedia
import Y4M

/// `vtk decode`: H.264 -> frames, MD5s, pictures.
enum DecodeCommand {
    static let name = "decode"
    static let summary = "H.264/H.265 -> NV12/I420 (P010/yuv420p10le) frames, MD5s, PNG pictures"
    static let usage = "vtk decode INPUT [-o OUTPUT] [--pix-fmt nv12|i420|p010|yuv420p10le] [--codec h264|h265] [--md5] [--framemd5] [--frames DIR] [--device auto|soft|PATH]"
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "write the frames: FILE.y4m as Y4M, anything else as raw video; - for standard output (raw)"),
        .value("--pix-fmt", valueName: "nv12|i420|p010|yuv420p10le", help: "layout of the written frames (default: i420; yuv420p10le for 10-bit H.265)"),
        .value("--codec", valueName: "h264|h265", help: "the codec of an Annex B INPUT (default: told from its NAL unit headers)"),
        .flag("--md5", help: "print MD5=<hex> of the whole output as planar I420, cropped, display order"),
        .flag("--framemd5", help: "print one line per frame: display index, tab, MD5 of its I420 bytes"),
        .value("--frames", valueName: "DIR", help: "write each frame as DIR/frame-NNNNNN.png"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        INPUT is an H.264 or H.265 Annex B byte stream (.h264 .264 .jsv .26l .265 ...), an MP4 file (avc1/avc3,
        hvc1/hev1), or - for standard input (Annex B). The codec of an Annex B stream is told from its NAL unit
        headers (--codec forces it). Main 10 streams give 10-bit frames: Y4M C420p10, raw yuv420p10le (default)
        or p010, --md5/--framemd5 over yuv420p10le, PNG pictures as 8-bit.
        Damaged input is decoded as far as it can be: frames before the damage are kept, decoding resumes
        at the next IDR or recovery point, and vtk exits with 3 after naming each problem and its byte offset.
        """

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk decode: no INPUT given\nusage: \(usage)"
                                 : "vtk decode: one INPUT expected, got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
        }
        let input = try InputFile(parsed.positionals[0], command: name)
        if try H265DecodeCommand.isH265(parsed, input: input) { return try H265DecodeCommand.run(parsed, input: input) }
        let format: PixelFormat = try values.choice("pix-fmt", ["nv12", "i420"]).flatMap(PixelFormat.init(rawValue:)) ?? .i420
        let quiet = parsed.has("quiet")
        let device = VADeviceChoice(parsed["device"] ?? "auto")

        var sinks: [FrameSink] = []
        if parsed.has("md5") { sinks.append(WholeMD5Sink(print: true)) }
        if parsed.has("framemd5") { sinks.append(FrameMD5Sink()) }
        var y4mOutput: String?
        if let output = parsed["output"] {
            if parsed.has("md5") || parsed.has("framemd5"), output == "-" {
                throw CommandFailure(.usage, "vtk decode: -o - and --md5/--framemd5 would both write to standard output")
            }
            if output.lowercased().hasSuffix(".y4m") {
                if parsed["pix-fmt"] == "nv12" { throw CommandFailure(.usage, "vtk decode: Y4M output is I420; --pix-fmt nv12 cannot go with a .y4m OUTPUT") }
                y4mOutput = output  // opened once the frame size is known
            } else {
                sinks.append(RawFrameSink(file: try OutputFile(output, command: name), format: format))
            }
        }
        if let directory = parsed["frames"] { sinks.append(try PNGFrameSink(directory: directory, command: name)) }

        let mp4 = try MP4Input.open(input, command: name)
        if let mp4, mp4.formatDescription == nil {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): the MP4 track has no parameter sets in its avcC")
        }
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch {
            throw CommandFailure(.device, "vtk decode: cannot open VA device '\(device)': \(error)")
        }
        let session: DecompressionSession
        do {
            // An MP4's parameter sets are in its avcC, not in the samples.
            // Frames are read back in the layout the sinks want, converted as they leave the surface: checksums,
            // Y4M, PNG and raw I420 want I420; raw NV12, or no sink at all, want the surface's own NV12.
            let wantsNV12 = sinks.isEmpty && y4mOutput == nil || (format == .nv12 && parsed["output"] != nil && y4mOutput == nil)
            session = try DecompressionSession(formatDescription: mp4?.formatDescription, connection: connection,
                                               outputFormat: wantsNV12 ? .nv12 : .i420)
        } catch {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): \(error)")
        }
        defer { session.invalidate() }

        let progress = ProgressLine(label: "decode", quiet: quiet)
        let started = Clock.now()
        var assembler = AccessUnitAssembler()
        var frameIndex = 0
        var sawNALUnits = false
        var pictureUnits = 0
        var y4m: Y4MFrameSink?
        func deliver(_ frames: [DecodedFrame]) throws(CommandFailure) {
            for frame in frames {
                if let path = y4mOutput, y4m == nil {
                    let sink = try Y4MFrameSink(path: path, frame: frame.pixelBuffer, format: session.formatDescription, command: name)
                    y4m = sink
                    sinks.append(sink)
                }
                for sink in sinks { try sink.take(frame.pixelBuffer, index: frameIndex) }
                frameIndex += 1
            }
            progress.update(frames: frameIndex, fraction: input.fractionDone)
        }
        func decode(_ units: [AccessUnit]) throws(CommandFailure) {
            for unit in units {
                sawNALUnits = true
                if unit.hasPicture { pictureUnits += 1 }
                do { try deliver(session.decode(accessUnit: unit)) } catch let failure as CommandFailure {
                    throw failure
                } catch {
                    throw CommandFailure(.device, "vtk decode: access unit \(pictureUnits - 1) at byte \(unit.offset): \(error)")
                }
            }
        }
        if let mp4 {
            var index = 0
            while true {
                let sample: MP4Sample?
                do { sample = try mp4.reader.nextSample() } catch {
                    // Keep what was decoded; report where the file went wrong.
                    session.noteProblem("sample \(index): \(error)")
                    break
                }
                guard let sample else { break }
                sawNALUnits = true
                pictureUnits += 1
                let buffer = SampleBuffer(data: sample.data, framing: .lengthPrefixed(mp4.reader.nalUnitLengthSize),
                                          presentationTime: sample.presentationTime, decodeTime: sample.decodeTime,
                                          duration: sample.duration, isSync: sample.isSync)
                do { try deliver(session.decode(buffer)) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.device, "vtk decode: sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                index += 1
            }
        } else {
            while true {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                if input.bytesRead == chunk.count, chunk.count >= 8, Array(chunk[4..<8]) == Array("ftyp".utf8) {
                    throw CommandFailure(.input, "vtk decode: \(input.displayName) is an MP4 file; MP4 needs seeking, so give its file name instead of a pipe")
                }
                try decode(assembler.append(chunk))
            }
            try decode(assembler.finish())
        }
        do { try deliver(session.finishDelayedFrames()) } catch let failure as CommandFailure { throw failure } catch {
            throw CommandFailure(.device, "vtk decode: \(error)")
        }
        for sink in sinks { try sink.finish() }
        progress.finish()

        let stats = session.statistics
        let elapsed = Clock.now() - started
        if !quiet {
            let size = session.formatDescription.map { "\($0.displayWidth)x\($0.displayHeight)" } ?? "?"
            StandardStreams.error("vtk decode: \(frameIndex) frames \(size) from \(input.displayName) on \(session.deviceDescription), "
                                  + "\(String(format2: elapsed)) s (\(String(format1: elapsed > 0 ? Double(frameIndex) / elapsed : 0)) fps)\n")
        }
        guard sawNALUnits else {
            throw CommandFailure(.input, "vtk decode: no H.264 NAL units in \(input.displayName) (is it an Annex B byte stream?)")
        }
        if pictureUnits == 0 {
            throw CommandFailure(.input, "vtk decode: no coded pictures in \(input.displayName)" + (stats.problems.first.map { ": \($0)" } ?? ""))
        }
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

#if canImport(Glibc)
import Glibc
#endif
