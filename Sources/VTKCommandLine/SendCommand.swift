import CompressionSession
import H264Bitstream
import H264Decoding
import H265Bitstream
import H265Decoding
import MP4
import Playback
import RTP
import RTPSession
import VideoAcceleration
import VTKMedia

/// `vtk send`: an H.264 or H.265 file, or frames encoded live to H.264 or H.265 -> RTP (RFC 6184 packetization-mode 1, RFC 7798).
enum SendCommand {
    static let name = "send"
    static let summary = "H.264/H.265 file, or raw/Y4M frames encoded live -> RTP (RFC 6184, RFC 7798); PLI forces an IDR"
    static let usage = "vtk send INPUT rtp://HOST:PORT [--sdp FILE [--sdp-only]] [--fps F] [--fast] [--mtu N] [--loss P --seed S] [--reorder P] "
        + "[--size WxH --pix-fmt nv12|i420 --qp N | --bitrate BPS --keyint N --codec h264|h265 --profile NAME] [--device auto|soft|PATH]"
    static let options: [OptionSpec] = [
        .value("--sdp", valueName: "FILE", help: "write the stream's SDP (H.264: sprop-parameter-sets, profile-level-id; H.265: sprop-vps/sps/pps) to FILE"),
        .flag("--sdp-only", help: "with --sdp: write the SDP and exit without sending (start the receiver on it, then send)"),
        .flag("--fast", help: "send as fast as possible instead of in real time"),
        .value("--mtu", valueName: "N", help: "largest RTP packet in bytes, header included (default 1200)"),
        .value("--loss", valueName: "P", help: "drop P percent of the packets (deterministic, by sequence number; tests)"),
        .value("--seed", valueName: "S", help: "seed of --loss and --reorder, and of the RTP start values"),
        .value("--reorder", valueName: "P", help: "swap P percent of the packets with their next neighbour (tests)"),
        .value("--frames", valueName: "N", help: "send at most N frames"),
    ] + EncodeOptions.table.map { $0.names.contains("--codec") ? Self.codecOption : $0 }
    /// `--codec` names the codec of an Annex B INPUT, or the codec live frames are encoded to.
    static let codecOption = OptionSpec.value("--codec", valueName: "h264|h265",
                                              help: "live encoding: the codec to encode (default: h264); an Annex B INPUT: its codec (default: told from its NAL unit headers)")
    static let details = """
        INPUT is an H.264 or H.265 file (Annex B or MP4), sent as it is (H.265 by RFC 7798: single NAL unit
        packets, APs and FUs), or raw frames (--size) or a .y4m file, encoded live to H.264 (or H.265 with
        --codec h265) by CompressionSession with the encode options; each encoded frame is sent as it comes out, and an RTCP PLI from the receiver
        makes the next frame an IDR. Packets are paced by presentation time
        (--fps, else the stream's VUI timing, else 25 fps for Annex B) unless --fast; Annex B pictures are sent
        in decoding order and stamped with their display time (found by the decoding process, B-frames too).
        Sender reports go to PORT+1; the closing SR and BYE follow the last packet on PORT.
        """

