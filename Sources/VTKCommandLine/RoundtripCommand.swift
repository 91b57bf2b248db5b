import CompressionSession
import H264Bitstream
import DecompressionSession
import Glibc
import JSONText
import VideoAcceleration
import VTKMedia

/// `vtk roundtrip`: encode, decode back, compare with the source frame by frame.
enum RoundtripCommand {
    static let name = "roundtrip"
    static let summary = "encode, decode back, measure PSNR/SSIM and bit rate, fail below a threshold"
    static let usage = "vtk roundtrip [INPUT] --psnr [--ssim] [--min-psnr DB] [--min-ssim S] [--json] [--plot FILE.svg] [encode options]"
    static let examples = [
        "vtk roundtrip --psnr --min-psnr 35",
        "vtk roundtrip in.y4m --bitrate 1M --ssim --json",
        "vtk roundtrip raw.yuv --size 640x360 --qp 30 --plot quality.svg",
    ]
    static let exitCodes: [ExitCode] = [.success, .thresholdNotMet, .usage, .input, .device, .output, .internalError]
    static let options: [OptionSpec] = [
        .flag("--psnr", help: "measure PSNR (the default when neither --psnr nor --ssim is given)"),
        .flag("--ssim", help: "measure SSIM of the luma plane"),
        .value("--min-psnr", valueName: "DB", help: "exit 1 when the Y-PSNR is below DB"),
        .value("--min-ssim", valueName: "S", help: "exit 1 when the mean Y-SSIM is below S"),
        .flag("--json", help: "print the report as one JSON object on standard output"),
        .value("--plot", valueName: "FILE.svg", help: "write an SVG of per-frame Y-PSNR (and Y-SSIM), bits and picture type per frame"),
        .value("-n", "--frames", valueName: "N", help: "measure at most N frames (the built-in clip has 60 unless told)"),
    ] + EncodeOptions.table
    static let details = """
        INPUT is raw frames (--size required) or a .y4m file; with no INPUT vtk draws a built-in moving test
        pattern (640x360, 30 fps), so that 'vtk roundtrip --psnr' works anywhere.
        PSNR of a plane is 10*log10(255^2/MSE) with the MSE averaged over all frames, as FFmpeg's psnr filter
        reports it; identical planes give 100 dB (the cap), never infinity. The average is weighted 6:1:1
        (Y:U:V). SSIM is libyuv's, on the luma plane, averaged over frames.
        Speed: each stage is timed while it has a picture with the driver, from submitting it until its
        data is back: the coded data for encode, two pictures in flight (as FFmpeg's async depth; time they
        overlap counts once; a picture counts until vtk collects it, so when decoding or PSNR/SSIM is the
        slower stage the encode figure is a floor of the encoder's speed), the decoded frame for decode, one
        picture in flight. The stages overlap, each on
        a thread and a VA display of its own; PSNR/SSIM runs on a third thread, and the input is read (or the
        clip drawn) on a fourth, up to two frames ahead of the encoder. A decoder that holds decoded pictures
        for reordering finishes them out of sight: then no decode speed is given, and the report says why.
        'vtk encode' reports the wall time of a whole run instead.
        --plot writes SVG only (a FILE not named .svg is refused before any work: exit 2).
        """

    /// `VTK_ROUNDTRIP_SERIAL=1`: every stage runs to its end before the next picture encodes (for tests and
    /// comparisons: the pipelined run must give the same figures).
    static var runsSerially: Bool { getenv("VTK_ROUNDTRIP_SERIAL").map { String(cString: $0) == "1" } ?? false }

