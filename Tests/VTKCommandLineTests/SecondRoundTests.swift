import Foundation
import RTP
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// Issue 25's second new-user round: probe of H.265 in MP4, RTP conveniences and messages, options that were
/// ignored without a word. FFmpeg/ffprobe is the oracle wherever there is one.
@Suite("Second new-user round: probe H.265 MP4, RTP, ignored options", .serialized)
struct SecondRoundTests {
    static var available: Bool { VTKBinary.available && ProcessRunner.hasFFmpeg }
    static let missing: Comment = "needs the vtk binary and ffmpeg"

    // MARK: probe

    /// libx265 into MP4 three ways: hev1 (FFmpeg's default), hvc1, and fragmented.
    static let hevcMP4s: [(name: String, options: [String])] = [
        ("hev1", []),
        ("hvc1", ["-tag:v", "hvc1"]),
        ("fragmented", ["-movflags", "frag_keyframe+empty_moov"]),
    ]

    @Test("vtk probe x265.mp4 names H.265 with profile, level, size and frame count as ffprobe does", .enabled(if: available, missing),
          arguments: [0, 1, 2])
    func probeH265MP4(variant: Int) throws {
        let (label, options) = Self.hevcMP4s[variant]
        let file = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-\(label).mp4")
        defer { try? FileManager.default.removeItem(at: file) }
        let make = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25", "-frames:v", "37",
                                                    "-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "log-level=error:keyint=12:bframes=2"]
                                         + options + [file.path])
        try #require(make.status == 0, "\(make.stderrText)")
        let ffprobe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                        "stream=codec_name,profile,level,width,height,nb_read_frames", "-of", "json", file.path])
        let oracle = try #require(((try JSONSerialization.jsonObject(with: ffprobe.stdout) as? [String: Any])?["streams"] as? [[String: Any]])?.first)
        let probe = try VTKBinary.run(["probe", file.path, "--json"])
        #expect(probe.status == 0, "\(label): \(probe.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any], "\(label): \(probe.stdoutText)")
        #expect(json["codec"] as? String == "h265" && oracle["codec_name"] as? String == "hevc")
        #expect((json["profile"] as? String)?.lowercased() == (oracle["profile"] as? String)?.lowercased(), "\(label)")
        // ffprobe gives general_level_idc (30 × the level number, A.4).
        #expect(((json["level"] as? Double) ?? 0) * 30 == Double(oracle["level"] as? Int ?? -1), "\(label)")
        #expect(json["width"] as? Int == oracle["width"] as? Int && json["height"] as? Int == oracle["height"] as? Int)
        #expect(json["frames"] as? Int == Int(oracle["nb_read_frames"] as? String ?? ""), "\(label)")
        // The text form, and --codec h265 (which made it worse) now reads it the same way.
        let text = try VTKBinary.run(["probe", file.path, "--codec", "h265"])
        #expect(text.status == 0 && text.stdoutText.contains("codec:       H.265 "), "\(label): \(text.stdoutText) \(text.stderrText)")
        let wrong = try VTKBinary.run(["probe", file.path, "--codec", "h264"])
        #expect(wrong.status == 2 && wrong.stderrText.contains("H.265"), "--codec h264 contradicts the MP4: \(wrong.stderrText)")
    }

    // MARK: RTP

    static func stream() throws -> URL {
        try GeneratedStream(name: "second-round-60", width: 160, height: 96, frames: 60,
                            encoderOptions: ["-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "keyint=20:bframes=0"]).url()
    }

    @Test("vtk send --sdp FILE --sdp-only writes the SDP and sends nothing", .enabled(if: available, missing))
    func sdpOnly() throws {
        let port = try Loopback.freePortPair()
        let rtp = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: port))
        let rtcp = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: port + 1))
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        let result = try VTKBinary.run(["send", try Self.stream().path, "rtp://127.0.0.1:\(port)", "--sdp", sdp.path, "--sdp-only"])
        #expect(result.status == 0, "\(result.stderrText)")
        let text = try String(contentsOf: sdp, encoding: .utf8)
        #expect(text.contains("sprop-parameter-sets="), "\(text)")
        #expect(text.contains("m=video \(port) RTP/AVP 96"), "\(text)")
        // The process has ended: anything it sent is queued on the sockets by now.
        #expect(try rtp.receiveNow() == nil, "an RTP packet was sent")
        #expect(try rtcp.receiveNow() == nil, "an RTCP packet was sent")
        let alone = try VTKBinary.run(["send", try Self.stream().path, "rtp://127.0.0.1:\(port)", "--sdp-only"])
        #expect(alone.status == 2, "--sdp-only without --sdp: \(alone.stderrText)")
    }

    @Test("vtk receive -o out.h264|out.mp4 --copy records without decoding: FFmpeg decodes what was sent",
          .enabled(if: available, missing), arguments: ["h264", "mp4"])
    func receiveCopy(ext: String) throws {
        let stream = try Self.stream()
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).\(ext)")
        defer { try? FileManager.default.removeItem(at: output) }
        let (receiver, port) = try Loopback.startReceiver(["-o", output.path, "--copy", "--timeout", "120"])
        let send = try VTKBinary.run(["send", stream.path, "rtp://127.0.0.1:\(port)", "--fps", "200"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        #expect(receiver.stderr.contains("60 frames recorded"), "\(receiver.stderr)")
        func md5(_ file: URL) throws -> String {
            try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", file.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"]).stdoutText
        }
        let sent = try md5(stream)
        #expect(sent.hasPrefix("MD5="))
        #expect(try md5(output) == sent)
        let refused = try VTKBinary.run(["receive", "rtp://@:0", "-o", output.path])
        #expect(refused.status == 2 && refused.stderrText.contains("--copy"), "\(refused.stderrText)")
    }

    @Test("FFmpeg sending H.265 to vtk receive rtp://@:PORT (H.264 by default): one line that names --codec h265",
          .enabled(if: available, missing))
    func wrongCodecHint() throws {
        let file = try GeneratedStream(name: "second-round-x265", width: 160, height: 96, frames: 50,
                                       encoderOptions: ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:keyint=10"],
                                       muxer: "hevc").url()
        let (receiver, port) = try Loopback.startReceiver(["--md5", "--timeout", "120"])
        let ffmpeg = try BackgroundProcess("ffmpeg", ["-v", "error", "-re", "-i", file.path, "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(port)"])
        defer { ffmpeg.stop() }
        #expect(receiver.finish() == 3, "\(receiver.stderr)")
        let lines = receiver.stderr.split(separator: "\n").filter { !$0.contains("listening on") }
        #expect(lines.count == 1, "one line: \(receiver.stderr)")
        #expect(lines.first?.contains("use --codec h265") == true, "\(receiver.stderr)")
        #expect(!receiver.stdout.contains("MD5="), "no MD5 of nothing: \(receiver.stdout)")
    }

    @Test("A busy RTCP port (PORT+1) is named as RTCP", .enabled(if: VTKBinary.available, VTKBinary.missing))
    func busyRTCPPort() throws {
        let port = try Loopback.freePortPair()
        let holder = try UDPSocket(binding: SocketAddress.resolve(host: "@", port: port + 1))
        defer { _ = holder }
        let result = try VTKBinary.run(["receive", "rtp://@:\(port)", "--timeout", "1"])
        #expect(result.status == 3)
        #expect(result.stderrText.contains("RTCP on port \(port + 1)"), "\(result.stderrText)")
    }

    // MARK: statistics

    @Test("Statistics: a true median, no empty PLI fields, latency never negative and its clocks named, RTP positions for byte offsets")
    func statisticsText() {
        #expect(abs((ReceiveReport.percentile([1050.3, 17.4], 50) ?? 0) - 533.85) < 1e-9)
        #expect(ReceiveReport.percentile([3, 1, 2], 50) == 2)
        var report = ReceiveReport()
        #expect(report.text.contains("IDR after PLI: no PLI sent"), "\(report.text)")
        #expect(!report.text.contains(" ,"), "an empty field: \(report.text)")
        report.pliSent = 3
        report.framesFromPLIToIDR = [4, 3, 1]
        #expect(report.text.contains("IDR after PLI: frames received 4,3,1"), "\(report.text)")
        // A sender whose SR clock runs ahead (FFmpeg) gives negative values: they are not printed as latency.
        report.latenciesFromSenderReports = [-0.093, -0.090]
        report.latenciesFromArrival = [0.020, 0.030]
        #expect(report.latencies.allSatisfy { $0 >= 0 })
        #expect(report.text.contains("latency: median 25.0 ms"), "\(report.text)")
        #expect(report.text.contains("first packet's arrival to decoded"), "\(report.text)")
        report.latenciesFromSenderReports = [0.040]
        #expect(report.text.contains("do not give capture times"), "an unknown sender's SRs are not trusted: \(report.text)")
        report.senderReportsGiveCaptureTime = true
        #expect(report.text.contains("capture (sender's wall clock"), "\(report.text)")
        report.frameOrigins = [(0, 100, 9000), (5000, 107, 12000)]
        #expect(report.placedInRTP("picture(s) lost before byte 5200: frame_num gap from 14 to 1")
                == "picture(s) lost before the frame from RTP sequence number 107, timestamp 12000: frame_num gap from 14 to 1")
    }

    // MARK: play

    @Test("vtk play --decode-delay 50 --frames 30: the summary counts the 30 frames played, shown + dropped = 30, as the timing log does",
          .enabled(if: PlayTests.ready, PlayTests.missing))
    func playCatchesUp() throws {
        let stream = try GeneratedStream(name: "second-round-play-90", width: 160, height: 96, frames: 90,
                                         encoderOptions: ["-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "keyint=10:bframes=0"]).url()
        let log = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        let result = try PlayTests.play([stream.path, "--decode-delay", "50", "--frames", "30", "--timing-log", log.path])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30)
        let shownLines = lines.filter { !$0.contains("\"presented\":null") && !$0.contains("\"presented\": null") }
        #expect(result.stderrText.contains("\(shownLines.count) frames shown, \(30 - shownLines.count) dropped"), "\(result.stderrText)")
        // Catching up itself is timed on a manual clock in DisplayLayerTests (slowDecoderCatchesUp): here the
        // machine's speed decides how many frames make it, so only the accounting is asserted.
    }

    @Test("Seconds said by vtk play are to the millisecond")
    func playSeconds() {
        #expect(String(format3: 1.1571883209999214) == "1.157")
        #expect(String(format3: 0.0404) == "0.040")
        #expect(String(format3: 12) == "12.000")
    }

    // MARK: options ignored without a word

    @Test("Options that would be ignored exit 2: --size/--pix-fmt with Y4M, --qp on coded input to send, --b-pyramid with --bframes 1",
          .enabled(if: available, missing))
    func ignoredOptionsAreRefused() throws {
        let y4m = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: y4m) }
        let make = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "2",
                                                    "-pix_fmt", "yuv420p", y4m.path])
        try #require(make.status == 0)
        let out = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).h264")
        defer { try? FileManager.default.removeItem(at: out) }
        for extra in [["--size", "320x240"], ["--pix-fmt", "nv12"]] {
            let result = try VTKBinary.run(["encode", y4m.path, "-o", out.path] + extra)
            #expect(result.status == 2 && result.stderrText.contains("\(extra[0]) is for raw input"), "\(extra): \(result.stderrText)")
        }
        let send = try VTKBinary.run(["send", try Self.stream().path, "rtp://127.0.0.1:9", "--qp", "20"])
        #expect(send.status == 2 && send.stderrText.contains("--qp applies to live encoding"), "\(send.stderrText)")
        let pyramid = try VTKBinary.run(["encode", y4m.path, "-o", out.path, "--bframes", "1", "--b-pyramid"])
        #expect(pyramid.status == 2 && pyramid.stderrText.contains("--b-pyramid needs --bframes 2"), "\(pyramid.stderrText)")
    }

    @Test("Help: H.265 decode at the top, exit codes 6 and 130 in every command's list", .enabled(if: VTKBinary.available, VTKBinary.missing))
    func help() throws {
        let top = try VTKBinary.run(["--help"]).stdoutText
        #expect(top.contains("H.265"), "\(top)")
        #expect(top.contains("  130  interrupted"))
        for command in ["encode", "decode", "roundtrip", "info", "probe", "send", "receive", "play", "suite"] {
            let text = try VTKBinary.run(["help", command]).stdoutText
            #expect(text.contains("  6  internal error") && text.contains("  130  interrupted"), "\(command)")
        }
        #expect(!(try VTKBinary.run(["help", "suite"]).stdoutText.contains("before B-frames exist")))
    }
}
