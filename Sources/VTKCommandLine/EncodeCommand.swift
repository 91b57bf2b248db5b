import CompressionSession
import Glibc
import H264Bitstream
import H265Bitstream
import MP4
import VideoAcceleration
import VTKMedia

/// `vtk encode`: raw NV12/I420 (or 10-bit) or Y4M frames -> H.264 or H.265 (Annex B or MP4).
enum EncodeCommand {
    static let name = "encode"
    static let summary = "NV12/I420 or Y4M frames -> H.264 or H.265 (Annex B, or MP4)"
    static let usage = "vtk encode INPUT -o OUTPUT [--size WxH] [--pix-fmt nv12|i420] [--fps N] [--qp N | --bitrate BPS [--rc cbr|vbr]] [--keyint N] [--bframes N [--b-pyramid]] [--refs N] [--codec h264|h265] [--profile constrained-baseline|main|high|main10] [--device auto|soft|PATH]"
    static let examples = [
        "vtk encode raw.yuv --size 1280x720 --fps 30000/1001 -o out.h264",
        "vtk encode in.y4m --bitrate 2M --rc cbr -o out.mp4 --faststart",
        "ffmpeg -i in.mkv -f yuv4mpegpipe - | vtk encode - -o out.mp4",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output, .internalError]
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "FILE.mp4 or .mov as MP4 (avc1 or hvc1), .264/.h264 or .265/.h265/.hevc (or any other name) as an Annex B stream; - for standard output"),
        .flag("--faststart", help: "with MP4 output, put the movie box before the media data (streamable)"),
        .value("-n", "--frames", valueName: "N", help: "encode at most the first N frames"),
        .flag("--json", help: "print the summary as one JSON object on standard output"),
    ] + EncodeOptions.table
    static let details = """
        INPUT is raw frames (--size required), a .y4m file, or - for standard input (raw, or Y4M when named
        - and --size is not given). A raw file whose size is not a whole number of frames is encoded up to the
        last whole frame; the partial frame is reported and vtk exits with 3.
        """

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk encode: no INPUT given\nusage: \(usage)"
                                 : "vtk encode: one INPUT expected, got \(parsed.positionals.count)")
        }
        guard let outputPath = parsed["output"] else { throw CommandFailure(.usage, "vtk encode: no output given (-o FILE)\nusage: \(usage)") }
        var options = try EncodeOptions(parsed, command: name)
        let inputPath = parsed.positionals[0]
        try OutputFile.refuseOverwriting(input: inputPath, output: outputPath, command: name)
        let mp4 = try Self.isMP4(outputPath, codec: options.properties.codec)
        let source = try options.source(for: inputPath, command: name)
        options.adopt(bitDepthOf: source.pixelFormat)
        options.properties.expectedFrameRate = Double(source.frameRate.0) / Double(source.frameRate.1)
        let json = parsed.has("json")
        let quiet = parsed.has("quiet") || json
        if json && outputPath == "-" { throw CommandFailure(.usage, "vtk encode: -o - and --json would both write to standard output") }
        let frameLimit = try OptionValues(parsed: parsed, command: name).int("frames", range: 1...Int(Int32.max))
        if parsed.has("faststart") && !mp4 && !quiet {
            StandardStreams.error("vtk encode: --faststart applies to MP4 output only; \(outputPath) is written as an \(options.codecName) Annex B stream\n")
        }

        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(options.device, for: .encode) } catch {
            throw CommandFailure(.device, "vtk encode: cannot open VA device '\(options.device)': \(error)")
        }
        let session: CompressionSession
        do {
            session = try CompressionSession(width: source.width, height: source.height, properties: options.properties, connection: connection)
            try session.prepareToEncodeFrames()
        } catch {
            throw CommandFailure(error.isDeviceProblem ? .device : .usage, "vtk encode: \(error)")
        }
        defer { session.invalidate() }
        try options.report(session.warnings, command: name, quiet: quiet)

        let sink = try EncodedSampleSink(path: outputPath, mp4: mp4, faststart: parsed.has("faststart"), frameRate: source.frameRate, command: name)
        let progress = ProgressLine(label: "encode", quiet: quiet)
        let started = Clock.now()
        var frames = 0
        // Input that goes bad (a pipe cut mid-frame) ends the loop like its end would: what was read is still
        // coded and the file closed whole, then the failure is reported.
        var inputFailure: CommandFailure?
        func nextFrame() -> PixelBuffer? {
            do { return try source.next() } catch { inputFailure = error; return nil }
        }
        while frames < frameLimit ?? Int.max, !Interruption.requested, let frame = nextFrame() {
            do { try sink.write(session.encodeFrame(frame, forceKeyFrame: options.forcedKeyFrames.contains(frames))) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk encode: frame \(frames): \(error)")
            }
            frames += 1
            progress.update(frames: frames, fraction: frameLimit.map { Double(frames) / Double($0) } ?? source.fractionDone)
        }
        do { try sink.write(session.completeFrames()) } catch let failure as CommandFailure { throw failure } catch {
            throw CommandFailure(.device, "vtk encode: \(error)")
        }
        try sink.finish()
        progress.finish()
        if let inputFailure, !Interruption.requested || frames == 0 { throw inputFailure }
        if frames == 0 {
            throw CommandFailure(.input, "vtk encode: no whole frame in \(source.displayName)")
        }
        var report = EncodeReport(source: source, output: outputPath, frames: frames, payloadBytes: sink.bytes,
                                  properties: options.properties, device: session.deviceDescription, seconds: Clock.now() - started)
        report.entrypoint = session.entrypointName
        report.packedHeaders = session.packedHeadersDescription
        if source.partialFrameBytes > 0 && frames < frameLimit ?? Int.max {
            report.warnings.append("\(source.displayName) ends with a partial frame of \(source.partialFrameBytes) bytes "
                                   + "after \(frames) whole frame(s); the whole frames were encoded to \(outputPath)")
        }
        if !quiet { StandardStreams.error(report.lines) }
        if json { StandardStreams.out(report.json.text + "\n") }
        // Every frame read before the signal is coded and written, and the file is closed (MP4: with its moov).
        if Interruption.requested { return Interruption.report(name, "\(frames) frames encoded to \(outputPath)") }
        if let warning = report.warnings.first { throw CommandFailure(.input, "vtk encode: \(warning)") }
        return .success
    }
}