    struct FrameRecord {
        var index: Int
        var bits: Int
        var quality: FrameQuality
        var idr = false
        /// "I", "P" or "B", from the first slice's slice_type (7.4.3, Table 7-6).
        var type: Character = "?"
    }

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        // Source, decoded and compared frames are allocated and freed on different threads, every picture.
        FreedMemoryReuse.enable()
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count <= 1 else { throw CommandFailure(.usage, "vtk roundtrip: at most one INPUT") }
        var options = try EncodeOptions(parsed, command: name)
        let minPSNR = try values.double("min-psnr", range: 0...100)
        let minSSIM = try values.double("min-ssim", range: 0...1)
        let wantSSIM = parsed.has("ssim") || minSSIM != nil
        let quiet = parsed.has("quiet") || parsed.has("json")
        // The plot's file is checked and opened before the work, so that a bad name costs nothing.
        let plotFile = try parsed["plot"].map { path throws(CommandFailure) in try openPlot(path, input: parsed.positionals.first) }
        var plotWritten = false
        defer { if let plotFile, !plotWritten { plotFile.removeUnwritten() } }
        let source: FrameSource
        let frameLimit = try values.int("frames", range: 1...Int(Int32.max))
        if let input = parsed.positionals.first {
            source = try options.source(for: input, command: name)
            options.adopt(bitDepthOf: source.pixelFormat)
        } else {
            let count = min(frameLimit ?? 60, 100_000)
            if let size = options.size {
                source = TestPatternSource(width: size.width, height: size.height, frames: count)
            } else {
                source = TestPatternSource(frames: count)
            }
        }
        options.properties.expectedFrameRate = Double(source.frameRate.0) / Double(source.frameRate.1)
        // Two pictures in flight (FFmpeg's async depth): the driver codes one while the next is uploaded and
        // the last one's data goes to the decoder. The encode stage's time is the wall time while a picture was
        // with the driver (``BusyClock``); the stream is the same (the VA driver codes in order anyway).
        options.properties.framesInFlight = 2

        let connection: VADisplayConnection
        let decodeConnection: VADisplayConnection
        do {
            connection = try VADisplayConnection.open(options.device, for: .encode)
            // The decoder on a display of its own: its pictures never queue behind the encoder's on one engine.
            decodeConnection = connection.isSoftware ? try VADisplayConnection.open(options.device, for: .decode(nil))
                : try VADisplayConnection.openDRM(connection.devicePath)
        } catch {
            throw CommandFailure(.device, "vtk roundtrip: cannot open VA device '\(options.device)': \(error)")
        }
        let encoder: CompressionSession
        do {
            encoder = try CompressionSession(width: source.width, height: source.height, properties: options.properties, connection: connection)
            try encoder.prepareToEncodeFrames()
        } catch {
            throw CommandFailure(error.isDeviceProblem ? .device : .usage, "vtk roundtrip: \(error)")
        }
        // Decoding (its decoder made from the encoder's format description when the first sample comes back)
        // and the comparison run on threads of their own while the next pictures encode.
        // Raw input is read into the frames the comparison is done with (8-bit: the frame itself is the reference).
        let recycler = (source as? RawFrameSource).flatMap { $0.pixelFormat.is10Bit ? nil : FrameRecycler() }
        (source as? RawFrameSource)?.recycler = recycler
        let stages = RoundtripStages(decodeConnection: decodeConnection, ssim: wantSSIM, serial: runsSerially, recycler: recycler)
        defer {
            encoder.invalidate()
            stages.invalidate()
        }
        try options.report(encoder.warnings, command: name, quiet: quiet)