    static let examples = [
        "vtk send stream.264 rtp://127.0.0.1:5004 --sdp stream.sdp      # then: ffmpeg -protocol_whitelist file,udp,rtp -i stream.sdp ...",
        "vtk send clip.y4m rtp://[::1]:5004 --bitrate 2M --keyint 0      # live encode; IDRs only when the receiver sends a PLI",
        "vtk send clip.y4m rtp://127.0.0.1:5004 --codec h265 --qp 24 --sdp clip.sdp   # live H.265 (RFC 7798), sprop-vps/sps/pps in the SDP",
        "vtk send stream.mp4 rtp://127.0.0.1:5004 --fast --loss 2 --seed 1",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output, .internalError]

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 2 else {
            throw CommandFailure(.usage, "vtk send: INPUT and rtp://HOST:PORT expected, got \(parsed.positionals.count) argument(s)\nusage: \(usage)")
        }
        let url: RTPURL
        do { url = try RTPURL(parsed.positionals[1]) } catch { throw CommandFailure(.usage, "vtk send: \(error)") }
        guard url.port > 0, !url.host.isEmpty, url.host != "@" else { throw CommandFailure(.usage, "vtk send: \(parsed.positionals[1]) needs a host and a port above 0") }
        let mtu = try values.int("mtu", range: 64...65507) ?? 1200
        let loss = try values.double("loss", range: 0...100) ?? 0
        let reorder = try values.double("reorder", range: 0...100) ?? 0
        let seed = try values.int("seed", range: 0...Int.max).map(UInt64.init)
        let frameLimit = try values.int("frames", range: 1...100_000_000)
        var options = try EncodeOptions(parsed, command: name)
        let fast = parsed.has("fast")
        let quiet = parsed.has("quiet")
        let sdpOnly = parsed.has("sdp-only")
        if sdpOnly && parsed["sdp"] == nil { throw CommandFailure(.usage, "vtk send: --sdp-only goes with --sdp FILE") }
        let inputPath = parsed.positionals[0]
        let live = inputPath.lowercased().hasSuffix(".y4m") || options.size != nil
        // A file: its codec from the MP4 sample description, --codec, or the NAL unit headers of Annex B.
        var file: (input: InputFile, mp4: MP4Input?)?
        var codec = VideoCodec.h264
        if !live {
            // A coded file is sent as it is: encode options would be ignored, so they are refused (--codec names its codec).
            if let option = EncodeOptions.encodingOptions.first(where: { $0 != "codec" && parsed.has($0) }) {
                throw CommandFailure(.usage, "vtk send: --\(option) applies to live encoding (raw frames with --size, or .y4m); "
                                     + "\(inputPath) is coded video, sent as it is")
            }
            let input = try InputFile(inputPath, command: name)
            let mp4 = try MP4Input.open(input, command: name)
            file = (input, mp4)
            if let mp4 {
                codec = mp4.codec
            } else if let forced = try CodecDetection.forced(values) {
                codec = forced
            } else {
                codec = CodecDetection.detect(annexB: try input.peek(1 << 16))
            }
        } else {
            codec = options.videoCodec
        }
        let sender: RTPSender
        do {
            sender = try RTPSender(url: url, codec: codec, mtu: mtu, simulator: LossSimulator(lossPercent: loss, reorderPercent: reorder, seed: seed ?? 0),
                                   seed: seed, paced: !fast)
        } catch { throw CommandFailure(error, command: name) }
        var sdpWritten = false
        func writeSDP(_ parameterSets: [[UInt8]]) throws(CommandFailure) {
            guard let path = parsed["sdp"], !sdpWritten else { return }
            sdpWritten = true
            let sdp = SessionDescription(address: url.host, port: url.port, payloadType: sender.payloadType, codec: RTPCodecs.sessionCodec(codec),
                                         parameterSets: parameterSets)
            let file = try OutputFile(path, command: name)
            try file.write(Array(sdp.text.utf8))
        }
        func sdpWrittenOnly() -> ExitCode {
            if !quiet { StandardStreams.error("vtk send: SDP written to \(parsed["sdp"] ?? ""); nothing sent (--sdp-only)\n") }
            return .success
        }
        /// Sends one access unit with RTP time `ticks` (90 kHz) when its decoding time `due` comes (unless --fast).
        func send(_ units: [[UInt8]], ticks: Int64, due: Int64? = nil) throws(CommandFailure) {
            do { try sender.send(units, ticks: ticks, due: due) } catch { throw CommandFailure(error, command: name) }
        }
        func finish() throws(CommandFailure) {
            do { try sender.finish() } catch { throw CommandFailure(error, command: name) }
        }

