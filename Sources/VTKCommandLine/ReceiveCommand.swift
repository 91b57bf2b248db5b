import DecompressionSession
import H264Bitstream
import JSONText
import RTP
import RTPSession
import VideoAcceleration
import VTKMedia

/// `vtk receive`: H.264 or H.265 over RTP -> jitter buffer -> depacketiser -> access units -> decompression session.
enum ReceiveCommand {
    static let name = "receive"
    static let summary = "H.264 or H.265 over RTP (RFC 6184, RFC 7798) -> frames, MD5s; loss, RTCP reports, PLI"
    static let usage = "vtk receive rtp://@:PORT | FILE.sdp [-o OUTPUT [--copy] | --md5 | --framemd5] [--frames N | --duration S] [--latency MS] "
        + "[--stats] [--json] [--loss P --seed S] [--reorder P] [--timeout S] [--codec h264|h265] [--device auto|soft|PATH]"
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "write the frames: FILE.y4m as Y4M, anything else as raw I420 (yuv420p10le for 10-bit); - for standard output"),
        .flag("--copy", help: "with -o FILE.h264|.264|.h265|.265|.mp4: record the stream as it came, without decoding (ffmpeg -c copy)"),
        .flag("--md5", help: "print MD5=<hex> of the whole output as planar I420 (yuv420p10le for 10-bit), display order"),
        .flag("--framemd5", help: "print one line per frame: frame number by RTP time, tab, MD5 of its I420 bytes"),
        .value("--frames", valueName: "N", help: "stop after N decoded frames"),
        .value("--duration", valueName: "S", help: "stop S seconds after the first packet"),
        RTPSource.latencyOption,
        RTPSource.timeoutOption,
        .flag("--stats", help: "print packets, lost, late, reordered, frames decoded and flagged, recovery time, latency"),
        .flag("--json", help: "with --stats: one JSON object instead of text"),
        .value("--loss", valueName: "P", help: "drop P percent of the packets received (deterministic, by sequence number; tests)"),
        .value("--seed", valueName: "S", help: "seed of --loss and --reorder (default 0)"),
        .value("--reorder", valueName: "P", help: "swap P percent of the packets with their next neighbour (tests)"),
        RTPSource.codecOption,
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        rtp://@:PORT listens on every interface (IPv4 and IPv6) on PORT, RTCP on PORT+1; port 0 lets the
        kernel choose. FILE.sdp (from `ffmpeg ... -sdp_file` or `vtk send --sdp`) gives the port, payload type,
        the codec (rtpmap H264 or H265) and the parameter sets (sprop-parameter-sets; sprop-vps, sprop-sps,
        sprop-pps). Once listening, vtk prints 'vtk receive: listening on rtp://@:PORT' on
        standard error. It stops at an RTCP BYE, after --frames or --duration, after --timeout without packets,
        or at SIGINT/SIGTERM (then the frames are written, the statistics and MD5 printed, exit 130). FFmpeg
        sends a BYE only with `-rtpflags send_bye`; without one vtk waits out --timeout (frames released then
        are left out of the latency). Latency is capture to decoded through the sender's SRs when its clock and
        this host's agree (--stats names the clocks), else first packet's arrival to decoded.
        -o FILE.h264/.264, FILE.h265/.265 or FILE.mp4 with --copy records the stream as it came, without decoding;
        an MP4 (avc1 or hvc1, parameter sets from the SDP and the stream) keeps arrival order as decode order and
        the RTP timestamps as presentation times, so B-frames are kept as `ffmpeg -c copy` keeps them.
        Lost packets are counted from sequence-number gaps; frames they damage are flagged, and a PLI
        (RFC 4585) asks the sender for an IDR when a reference picture was hit. Receiver reports (RFC 3550)
        go to the sender once a second. Exit 3 when packets were lost or frames flagged.
        """

    static let examples = [
        "vtk receive rtp://@:5004 --md5 --stats",
        "vtk receive stream.sdp -o out.y4m --frames 300                  # H.264 or H.265, as the SDP's rtpmap says",
        "vtk receive rtp://@:0 --framemd5 --stats --json --loss 2 --seed 1 --latency 0",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output]

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk receive: no source given (rtp://@:PORT or FILE.sdp)\nusage: \(usage)"
                                 : "vtk receive: one source expected, got \(parsed.positionals.count)")
        }
        try values.conflict("frames", "duration")
        if parsed.has("json") && !parsed.has("stats") { throw CommandFailure(.usage, "vtk receive: --json goes with --stats") }
        if parsed.has("seed") && !parsed.has("loss") && !parsed.has("reorder") { throw CommandFailure(.usage, "vtk receive: --seed goes with --loss or --reorder") }
        var settings = try RTPSource.settings(values)
        settings.frameLimit = try values.int("frames", range: 1...100_000_000)
        settings.duration = try values.double("duration", range: 0.001...1e7)
        let loss = try values.double("loss", range: 0...100) ?? 0
        let reorder = try values.double("reorder", range: 0...100) ?? 0
        let seed = try values.int("seed", range: 0...Int.max) ?? 0
        settings.simulator = LossSimulator(lossPercent: loss, reorderPercent: reorder, seed: UInt64(seed))

        let source = try RTPSource(parsed.positionals[0], values: values, command: name)
        var recorder: StreamRecorder?
        if parsed.has("copy") {
            guard let output = parsed["output"], StreamRecorder.isCopyOutput(output) else {
                throw CommandFailure(.usage, "vtk receive: --copy records to -o FILE.h264, FILE.264, FILE.h265, FILE.265 or FILE.mp4")
            }
            for option in ["md5", "framemd5", "loss", "reorder"] where parsed.has(option) {
                throw CommandFailure(.usage, "vtk receive: --\(option) needs decoding; --copy records without decoding")
            }
            recorder = try StreamRecorder(path: output, codec: source.codec, command: name)
        }

        var sinks: [FrameSink] = []
        if parsed.has("md5") { sinks.append(WholeMD5Sink(print: true)) }
        if parsed.has("framemd5") { sinks.append(FrameMD5Sink()) }
        var y4mOutput: String?
        var rawOutput: OutputFile?
        if let output = parsed["output"] {
            if (parsed.has("md5") || parsed.has("framemd5") || parsed.has("stats")) && output == "-" {
                throw CommandFailure(.usage, "vtk receive: -o - and --md5/--framemd5/--stats would all write to standard output")
            }
            if parsed.has("copy") {
                // The recorder writes it.
            } else if StreamRecorder.isCopyOutput(output) {
                throw CommandFailure(.usage, "vtk receive: -o \(output) is a coded stream: add --copy to record it as it came, or write frames (-o out.y4m)")
            } else if output.lowercased().hasSuffix(".y4m") { y4mOutput = output } else { rawOutput = try OutputFile(output, command: name) }
        }

        let device = VADeviceChoice(parsed["device"] ?? "auto")
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch {
            throw CommandFailure(.device, "vtk receive: cannot open VA device '\(device)': \(error)")
        }
        let reception = Reception(parsed: parsed, source: source, settings: settings, connection: connection, sinks: sinks,
                                  y4mOutput: y4mOutput, rawOutput: rawOutput, recorder: recorder)
        do { return try RTPCodecs.run(reception, for: source.codec) } catch { throw CommandFailure.from(error, command: name) }
    }

    /// One reception, with the codec's static type: the decoder, the receiver, the sinks and the report.
    private struct Reception: RTPCodecWork {
        let parsed: ParsedArguments
        let source: RTPSource
        let settings: ReceiverSettings
        let connection: VADisplayConnection
        let sinks: [FrameSink]
        let y4mOutput: String?
        let rawOutput: OutputFile?
        let recorder: StreamRecorder?

        func run<Codec: RTPCodec>(_ codec: Codec.Type) throws -> ExitCode {
            let decoder = try RTPPictureDecoder<Codec>(connection: connection)
            defer { decoder.invalidate() }
            return try receive(decoder: decoder)
        }

        /// Receives into `decoder` and writes the frames to the sinks; raw and Y4M outputs take the layout of the
        /// first frame (I420, or yuv420p10 for 10-bit H.265).
        private func receive<Codec: RTPCodec>(decoder: RTPPictureDecoder<Codec>) throws -> ExitCode {
            let name = ReceiveCommand.name
            var sinks = sinks
            let receiver = try RTPReceiver(port: source.port, description: source.description, settings: settings, decoder: decoder, recorder: recorder)
            if !parsed.has("quiet") || parsed.has("stats") {
                StandardStreams.error("vtk receive: listening on rtp://@:\(receiver.port) (RTCP on \(receiver.port + 1))\n")
            }
            var y4m: Y4MFrameSink?
            var raw: RawFrameSink?
            var index = 0
            try receiver.run { frame in
                if let path = y4mOutput, y4m == nil {
                    let sink = try Y4MFrameSink(path: path, frame: frame.pixelBuffer, frameRate: decoder.frameRate, sampleAspectRatio: decoder.sampleAspectRatio, command: name)
                    y4m = sink
                    sinks.append(sink)
                }
                if let rawOutput, raw == nil {
                    let sink = RawFrameSink(file: rawOutput, format: frame.pixelBuffer.format.planarLayout)
                    raw = sink
                    sinks.append(sink)
                }
                // Frames are numbered by RTP time: a frame lost whole leaves a gap in --framemd5.
                let number = max(index, receiver.displayIndex(frame) ?? index)
                for sink in sinks { try sink.take(frame.pixelBuffer, index: number) }
                index = number + 1
            }
            for sink in sinks { try sink.finish() }
            try recorder?.finish()

            let report = receiver.report
            if parsed.has("stats") {
                let text = parsed.has("json") ? report.json.text + "\n" : report.text
                if parsed["output"] == "-" { StandardStreams.error(text) } else { StandardStreams.out(text) }
            } else if !parsed.has("quiet") {
                let frames = recorder.map { _ in "\(report.framesRecorded) frames recorded to \(parsed["output"] ?? "")" } ?? "\(report.framesDecoded) frames"
                StandardStreams.error("vtk receive: \(frames), \(report.packets) packets, \(report.lost) lost\n")
            }
            if Interruption.requested { return Interruption.report(name, "\(report.framesDecoded) frames decoded from \(report.packets) packets") }
            guard report.packets > 0 else { throw CommandFailure(.input, "vtk receive: no RTP packets arrived on port \(receiver.port)") }
            if let failure = report.damage(decoder.statistics, command: name) { throw failure }
            return .success
        }
    }
}