        let progress = ProgressLine(label: "roundtrip", quiet: quiet)
        var encodeSpeed = StageSpeed()
        var encodeClock = BusyClock()
        var sourceFrames = 0
        // The next pictures are read (or drawn) on a thread of their own while this one encodes.
        let readAhead = FrameReadAhead(source, limit: frameLimit)
        defer { readAhead.stop() }
        while let frame = try readAhead.next() {
            if let failure = stages.failure { throw failure }
            stages.encoded(frame, at: frame.presentationTime)
            sourceFrames += 1
            let samples: [SampleBuffer]
            encodeClock.willSubmit()
            do {
                samples = try encoder.encodeFrame(frame, forceKeyFrame: options.forcedKeyFrames.contains(sourceFrames - 1))
            } catch {
                throw CommandFailure(error.isDeviceProblem ? .device : .input, "vtk roundtrip: encoding frame \(sourceFrames - 1): \(error)")
            }
            encodeSpeed.frames += samples.count
            // Frames given to the session and not back yet (B-frames it holds count: an upper bound, never less).
            encodeClock.collected(inFlight: encoder.framesSubmitted - encodeSpeed.frames, into: &encodeSpeed)
            stages.decode(samples)
            progress.update(frames: sourceFrames, fraction: readAhead.fractionDone)
        }
        do {
            encodeClock.willSubmit()
            let rest = try encoder.completeFrames()
            encodeSpeed.frames += rest.count
            encodeClock.collected(inFlight: 0, into: &encodeSpeed)
            stages.decode(rest)
        } catch {
            throw CommandFailure(.device, "vtk roundtrip: \(error)")
        }
        let results = try stages.finish()
        let records = results.records, decodeSpeed = results.decodeSpeed, totalBytes = results.totalBytes
        progress.finish()
        guard !records.isEmpty else { throw CommandFailure(.input, "vtk roundtrip: no whole frame in \(source.displayName)") }
        if records.count != sourceFrames {
            throw CommandFailure(.internalError, "vtk roundtrip: \(sourceFrames) frames encoded but \(records.count) decoded back")
        }

        var warnings: [String] = []
        if readAhead.partialFrameBytes > 0 && sourceFrames < frameLimit ?? Int.max {
            warnings.append("\(source.displayName) ends with a partial frame of \(readAhead.partialFrameBytes) bytes "
                            + "after \(sourceFrames) whole frame(s), which were measured")
        }
        var report = RoundtripReport(source: source, device: encoder.deviceDescription, entrypoint: encoder.entrypointName,
                                     packedHeaders: encoder.packedHeadersDescription, bFrames: encoder.bFrames, records: records, totalBytes: totalBytes,
                                     encodeSpeed: encodeSpeed, decodeSpeed: decodeSpeed, ssim: wantSSIM,
                                     properties: options.properties, minPSNR: minPSNR, minSSIM: minSSIM, warnings: warnings,
                                     encoderWarnings: encoder.warnings)
        // The plot first: a failure to write it is the run's exit code, which the JSON must then say.
        var plotFailure: CommandFailure?
        if let plotFile {
            do { try plotFile.write(Array(report.svg.utf8)) } catch { plotFailure = error }
            plotWritten = plotFailure == nil
        }
        if let plotFailure { report.exitCodeOverride = plotFailure.code }
        if parsed.has("json") { StandardStreams.out(report.json.text + "\n") } else { StandardStreams.out(report.text) }
        if let plotFailure { throw plotFailure }
        if let warning = warnings.first { throw CommandFailure(report.exitCode, "vtk roundtrip: \(warning)") }
        if !report.failures.isEmpty {
            StandardStreams.error(report.failures.map { "vtk roundtrip: FAIL: \($0)\n" }.joined())
        }
        return report.exitCode
    }

    /// The plot's file, opened for writing: SVG only, refused (exit 2) under another name such as .png,
    /// and found unwritable (exit 5) before any work.
    static func openPlot(_ path: String, input: String?) throws(CommandFailure) -> OutputFile {
        let ext = path.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }?.lowercased() ?? ""
        guard ext == "svg" else {
            throw CommandFailure(.usage, "vtk roundtrip: --plot writes SVG, so its file must be named .svg, not '\(path)'"
                                 + (ext == "png" ? " (for PNG: rsvg-convert -o \(path) plot.svg)" : ""))
        }
        if let input { try OutputFile.refuseOverwriting(input: input, output: path, command: name) }
        return try OutputFile(path, command: name)
    }
}
