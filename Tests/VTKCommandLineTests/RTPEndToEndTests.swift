import Foundation
import RTP
import Testing
import VTKTestSupport

enum Loopback {
    /// A vtk receiver on a port the kernel chose; returns once it says it listens.
    static func startReceiver(_ arguments: [String]) throws -> (BackgroundProcess, Int) {
        let receiver = try BackgroundProcess(try #require(VTKBinary.url).path, ["receive", "rtp://@:0"] + arguments)
        #expect(receiver.wait { receiver.stderr.contains("listening on") }, "receiver never listened: \(receiver.stderr)")
        let text = receiver.stderr
        let port = text.range(of: "rtp://@:").flatMap { Int(text[$0.upperBound...].prefix(while: \.isNumber)) }
        return (receiver, try #require(port))
    }

    /// An RTP port whose RTCP neighbour is free too, asked of the kernel (bind port 0).
    static func freePortPair() throws -> Int {
        for _ in 0..<64 {
            let socket = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: 0))
            let port = socket.localPort
            if port < 65535, (try? UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: port + 1))) != nil { return port }
        }
        throw RTPError.address("no free port pair")
    }

    /// True once some process has bound UDP `port` (a third-party receiver is ready).
    static func isBound(_ port: Int) -> Bool {
        let hex = ":" + String(format: "%04X", port) + " "
        return ["/proc/net/udp", "/proc/net/udp6"].contains { (try? String(contentsOfFile: $0, encoding: .utf8))?.contains(hex) ?? false }
    }

    /// RTCP BYE for `ssrc` to a receiver's RTCP port: sent after the sender exited, so every packet is queued before it.
    static func sendBye(port: Int, ssrc: UInt32) throws {
        let socket = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: 0))
        try socket.send(RTCPPacket.compound([.receiverReport(ssrc: ssrc, reports: []), .goodbye(ssrcs: [ssrc])]),
                        to: SocketAddress.resolve(host: "127.0.0.1", port: port + 1))
    }

    /// vtk send writes the SDP (one frame into the void), FFmpeg listens on it, vtk sends `input` whole;
    /// returns what FFmpeg printed (`MD5=` of its decode as `pixelFormat`) and the SDP.
    static func sendToFFmpeg(_ input: URL, pixelFormat: String = "yuv420p") throws -> (output: String, sdp: String) {
        let port = try freePortPair()
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        // The SDP first, so that FFmpeg can listen before the stream starts.
        let probe = try VTKBinary.run(["send", input.path, "rtp://127.0.0.1:\(port)", "--sdp", sdp.path, "--frames", "1", "--fast"])
        #expect(probe.status == 0, "\(probe.stderrText)")
        let ffmpeg = try BackgroundProcess("ffmpeg", ["-v", "error", "-protocol_whitelist", "file,udp,rtp", "-i", sdp.path,
                                                      "-fps_mode", "passthrough", "-pix_fmt", pixelFormat, "-f", "md5", "-"])
        #expect(ffmpeg.wait { isBound(port) }, "ffmpeg never listened: \(ffmpeg.stderr)")
        let send = try VTKBinary.run(["send", input.path, "rtp://127.0.0.1:\(port)", "--fps", "100"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(ffmpeg.finish() == 0, "\(ffmpeg.stderr)")  // vtk's RTCP BYE ends FFmpeg's input
        return (ffmpeg.stdout + ffmpeg.stderr, (try? String(contentsOf: sdp, encoding: .utf8)) ?? "")
    }

    /// vtk sends `input` to gst-launch (udpsrc ! rtph264depay or rtph265depay ! filesink); returns FFmpeg's
    /// output (`MD5=`) for the elementary stream GStreamer wrote, decoded as `pixelFormat`.
    static func sendToGStreamer(_ input: URL, codec: String, pixelFormat: String = "yuv420p") throws -> String {
        let port = try freePortPair()
        // Packetising is deterministic: a first send into the void counts the packets GStreamer must take.
        let count = try VTKBinary.run(["send", input.path, "rtp://127.0.0.1:\(port)", "--fast"])
        let text = count.stderrText
        let packets = try #require(text.range(of: " sent as ").flatMap { Int(text[$0.upperBound...].prefix(while: \.isNumber)) }, "\(text)")
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).es")
        defer { try? FileManager.default.removeItem(at: output) }
        let gst = try BackgroundProcess("gst-launch-1.0", [
            "-q", "udpsrc", "port=\(port)", "num-buffers=\(packets)", "buffer-size=4194304",
            "caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=\(codec),payload=96", "!", "rtp\(codec.lowercased())depay", "!",
            "video/x-\(codec.lowercased()),stream-format=byte-stream,alignment=au", "!", "filesink", "location=\(output.path)",
        ])
        #expect(gst.wait { isBound(port) }, "gst-launch never listened: \(gst.stderr)")
        let send = try VTKBinary.run(["send", input.path, "rtp://127.0.0.1:\(port)", "--fps", "500"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(gst.finish() == 0, "\(gst.stderr)")
        let decoded = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", codec == "H265" ? "hevc" : "h264", "-i", output.path,
                                                       "-pix_fmt", pixelFormat, "-f", "md5", "-"])
        return decoded.stdoutText + decoded.stderrText
    }

    static func ffmpegFrameMD5s(_ file: URL) throws -> [String] {
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", file.path, "-f", "framemd5", "-"])
        return result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    static func json(_ text: String) throws -> [String: Any] {
        let line = try #require(text.split(separator: "\n").last(where: { $0.hasPrefix("{") }))
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite("RTP: FFmpeg and GStreamer against vtk send/receive on loopback",
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
       .serialized)
struct RTPEndToEndTests {
    static let streams = ["BA_MW_D.264", "BANM_MW_D.264", "MIDR_MW_D.264", "NRF_MW_E.264", "MPS_MW_A.264"]

    static func conformance(_ file: String) throws -> ConformanceStream {
        try #require(ConformanceStream.all.first { $0.file == file }, Comment(rawValue: TestPaths.sharedMissingMessage))
    }

    @Test("FFmpeg sends, vtk receive --md5 equals reference.tsv", .enabled(if: !ConformanceStream.all.isEmpty), arguments: streams)
    func ffmpegToVTK(file: String) throws {
        let stream = try Self.conformance(file)
        let (receiver, port) = try Loopback.startReceiver(["--md5", "--stats", "--timeout", "120"])
        let ssrc: UInt32 = 0x1234_5678
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-c", "copy", "-f", "rtp", "-ssrc", "\(ssrc)",
                                                      "rtp://127.0.0.1:\(port)", "-sdp_file", sdp.path])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)  // FFmpeg sends none
        let status = receiver.finish()
        #expect(status == 0, "\(receiver.stderr)")
        #expect(receiver.stdout.contains("MD5=\(stream.md5)"), "\(file): \(receiver.stdout)")
        #expect(receiver.stdout.contains("lost: 0"))
    }

    @Test("vtk sends, FFmpeg receives from the SDP: MD5 equals reference.tsv", .enabled(if: !ConformanceStream.all.isEmpty),
          arguments: ["BA_MW_D.264", "MPS_MW_A.264", "Cisco_Men_whisper_640x320_CABAC_Bframe_9.264"])
    func vtkToFFmpeg(file: String) throws {
        let stream = try Self.conformance(file)
        let output = try Loopback.sendToFFmpeg(stream.url).output
        #expect(output.contains("MD5=\(stream.md5)"), "\(file): \(output)")
    }

    @Test("vtk sends, GStreamer (udpsrc ! rtph264depay) receives: decoded MD5 equals reference.tsv",
          .enabled(if: !ConformanceStream.all.isEmpty),
          .enabled(if: ProcessRunner.which("gst-launch-1.0") != nil, "gst-launch-1.0 is not installed (gstreamer1.0-tools, gstreamer1.0-plugins-good)"),
          arguments: ["BA_MW_D.264", "MPS_MW_A.264"])
    func vtkToGStreamer(file: String) throws {
        let stream = try Self.conformance(file)
        let output = try Loopback.sendToGStreamer(stream.url, codec: "H264")
        #expect(output.contains("MD5=\(stream.md5)"), "\(file): \(output)")
    }

    static let lossStream = GeneratedStream(name: "x264-rtp-loss-320x240", width: 320, height: 240, frames: 300,
                                            encoderOptions: ["-c:v", "libx264", "-threads", "1", "-bf", "0",
                                                             "-x264-params", "keyint=30:min-keyint=30:scenecut=0"])
    static let lossStreamH265 = GeneratedStream(name: "x265-rtp-loss-320x240", width: 320, height: 240, frames: 300,
                                                encoderOptions: ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                                                                 "log-level=error:pools=1:frame-threads=1:bframes=0:keyint=30:min-keyint=30:scenecut=0"],
                                                muxer: "hevc")

    @Test("--loss 2 --seed 1 on 300 frames: every lost packet counted, damaged frames flagged, exact again from the next IDR",
          arguments: [lossStream, lossStreamH265])
    func lossIsCountedFlaggedAndRecovered(stream: GeneratedStream) throws {
        let file = try stream.url()
        let reference = try Loopback.ffmpegFrameMD5s(file)
        #expect(reference.count == 300)
        // Loss on the receiving side, by sequence number; no jitter-buffer wait, so nothing depends on time.
        let (receiver, port) = try Loopback.startReceiver(["--framemd5", "--stats", "--json", "--loss", "2", "--seed", "1",
                                                           "--latency", "0", "--timeout", "120", "--codec", stream.muxer == "hevc" ? "h265" : "h264"])
        let send = try VTKBinary.run(["send", file.path, "rtp://127.0.0.1:\(port)", "--fps", "300", "--mtu", "400"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(receiver.finish() == 3, "loss is an input error: \(receiver.stderr)")
        let stats = try Loopback.json(receiver.stdout)
        let lost = try #require(stats["lost"] as? Int)
        #expect(lost > 0)
        #expect(lost == stats["simulated_drops"] as? Int, "every packet dropped is counted lost, no more")
        #expect(receiver.stderr.contains("\(lost) packet(s) lost"))
        let flagged = Set(try #require(stats["flagged_frames"] as? [Int]))
        #expect(!flagged.isEmpty)
        var frames: [Int: String] = [:]
        for line in receiver.stdout.split(separator: "\n") where !line.hasPrefix("{") {
            let parts = line.split(separator: "\t")
            if parts.count == 2, let index = Int(parts[0]) { frames[index] = String(parts[1]) }
        }
        #expect(frames.count > 200)
        // Every frame not flagged is exact; in particular every IDR that arrived after a flagged frame.
        for (index, md5) in frames where !flagged.contains(index) {
            #expect(index < reference.count && md5 == reference[index], "frame \(index) is wrong but not flagged")
        }
        let recoveries = stride(from: 30, to: 300, by: 30).filter { idr in
            frames[idr] != nil && !flagged.contains(idr) && flagged.contains(where: { $0 < idr && $0 > idr - 30 })
        }
        #expect(!recoveries.isEmpty, "no IDR after a damaged frame came through intact")
    }

    @Test("a live vtk send answers PLI with an IDR within 2 frames of the loss being seen")
    func liveSenderAnswersPLI() throws {
        let y4m = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: y4m) }
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-frames:v", "45",
                                                    "-pix_fmt", "yuv420p", y4m.path])
        #expect(made.status == 0, "\(made.stderrText)")
        let (receiver, port) = try Loopback.startReceiver(["--stats", "--json", "--loss", "3", "--seed", "26", "--latency", "0", "--timeout", "120"])
        // --keyint 0: only the first frame is an IDR unless a PLI asks for one.
        let send = try VTKBinary.run(["send", y4m.path, "rtp://127.0.0.1:\(port)", "--keyint", "0", "--qp", "32"])
        #expect(send.status == 0, "\(send.stderrText)")
        _ = receiver.finish()
        let stats = try Loopback.json(receiver.stdout)
        let pli = try #require(stats["pli_sent"] as? Int)
        #expect(pli > 0, "\(receiver.stdout)")
        #expect(send.stderrText.contains("IDR forced") && !send.stderrText.contains(" 0 IDR forced"), "\(send.stderrText)")
        // Measured on the sender's capture clock (its SRs), so a receiver slowed by load does not count the
        // frames already in flight; the sender reads RTCP before every frame it encodes.
        let intervals = try #require(stats["frame_intervals_from_loss_to_idr"] as? [Double])
        #expect(!intervals.isEmpty, "\(receiver.stdout)")
        #expect(intervals.allSatisfy { $0 <= 2 }, "frame intervals from the loss being seen to the IDR: \(intervals)")
    }

    @Test("bad packets, a port in use and an unusable SDP give clear errors, not crashes")
    func badInput() throws {
        let (receiver, port) = try Loopback.startReceiver(["--stats", "--timeout", "120"])
        let socket = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: 0))
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: port)
        func rtp(_ sequence: UInt16, pt: UInt8 = 96, marker: Bool = true, _ payload: [UInt8]) -> [UInt8] {
            RTPPacket(marker: marker, payloadType: pt, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000, ssrc: 7, payload: payload).serialized()
        }
        let datagrams: [[UInt8]] = [
            rtp(1, [0x09, 0xF0]),  // an access unit delimiter: a good packet, fixes the payload type and SSRC
            [0x80, 96, 0, 2],  // too short
            [0x40] + rtp(3, [0x09, 0xF0]).dropFirst(),  // version 1
            [0xA0] + rtp(4, [0x09, 0xF0, 0x09]).dropFirst(),  // padding of 9 bytes
            rtp(5, [0x7C, 0x05, 1, 2]),  // FU-A without start
            rtp(6, marker: false, [0x7C, 0x85, 1, 2]), rtp(7, [0x09, 0xF0]),  // FU-A start with no end
            rtp(8, [0x18, 0, 40, 0x09, 0xF0]),  // STAP-A length past the end
            rtp(9, pt: 100, [0x09, 0xF0]),  // wrong payload type
        ]
        for datagram in datagrams { try socket.send(datagram, to: target) }
        try Loopback.sendBye(port: port, ssrc: 7)
        #expect(receiver.finish() == 3)
        let text = receiver.stderr
        for phrase in ["too short", "version 1", "padding length 9", "FU-A fragment without its start", "has no end", "overflows", "payload type 100"] {
            #expect(text.contains(phrase), "'\(phrase)' missing from: \(text)")
        }

        // The port is taken now by this test's socket.
        let busy = try VTKBinary.run(["receive", "rtp://@:\(socket.localPort)", "--timeout", "1"])
        #expect(busy.status == 3 && busy.stderrText.contains("already in use"), "\(busy.stderrText)")
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        try "v=0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 VP8/90000\n".write(to: sdp, atomically: true, encoding: .utf8)
        let unusable = try VTKBinary.run(["receive", sdp.path, "--timeout", "1"])
        #expect(unusable.status == 3 && unusable.stderrText.contains("no H264 or H265 payload type"), "\(unusable.stderrText)")
    }
}
