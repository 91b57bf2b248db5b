import CompressionSession
import Foundation
import H264Bitstream
import MP4
import VideoAcceleration
import VTKMedia

/// `vtk encode`: raw NV12/I420 or Y4M frames -> H.264 (Annex B or MP4).
enum EncodeCommand {
    static let name = "encode"
    static let summary = "NV12/I420 or Y4M frames -> H.264 (Annex B, or MP4)"
    static let usage = "vtk encode INPUT -o OUTPUT [--size WxH] [--pix-fmt nv12|i420] [--fps N] [--qp N | --bitrate BPS [--rc cbr|vbr]] [--keyint N] [--bframes N [--b-pyramid]] [--refs N] [--profile constrained-baseline|main|high] [--device auto|soft|PATH]"
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "FILE.mp4 as MP4, anything else as an H.264 Annex B stream; - for standard output"),
        .flag("--faststart", help: "with MP4 output, put the movie box before the media data (streamable)"),
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
        let source: FrameSource = inputPath == "-" && options.size == nil
            ? try Y4MFrameSource(path: "-", command: name) : try options.source(for: inputPath, command: name)
        options.properties.expectedFrameRate = Double(source.frameRate.0) / Double(source.frameRate.1)
        let quiet = parsed.has("quiet")
        let mp4 = outputPath.lowercased().hasSuffix(".mp4")
        if mp4 && outputPath == "-" { throw CommandFailure(.usage, "vtk encode: MP4 output needs a file name") }

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
        while let frame = try source.next() {
            do { try sink.write(session.encodeFrame(frame, forceKeyFrame: options.forcedKeyFrames.contains(frames))) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk encode: frame \(frames): \(error)")
            }
            frames += 1
            progress.update(frames: frames, fraction: source.fractionDone)
        }
        do { try sink.write(session.completeFrames()) } catch let failure as CommandFailure { throw failure } catch {
            throw CommandFailure(.device, "vtk encode: \(error)")
        }
        try sink.finish()
        progress.finish()
        let elapsed = Clock.now() - started
        if frames == 0 {
            throw CommandFailure(.input, "vtk encode: no whole frame in \(source.displayName)")
        }
        if !quiet {
            let seconds = Double(frames) * Double(source.frameRate.1) / Double(source.frameRate.0)
            let kbps = seconds > 0 ? Double(sink.bytes * 8) / seconds / 1000 : 0
            StandardStreams.error("vtk encode: \(frames) frames \(source.width)x\(source.height) -> \(outputPath), \(sink.bytes) bytes "
                                  + "(\(String(format1: kbps)) kbit/s) on \(session.deviceDescription) \(session.entrypointName), packed headers \(session.packedHeadersDescription), \(String(format2: elapsed)) s "
                                  + "(\(String(format1: elapsed > 0 ? Double(frames) / elapsed : 0)) fps)\n")
        }
        if source.partialFrameBytes > 0 {
            throw CommandFailure(.input, "vtk encode: \(source.displayName) ends with a partial frame of \(source.partialFrameBytes) bytes "
                                 + "after \(frames) whole frame(s); the whole frames were encoded to \(outputPath)")
        }
        return .success
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

    private var written = 0

    func write(_ samples: [SampleBuffer]) throws(CommandFailure) {
        for sample in samples {
            defer { written += 1 }
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
                    mp4Writer = try MP4Writer(path: path, formatDescription: format, timescale: Int32(frameRate.0), faststart: faststart)
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
