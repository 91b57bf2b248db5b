import Foundation
import RTP
import Testing
import VTKTestSupport

/// H.265 over RTP (RFC 7798) between vtk and FFmpeg or GStreamer on loopback; the oracle is reference.tsv.
@Suite("RTP H.265: FFmpeg and GStreamer against vtk send/receive on loopback",
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
       .serialized)
struct RTPH265EndToEndTests {
    static func conformance(_ file: String) throws -> ConformanceStream {
        try #require(H265ConformanceStream.named(file), Comment(rawValue: TestPaths.sharedMissingMessage))
    }

    /// FFmpeg's output pixel format for the reference's layout (Main 10 is summed over yuv420p10le).
    static func pixelFormat(_ stream: ConformanceStream) -> String { stream.profile == "Main 10" ? "yuv420p10le" : "yuv420p" }

    @Test("FFmpeg sends H.265, vtk receive (codec from the SDP's rtpmap) --md5 equals reference.tsv",
          .enabled(if: !H265ConformanceStream.all.isEmpty),
          arguments: ["x265_cif_ippp_ctu64.265", "x265_cif_bpyramid.265", "x265_cif_slices4.265", "x265_720p_medium.265", "x265_cif_main10.265"])
    func ffmpegToVTK(file: String) throws {
        let stream = try Self.conformance(file)
        let port = try Loopback.freePortPair()
        let ssrc: UInt32 = 0x2654_7798
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        // The SDP as FFmpeg writes it for this stream (one frame into the void), then the receiver reads it.
        let probe = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-frames:v", "1", "-c", "copy", "-f", "rtp",
                                                     "rtp://127.0.0.1:\(port)", "-sdp_file", sdp.path])
        #expect(probe.status == 0, "\(probe.stderrText)")
        let receiver = try BackgroundProcess(try #require(VTKBinary.url).path, ["receive", sdp.path, "--md5", "--stats", "--timeout", "120"])
        #expect(receiver.wait { receiver.stderr.contains("listening on") }, "receiver never listened: \(receiver.stderr)")
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-c", "copy", "-f", "rtp", "-ssrc", "\(ssrc)",
                                                      "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)  // FFmpeg sends none
        let status = receiver.finish()
        #expect(status == 0, "\(receiver.stderr)")
        #expect(receiver.stdout.contains("MD5=\(stream.md5)"), "\(file): \(receiver.stdout)")
        #expect(receiver.stdout.contains("lost: 0") && receiver.stdout.contains("frames: \(stream.frames) decoded"), "\(receiver.stdout)")
    }

    @Test("vtk sends H.265 (single NAL, AP, FU), FFmpeg receives from the SDP: MD5 equals reference.tsv",
          .enabled(if: !H265ConformanceStream.all.isEmpty),
          arguments: ["x265_cif_bpyramid.265", "x265_720p_medium.265", "x265_cif_main10.265"])
    func vtkToFFmpeg(file: String) throws {
        let stream = try Self.conformance(file)
        let (output, sdp) = try Loopback.sendToFFmpeg(stream.url, pixelFormat: Self.pixelFormat(stream))
        #expect(sdp.contains("a=rtpmap:96 H265/90000") && sdp.contains("sprop-vps=") && sdp.contains("sprop-sps=") && sdp.contains("sprop-pps="), "\(sdp)")
        #expect(output.contains("MD5=\(stream.md5)"), "\(file): \(output)")
    }

    @Test("vtk sends an H.265 MP4 (hvc1: parameter sets from its hvcC), FFmpeg receives: MD5 equals reference.tsv",
          .enabled(if: !H265ConformanceStream.all.isEmpty))
    func mp4ToFFmpeg() throws {
        let stream = try Self.conformance("x265_cif_bpyramid.265")
        let mp4 = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: mp4) }
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-c", "copy", "-tag:v", "hvc1", mp4.path])
        #expect(made.status == 0, "\(made.stderrText)")
        let (output, sdp) = try Loopback.sendToFFmpeg(mp4)
        #expect(sdp.contains("sprop-vps="), "\(sdp)")
        #expect(output.contains("MD5=\(stream.md5)"), "\(output)")
    }

    @Test("vtk sends H.265, GStreamer (udpsrc ! rtph265depay) receives: decoded MD5 equals reference.tsv",
          .enabled(if: !H265ConformanceStream.all.isEmpty),
          .enabled(if: ProcessRunner.which("gst-launch-1.0") != nil, "gst-launch-1.0 is not installed (gstreamer1.0-tools, gstreamer1.0-plugins-good)"),
          arguments: ["x265_cif_bpyramid.265", "x265_720p_medium.265"])
    func vtkToGStreamer(file: String) throws {
        let stream = try Self.conformance(file)
        let output = try Loopback.sendToGStreamer(stream.url, codec: "H265", pixelFormat: Self.pixelFormat(stream))
        #expect(output.contains("MD5=\(stream.md5)"), "\(file): \(output)")
    }

    @Test("GStreamer sends H.265 (rtph265pay), vtk receive --codec h265 --md5 equals reference.tsv",
          .enabled(if: !H265ConformanceStream.all.isEmpty),
          .enabled(if: ProcessRunner.which("gst-launch-1.0") != nil, "gst-launch-1.0 is not installed (gstreamer1.0-tools, -plugins-good, -plugins-bad)"),
          arguments: ["x265_cif_bpyramid.265", "x265_720p_medium.265"])
    func gstreamerToVTK(file: String) throws {
        let stream = try Self.conformance(file)
        let (receiver, port) = try Loopback.startReceiver(["--codec", "h265", "--md5", "--stats", "--timeout", "120"])
        let ssrc: UInt32 = 0x7798
        let gst = try ProcessRunner.run("gst-launch-1.0", ["-q", "filesrc", "location=\(stream.url.path)", "!", "h265parse", "!",
                                                          "rtph265pay", "config-interval=-1", "pt=96", "mtu=1200", "ssrc=\(ssrc)", "!",
                                                          "udpsink", "host=127.0.0.1", "port=\(port)"])
        #expect(gst.status == 0, "\(gst.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)  // rtph265pay sends none
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        #expect(receiver.stdout.contains("MD5=\(stream.md5)"), "\(file): \(receiver.stdout)")
        #expect(receiver.stdout.contains("lost: 0") && receiver.stdout.contains("frames: \(stream.frames) decoded"), "\(receiver.stdout)")
    }

    @Test("bad H.265 packets (FU without start, start without end, AP overflow, wrong PT, too short) give clear errors")
    func badInput() throws {
        let port = try Loopback.freePortPair()
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        try SessionDescription(address: "127.0.0.1", port: port, codec: .h265).text.write(to: sdp, atomically: true, encoding: .utf8)
        let receiver = try BackgroundProcess(try #require(VTKBinary.url).path, ["receive", sdp.path, "--stats", "--timeout", "120"])
        #expect(receiver.wait { receiver.stderr.contains("listening on") }, "receiver never listened: \(receiver.stderr)")
        let socket = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: 0))
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: port)
        func rtp(_ sequence: UInt16, pt: UInt8 = 96, marker: Bool = true, _ payload: [UInt8]) -> [UInt8] {
            RTPPacket(marker: marker, payloadType: pt, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000, ssrc: 9, payload: payload).serialized()
        }
        let datagrams: [[UInt8]] = [
            rtp(1, [0x46, 0x01, 0x10]),  // an access unit delimiter: a good packet, fixes the SSRC
            [0x80, 96, 0, 2],  // too short
            rtp(3, [0x02]),  // payload shorter than its 2-byte header
            rtp(4, [0x62, 0x01, 0x13, 1, 2]),  // FU without start
            rtp(5, marker: false, [0x62, 0x01, 0x93, 1, 2]), rtp(6, [0x46, 0x01, 0x10]),  // FU start with no end
            rtp(7, [0x60, 0x01, 0, 40, 0x46, 0x01, 0x10]),  // AP length past the end
            rtp(8, pt: 100, [0x46, 0x01, 0x10]),  // wrong payload type
            rtp(9, [0x64, 0x01, 0, 0]),  // PACI
        ]
        for datagram in datagrams { try socket.send(datagram, to: target) }
        try Loopback.sendBye(port: port, ssrc: 9)
        #expect(receiver.finish() == 3)
        let text = receiver.stderr
        for phrase in ["too short", "shorter than its 2-byte header", "FU fragment without its start", "has no end", "AP: NAL unit size 40",
                       "overflows", "payload type 100", "PACI"] {
            #expect(text.contains(phrase), "'\(phrase)' missing from: \(text)")
        }
    }
}