extension EncodeCommand {
    /// MP4 for .mp4, .m4v and .mov (QuickTime reads the same boxes), Annex B for anything else except the
    /// extensions of formats vtk does not write, which are refused rather than silently written as H.264.
    static func isMP4(_ path: String, codec: CompressionProperties.Codec = .h264) throws(CommandFailure) -> Bool {
        let ext = path.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }?.lowercased() ?? ""
        if ["mp4", "m4v", "mov"].contains(ext) {
            if path == "-" || path.hasPrefix("-.") { throw CommandFailure(.usage, "vtk encode: MP4 output needs a file name, not standard output") }
            return true
        }
        let otherCodec = codec == .h264 ? ["hevc", "h265", "265"] : ["h264", "264"]
        if (["mkv", "webm", "avi", "ts", "m2ts", "flv", "png", "jpg", "y4m", "yuv"] + otherCodec).contains(ext) {
            let annexB = codec == .h264 ? ".264/.h264" : ".265/.h265/.hevc"
            throw CommandFailure(.usage, "vtk encode: cannot write .\(ext); the output is \(codec.rawValue) as .mp4/.mov (MP4) or \(annexB) "
                                 + "(Annex B); to rewrap: ffmpeg -i out.mp4 -c copy \(path)")
        }
        return false
    }
}

extension CompressionError {
    /// Problems of the device or driver (exit 4) rather than of the request (exit 2).
    var isDeviceProblem: Bool {
        switch self {
        // A driver that lacks the profile or the rate-control mode is the device's limit, not a bad request.
        case .device, .deviceUnavailable, .driverOutput, .unsupportedProfile, .unsupportedRateControl: return true
        default: return false
        }
    }
}

/// Where encoded samples go: an Annex B stream or an MP4 file.
final class EncodedSampleSink {
    private var annexB: OutputFile?
    private var mp4Writer: MP4Writer?
    private let path: String
    private let faststart: Bool
    private let frameRate: (Int, Int)
    private(set) var bytes = 0

    init(path: String, mp4: Bool, faststart: Bool, frameRate: (Int, Int), command: String) throws(CommandFailure) {
        self.path = path
        self.faststart = faststart
        self.frameRate = frameRate
        if !mp4 { annexB = try OutputFile(path, command: command) }
    }

    /// The last format description seen, and the same with VUI timing added (for drivers that write their
    /// own SPS without timing).
    private var timed: (original: H264FormatDescription, withTiming: H264FormatDescription)?
    private var written = 0

    func write(_ samples: [SampleBuffer]) throws(CommandFailure) {
        for var sample in samples {
            defer { written += 1 }
            if let format = sample.formatDescription?.avc {
                if timed?.original != format { timed = (format, format.addingTiming(frameRate)) }
                sample.formatDescription = timed.map { .h264($0.withTiming) }
            }
            bytes += sample.data.count
            if let annexB {
                do { try annexB.write(sample.annexB()) } catch let failure as CommandFailure { throw failure } catch {
                    throw CommandFailure(.internalError, "vtk encode: sample \(written): \(error)")
                }
                continue
            }
            if mp4Writer == nil {
                do {
                    guard let format = sample.formatDescription else { throw MP4Error.invalidWriterInput("the first sample has no format description") }
                    mp4Writer = try MP4Writer(path: path, format: format, timescale: Int32(frameRate.0), faststart: faststart)
                } catch {
                    throw CommandFailure(.output, "vtk encode: cannot write '\(path)': \(error)")
                }
            }
            let duration = MediaTime(value: Int64(frameRate.1), timescale: Int32(frameRate.0))
            do {
                try mp4Writer?.append(sample.data, presentationTime: sample.presentationTime, decodeTime: sample.decodeTime,
                                      duration: duration, isSync: sample.isSync, dependsOnOthers: sample.attachments.dependsOnOthers,
                                      isDependedOnByOthers: sample.attachments.isDependedOnByOthers)
            } catch {
                throw CommandFailure(.output, "vtk encode: writing '\(path)' at sample \(written): \(error)")
            }
        }
    }

    func finish() throws(CommandFailure) {
        do { try mp4Writer?.finish() } catch { throw CommandFailure(.output, "vtk encode: finishing '\(path)': \(error)") }
    }
}