        if live {
            let source = try options.source(for: inputPath, command: name)
            options.adopt(bitDepthOf: source.pixelFormat)
            options.properties.expectedFrameRate = Double(source.frameRate.0) / Double(source.frameRate.1)
            options.properties.oneFrameInFlight = true
            let connection: VADisplayConnection
            do { connection = try VADisplayConnection.open(options.device) } catch {
                throw CommandFailure(.device, "vtk send: cannot open VA device '\(options.device)': \(error)")
            }
            let session: CompressionSession
            do {
                session = try CompressionSession(width: source.width, height: source.height, properties: options.properties, connection: connection)
                try session.prepareToEncodeFrames()
            } catch {
                throw CommandFailure(error.isDeviceProblem ? .device : .usage, "vtk send: \(error)")
            }
            defer { session.invalidate() }
            var forced = 0
            var index = 0
            var samplesSent = 0
            func sendSamples(_ samples: [SampleBuffer]) throws(CommandFailure) {
                for sample in samples {
                    let units: [[UInt8]]
                    do { units = try sample.accessUnitNALUnits().map { Array($0.bytes) } } catch {
                        throw CommandFailure(.internalError, "vtk send: encoded sample \(samplesSent): \(error)")
                    }
                    try writeSDP((sample.formatDescription?.parameterSetNALUnits ?? []).map { Array($0.bytes) })
                    if sdpOnly { return }
                    let ticks = sample.presentationTime.isNumeric ? Int64((sample.presentationTime.seconds * 90000).rounded()) : Int64(samplesSent) * 3000
                    try send(units, ticks: ticks)
                    samplesSent += 1
                }
            }
            let frameSeconds = Double(source.frameRate.1) / Double(source.frameRate.0)
            sender.startClock()  // the capture clock starts with the first frame, not with the device's set-up
            while frameLimit.map({ index < $0 }) ?? true, !Interruption.requested, !(sdpOnly && sdpWritten), let frame = try source.next() {
                // A live source: frame N is captured at N frame intervals after the start.
                if !fast && !sdpOnly { sender.wait(untilSecondsFromStart: Double(index) * frameSeconds) }
                let keyFrame = sender.takeKeyFrameRequest()
                if keyFrame { forced += 1 }
                let time = MediaTime(value: Int64(index) * Int64(source.frameRate.1), timescale: Int32(source.frameRate.0))
                do { try sendSamples(session.encodeFrame(frame, presentationTime: time, forceKeyFrame: keyFrame)) } catch let failure as CommandFailure {
                    throw failure
                } catch {
                    throw CommandFailure(.device, "vtk send: frame \(index): \(error)")
                }
                index += 1
            }
            do { try sendSamples(session.completeFrames()) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk send: \(error)")
            }
            if sdpOnly { return sdpWrittenOnly() }
            try finish()
            if !quiet {
                StandardStreams.error("vtk send: \(sender.frames) frames encoded live and sent as \(sender.packets) packets to \(parsed.positionals[1]); "
                                      + "\(sender.pliReceived) PLI received, \(forced) IDR forced; \(sender.simulatedDrops) packets dropped (simulated)\n")
            }
            return Interruption.requested ? Interruption.report(name, "RTCP BYE sent after \(sender.frames) frames") : .success
        }

        // A file: MP4 samples with their times, or an Annex B stream in decoding order.
        guard let file else { return .success }
        let (input, mp4) = file
        let fps: Double? = options.frameRate.map { Double($0.0) / Double($0.1) }
        if let mp4 {
            // hvc1 carries the parameter sets in its hvcC, and hev1 may carry them in the samples only; H.264 is sent
            // with its avcC's.
            if mp4.format == nil, codec == .h264 {
                throw CommandFailure(.input, "vtk send: \(input.displayName): the MP4 track has no avcC parameter sets")
            }
            try writeSDP((mp4.format?.parameterSetNALUnits ?? []).map { Array($0.bytes) })
            if sdpOnly { return sdpWrittenOnly() }
            var index = 0
            while frameLimit.map({ index < $0 }) ?? true, !Interruption.requested {
                let sample: MP4Sample?
                do { sample = try mp4.reader.nextSample() } catch { throw CommandFailure(.input, "vtk send: \(input.displayName): sample \(index): \(error)") }
                guard let sample else { break }
                let units: [[UInt8]]
                do {
                    let buffer = sample.sampleBuffer(nalUnitLengthSize: mp4.reader.nalUnitLengthSize, formatDescription: mp4.format)
                    units = try buffer.accessUnitNALUnits().map { Array($0.bytes) }
                } catch {
                    throw CommandFailure(.input, "vtk send: \(input.displayName): sample \(index) at byte \(sample.fileOffset): \(error)")
                }
                let ticks = fps.map { Int64((Double(index) * 90000 / $0).rounded()) } ?? Int64((sample.presentationTime.seconds * 90000).rounded())
                try send(units, ticks: ticks)
                index += 1
            }
        } else {
            // Read in chunks and sent as the display positions become known: the file is never held whole.
            let transmission = AnnexBTransmission(read: { () throws(CommandFailure) in try input.read() }, sender: sender, frameRate: fps, frameLimit: frameLimit,
                                                  shouldStop: { Interruption.requested }) { sets throws(CommandFailure) in
                try writeSDP(sets)
                return !sdpOnly
            }
            let result: AnnexBTransmission.Result
            do { result = try RTPCodecs.run(transmission, for: codec) } catch { throw CommandFailure.from(error, command: name, fallback: .input) }
            switch result {
            case .noPictures:
                throw CommandFailure(.input, "vtk send: no \(codec.name) pictures in \(input.displayName) (an Annex B stream, an MP4, raw frames with --size, or .y4m)")
            case .describedOnly:
                return sdpWrittenOnly()
            case .sent:
                break
            }
        }
        try finish()
        if !quiet {
            StandardStreams.error("vtk send: \(sender.frames) access units sent as \(sender.packets) packets to \(parsed.positionals[1]); "
                                  + "\(sender.simulatedDrops) packets dropped (simulated)\n")
        }
        return Interruption.requested ? Interruption.report(name, "RTCP BYE sent after \(sender.frames) access units") : .success
    }
}
