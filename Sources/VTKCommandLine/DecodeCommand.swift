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
    static let usage = "vtk decode INPUT [-o OUTPUT] [--pix-fmt nv12|i420|p010|yuv420p10le] [--codec h264|h265] [--md5] [--framemd5] [--png-dir DIR] [-n N] [--json] [--device auto|soft|PATH]"
    static let examples = [
        "vtk decode in.h264 --md5",
        "vtk decode in.mp4 -o frames.y4m -n 100",
        "vtk decode in.264 --png-dir pictures --json",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output, .internalError]
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "write the frames: FILE.y4m as Y4M (-.y4m: Y4M on standard output), anything else as raw video; - for standard output (raw)"),
        .value("--pix-fmt", valueName: "nv12|i420|p010|yuv420p10le", help: "layout of the written frames (default: i420; yuv420p10le for 10-bit H.265)"),
        .value("--codec", valueName: "h264|h265", help: "the codec of an Annex B INPUT (default: told from its NAL unit headers)"),
        .flag("--md5", help: "print MD5=<hex> of the whole output as planar I420, cropped, display order"),
        .flag("--framemd5", help: "print one line per frame: display index, tab, MD5 of its I420 bytes"),
        .value("--png-dir", valueName: "DIR", help: "write each frame as DIR/frame-NNNNNN.png (DIR and its parents are created)"),
        .value("-n", "--frames", valueName: "N", help: "stop after N frames (display order)"),
        .flag("--json", help: "print the summary as one JSON object on standard output"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        INPUT is an H.264 or H.265 Annex B byte stream (.h264 .264 .jsv .26l .265 ...), an MP4 or MOV file
        (avc1/avc3, hvc1/hev1), or - for standard input (Annex B). The codec of an Annex B stream is told from
        its NAL unit headers (--codec forces it). Main 10 streams give 10-bit frames: Y4M C420p10, raw
        yuv420p10le (default) or p010, --md5/--framemd5 over yuv420p10le, PNG pictures as 8-bit. Without -o,
        --md5, --framemd5 or --png-dir the frames are decoded and discarded (a decode check).
        Damaged input is decoded as far as it can be: frames before the damage are kept, decoding resumes
        at the next IDR or recovery point, and vtk exits with 3 after naming each problem and its byte offset.
        """

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk decode: no INPUT given\nusage: \(usage)"
                                 : "vtk decode: one INPUT expected, got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
        }
        // The 10-bit layouts are checked here too (they are for H.265 Main 10, see H265DecodeCommand).
        let format: PixelFormat = try values.choice("pix-fmt", ["nv12", "i420", "p010", "yuv420p10le"]).flatMap { PixelFormat(rawValue: $0 == "yuv420p10le" ? "yuv420p10" : $0) } ?? .i420
        let json = parsed.has("json")
        let quiet = parsed.has("quiet") || json
        // --frames DIR was the PNG folder before --png-dir; a value that is not a number still means that.
        var pngDirectory = parsed["png-dir"]
        var frameLimit: Int?
        if let text = parsed["frames"] {
            if Int(text) == nil && pngDirectory == nil && !text.hasPrefix("-") {
                pngDirectory = text
            } else {
                frameLimit = try values.int("frames", range: 1...Int(Int32.max))
            }
        }
        let inputPath = parsed.positionals[0]
        if let output = parsed["output"] { try OutputFile.refuseOverwriting(input: inputPath, output: output, command: name) }
        let input = try InputFile(inputPath, command: name)
        if try H265DecodeCommand.isH265(parsed, input: input) { return try H265DecodeCommand.run(parsed, input: input) }
        if let message = input.signature?.notH264Message(input.displayName) { throw CommandFailure(.input, "vtk decode: \(message)") }
        if format.is10Bit { throw CommandFailure(.usage, "vtk decode: --pix-fmt \(parsed["pix-fmt"] ?? "") is a 10-bit layout, for H.265 Main 10 streams; \(input.displayName) is H.264") }
        let device = VADeviceChoice(parsed["device"] ?? "auto")

        var sinks: [FrameSink] = []
        let md5Sink = parsed.has("md5") ? WholeMD5Sink(print: !json) : nil
        if let md5Sink { sinks.append(md5Sink) }
        if parsed.has("framemd5") {
            if json { throw CommandFailure(.usage, "vtk decode: --framemd5 and --json would both write to standard output") }
            sinks.append(FrameMD5Sink())
        }
        var y4mOutput: String?
        if let output = parsed["output"] {
            let toStandardOutput = output == "-" || output.lowercased() == "-.y4m"
            if parsed.has("md5") && !json || parsed.has("framemd5") || json, toStandardOutput {
                throw CommandFailure(.usage, "vtk decode: -o \(output) and --md5/--framemd5/--json would all write to standard output")
            }
            if output.lowercased().hasSuffix(".y4m") {
                if parsed["pix-fmt"] == "nv12" { throw CommandFailure(.usage, "vtk decode: Y4M output is I420; --pix-fmt nv12 cannot go with a .y4m OUTPUT") }
                y4mOutput = toStandardOutput ? "-" : output  // opened once the frame size is known
            } else if let ext = output.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased(),
                      ["mp4", "mov", "mkv", "h264", "264", "png", "jpg", "avi", "webm"].contains(ext) {
                throw CommandFailure(.usage, "vtk decode: -o writes raw frames (.yuv) or Y4M (.y4m), not .\(ext)"
                                     + (ext == "png" ? "; for pictures use --png-dir DIR" : ""))
            } else {
                sinks.append(RawFrameSink(file: try OutputFile(output, command: name), format: format))
            }
        }
        if let pngDirectory { sinks.append(try PNGFrameSink(directory: pngDirectory, command: name)) }

        let mp4 = try MP4Input.open(input, command: name)
        if let mp4, mp4.formatDescription == nil {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): the MP4 track has no parameter sets in its avcC")
        }
        if let sps = mp4?.formatDescription?.sps, let why = H264StreamSupport.refusal(for: sps) {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): unsupported format: \(why)")
        }
        let progress = ProgressLine(label: "decode", quiet: quiet)
        // How many frames to expect (for the progress line), and whether the size changes (Y4M cannot).
        var expectedFrames: Int?
        if let mp4 {
            expectedFrames = mp4.reader.isFragmented ? nil : mp4.reader.track.sampleCount
        } else if input.path != "-" && (y4mOutput != nil || progress.isShown) {
            let scan = try StreamScan(path: input.path, command: name)
            expectedFrames = scan.pictures
            if y4mOutput != nil, let change = scan.sizeChange, let before = scan.picturesBeforeChange, frameLimit ?? Int.max > before {
                throw CommandFailure(.usage, "vtk decode: \(input.displayName) changes size (\(change)), and a Y4M file has one size; "
                                     + "write raw frames (-o frames.yuv), pictures (--png-dir DIR), or the first \(before) frames (-n \(before))")
            }
        }
        if let limit = frameLimit { expectedFrames = min(expectedFrames ?? limit, limit) }

        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device, for: .decode(nil)) } catch {
            throw CommandFailure(.device, "vtk decode: cannot open VA device '\(device)': \(error)")
        }
        let session: H264DecompressionSession
        do {
            // An MP4's parameter sets are in its avcC, not in the samples.
            // Frames are read back in the layout the sinks want, converted as they leave the surface: checksums,
            // Y4M, PNG and raw I420 want I420; raw NV12, or no sink at all, want the surface's own NV12.
            let wantsNV12 = sinks.isEmpty && y4mOutput == nil || (format == .nv12 && parsed["output"] != nil && y4mOutput == nil)
            session = try H264DecompressionSession(formatDescription: mp4?.formatDescription, connection: connection,
                                               outputFormat: wantsNV12 ? .nv12 : .i420)
        } catch {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): \(error)")
        }
        defer { session.invalidate() }

        let started = Clock.now()
        var assembler = AccessUnitAssembler()
        var frameIndex = 0
        var sawNALUnits = false
        var pictureUnits = 0
        var y4m: Y4MFrameSink?
        var sizes = FrameSizes()
        /// The frame rate of an MP4 track: its timescale over the first sample's duration.
        var containerFrameRate: (Int, Int)?
        var limitReached: Bool { frameLimit.map { frameIndex >= $0 } ?? false }
        // SIGINT/SIGTERM stops the reading; the pictures already in the decoder are still output, each whole.
        var done: Bool { limitReached || Interruption.requested }
        func deliver(_ frames: [DecodedFrame]) throws(CommandFailure) {
            for frame in frames where !limitReached {
                let picture = frame.pixelBuffer
                if let path = y4mOutput, y4m == nil {
                    let rate = containerFrameRate ?? session.formatDescription?.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) }
                    // The field order of an interlaced stream, from its first frame (It/Ib).
                    let interlace: Y4MHeader.Interlace = frame.fieldOrder.map { $0 == .topFieldFirst ? .topFieldFirst : .bottomFieldFirst } ?? .progressive
                    let sink = try Y4MFrameSink(path: path, frame: picture, frameRate: rate, format: session.formatDescription,
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
            progress.update(frames: frameIndex, fraction: expectedFrames.map { Double(frameIndex) / Double(max($0, 1)) })
        }
        func decode(_ units: [AccessUnit]) throws(CommandFailure) {
            for unit in units where !done {
                sawNALUnits = true
                // Streams VA or vtk cannot decode are refused in one line, before any picture of them.
                if let why = H264StreamSupport.refusal(for: unit) {
                    progress.finish()
                    throw CommandFailure(.input, "vtk decode: \(input.displayName): unsupported format: \(why)")
                }
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
            while !done {
                let sample: MP4Sample?
                do { sample = try mp4.reader.nextSample() } catch {
                    // Keep what was decoded; report where the file went wrong.
                    session.noteProblem("sample \(index): \(error)")
                    break
                }
                guard let sample else { break }
                if containerFrameRate == nil { containerFrameRate = FrameRate.ofSamples(duration: sample.duration.value, timescale: sample.duration.timescale) }
                sawNALUnits = true
                pictureUnits += 1
                let buffer = sample.sampleBuffer(nalUnitLengthSize: mp4.reader.nalUnitLengthSize)
                do { try deliver(session.decode(buffer)) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.device, "vtk decode: sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                index += 1
            }
        } else {
            while !done {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                if input.bytesRead == chunk.count {
                    let signature = InputSignature(head: chunk)
                    if signature == .mp4 {
                        throw CommandFailure(.input, "vtk decode: \(input.displayName) is an MP4 file; MP4 needs seeking, so give its file name instead of a pipe")
                    }
                    if let message = signature.notH264Message(input.displayName) { throw CommandFailure(.input, "vtk decode: \(message)") }
                }
                try decode(assembler.append(chunk))
            }
            if !done { try decode(assembler.finish()) }
        }
        if !limitReached {
            do { try deliver(session.finishDelayedFrames()) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk decode: \(error)")
            }
        }
        progress.finish()
        // No "MD5=" of nothing: with no frame decoded there is no output to sum.
        for sink in sinks where frameIndex > 0 || !(sink === md5Sink) { try sink.finish() }

        let stats = session.statistics
        let elapsed = Clock.now() - started
        let summary = DecodeSummary(input: input, frames: frameIndex, sizes: sizes, device: session.deviceDescription, seconds: elapsed,
                                    md5: md5Sink?.digest, statistics: stats)
        if !quiet && frameIndex > 0 { StandardStreams.error(summary.line) }
        var failure: CommandFailure?
        if !sawNALUnits {
            failure = CommandFailure(.input, "vtk decode: no H.264 NAL units in \(input.displayName) (is it an Annex B byte stream?)")
        } else if pictureUnits == 0 {
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

/// The picture sizes of a decode in display order: each size and the frame it starts at.
struct FrameSizes {
    private(set) var runs: [(width: Int, height: Int, firstFrame: Int)] = []

    /// Notes frame `index`'s size; true when it differs from the frame before.
    mutating func take(_ picture: PixelBuffer, index: Int) -> Bool {
        if let last = runs.last, last.width == picture.width, last.height == picture.height { return false }
        runs.append((picture.width, picture.height, index))
        return runs.count > 1
    }

    /// "640x360", or "640x360, 320x180 from frame 30" when the size changes.
    var text: String {
        guard let first = runs.first else { return "?" }
        return (["\(first.width)x\(first.height)"] + runs.dropFirst().map { "\($0.width)x\($0.height) from frame \($0.firstFrame)" })
            .joined(separator: ", ")
    }
}

#if canImport(Glibc)
import Glibc
#endif
