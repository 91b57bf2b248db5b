import Foundation
import Testing
import VTKTestSupport

/// `vtk play` on live input (rtp://@:PORT or an SDP) under an Xvfb of its own: vtk send or FFmpeg sends on
/// loopback, and the window must show, at each screenshot time (media time from the first frame), the frame
/// FFmpeg decodes at that index; the timing log must have every frame with its RTP time. What is checked
/// never depends on the machine's speed: a screenshot's frame is never dropped, and the sender's pace only
/// decides how many frames are late, which no assertion counts.
@Suite("vtk play: live RTP input", .serialized)
struct PlayLiveTests {
    static let server = Xvfb.startPrivate()
    static var ready: Bool { VTKBinary.available && ProcessRunner.hasFFmpeg && server != nil }
    static let missing: Comment = "needs the vtk binary, ffmpeg and Xvfb"

    /// vtk play in the background on this suite's X server; returns once it listens, with the port it listens on.
    static func startPlayer(_ arguments: [String]) throws -> (VTKTestSupport.BackgroundProcess, Int) {
        let player = try VTKTestSupport.BackgroundProcess(try #require(VTKBinary.url).path, ["play"] + arguments,
                                                          environment: ["DISPLAY": try #require(server).display])
        #expect(player.wait { player.stderr.contains("listening on") }, "vtk play never listened: \(player.stderr)")
        let text = player.stderr
        let port = text.range(of: "rtp://@:").flatMap { Int(text[$0.upperBound...].prefix(while: \.isNumber)) }
        return (player, try #require(port, "\(text)"))
    }

    /// Screenshot times at 10%, 50% and 85% of the stream, with their file names.
    static func screenshots(_ stream: PlayTests.Stream, frames: Int, tag: String) -> [(time: Double, url: URL)] {
        let duration = Double(frames) / stream.fps
        return [0.1, 0.5, 0.85].enumerated().map { index, fraction in
            ((fraction * duration * 100).rounded() / 100, TestPaths.scratch.appendingPathComponent("play-live-\(tag)-\(index).png"))
        }
    }

    /// The log has one line per frame, numbered in order, with PTS n/fps; returns how many were shown.
    static func checkTimingLog(_ log: URL, frames: Int, fps: Double) throws -> Int {
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == frames, "\(lines.count) log lines for \(frames) frames")
        var shown = 0
        for (n, line) in lines.enumerated() {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(fields["frame"] as? Int == n, "\(line)")
            #expect(abs((fields["pts"] as? Double ?? -1) - Double(n) / fps) < 1e-6, "\(line)")
            if let presented = fields["presented"] as? Double {
                shown += 1
                #expect(presented >= Double(n) / fps - 1e-3, "shown early: \(line)")
            }
        }
        return shown
    }

    @Test("vtk send -> vtk play FILE.sdp (H.264, B-pyramid, vaPutSurface): screenshots at three times show the frame due; the log has every frame at its RTP time",
          .enabled(if: ready, missing))
    func h264FromVTKSend() throws {
        let generated = try #require(GeneratedStream.standard.first { $0.name.contains("bpyramid") })
        let stream = PlayTests.Stream(url: try generated.url(), width: generated.width, height: generated.height, fps: 25)
        let port = try Loopback.freePortPair()
        let sdp = TestPaths.scratch.appendingPathComponent("play-live-h264.sdp")
        let probe = try VTKBinary.run(["send", stream.url.path, "rtp://127.0.0.1:\(port)", "--sdp", sdp.path, "--frames", "1", "--fast"])
        #expect(probe.status == 0, "\(probe.stderrText)")
        let shots = Self.screenshots(stream, frames: generated.frames, tag: "h264")
        let log = TestPaths.scratch.appendingPathComponent("play-live-h264.jsonl")
        let (player, listening) = try Self.startPlayer([sdp.path, "--timing-log", log.path] + shots.flatMap { ["--screenshot", "\($0.time):\($0.url.path)"] })
        #expect(listening == port)
        let send = try VTKBinary.run(["send", stream.url.path, "rtp://127.0.0.1:\(port)", "--fps", "25"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(player.finish() == 0, "\(player.stderr)")  // vtk send's RTCP BYE ends the stream
        #expect(player.stderr.contains("(vaPutSurface)") && player.stderr.contains(", 0 lost"), "\(player.stderr)")
        let shown = try Self.checkTimingLog(log, frames: generated.frames, fps: 25)
        #expect(shown > 0)
        for shot in shots {
            _ = try PlayTests.expectShows(shot.url, dueFrame: Int((shot.time * 25 + 1e-9).rounded(.down)), of: stream, frameCount: generated.frames)
        }
    }

    @Test("FFmpeg sends H.265 from an hvc1 MP4, vtk play FILE.sdp (FFmpeg's SDP, --present x11) shows the frame due at three times",
          .enabled(if: ready, missing))
    func h265FromFFmpeg() throws {
        // Made here with libx265, B-frames, into MP4 so that FFmpeg's RTP timestamps are presentation times.
        let mp4 = TestPaths.scratch.appendingPathComponent("play-live-h265.mp4")
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-frames:v", "30",
                                                    "-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "log-level=error:bframes=3:keyint=10",
                                                    "-tag:v", "hvc1", mp4.path])
        #expect(made.status == 0, "\(made.stderrText)")
        let stream = PlayTests.Stream(url: mp4, width: 320, height: 240, fps: 25)
        let port = try Loopback.freePortPair()
        let sdp = TestPaths.scratch.appendingPathComponent("play-live-h265.sdp")
        let ssrc: UInt32 = 0x1926_5265
        let probe = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", mp4.path, "-frames:v", "1", "-c", "copy", "-f", "rtp",
                                                     "rtp://127.0.0.1:\(port)", "-sdp_file", sdp.path])
        #expect(probe.status == 0, "\(probe.stderrText)")
        let shots = Self.screenshots(stream, frames: 30, tag: "h265")
        let log = TestPaths.scratch.appendingPathComponent("play-live-h265.jsonl")
        let (player, _) = try Self.startPlayer([sdp.path, "--present", "x11", "--timing-log", log.path] + shots.flatMap { ["--screenshot", "\($0.time):\($0.url.path)"] })
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-re", "-i", mp4.path, "-c", "copy", "-f", "rtp", "-ssrc", "\(ssrc)", "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)  // FFmpeg sends none
        #expect(player.finish() == 0, "\(player.stderr)")
        #expect(player.stderr.contains("h265") && (player.stderr.contains("(XShm)") || player.stderr.contains("(XPutImage)")), "\(player.stderr)")
        _ = try Self.checkTimingLog(log, frames: 30, fps: 25)
        for shot in shots {
            _ = try PlayTests.expectShows(shot.url, dueFrame: Int((shot.time * 25 + 1e-9).rounded(.down)), of: stream, frameCount: 30)
        }
    }

    @Test("lost packets: vtk play keeps showing, counts the loss, flags frames and exits 3 as vtk receive does", .enabled(if: ready, missing))
    func lossExitsThree() throws {
        let generated = try #require(GeneratedStream.standard.first { $0.name.contains("640x360") })
        let log = TestPaths.scratch.appendingPathComponent("play-live-loss.jsonl")
        let (player, port) = try Self.startPlayer(["rtp://@:0", "--timing-log", log.path])
        let send = try VTKBinary.run(["send", try generated.url().path, "rtp://127.0.0.1:\(port)", "--fps", "50", "--loss", "5", "--seed", "3"])
        #expect(send.status == 0, "\(send.stderrText)")
        let dropped = try #require(send.stderrText.range(of: "; ").flatMap { Int(send.stderrText[$0.upperBound...].prefix(while: \.isNumber)) }, "\(send.stderrText)")
        #expect(dropped > 0, "\(send.stderrText)")
        #expect(player.finish() == 3, "\(player.stderr)")
        #expect(player.stderr.contains(", \(dropped) lost"), "vtk send dropped \(dropped): \(player.stderr)")
        #expect(player.stderr.contains("packet(s) lost") && player.stderr.contains("flagged"), "\(player.stderr)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { !$0.contains("null") }, "nothing was shown")
    }

    @Test("live input refuses file-only options (exit 2), and a file refuses live-only ones", .enabled(if: VTKBinary.available, VTKBinary.missing),
          arguments: [["rtp://@:0", "--rate", "2"], ["rtp://@:0", "--start", "1"], ["rtp://@:0", "--loop"], ["rtp://@:0", "--mode", "pull"],
                      ["in.264", "--latency", "10"], ["in.264", "--codec", "h265"]])
    func optionsForTheInput(arguments: [String]) throws {
        let result = try VTKBinary.run(["play"] + arguments, extraEnvironment: ["DISPLAY": ""])
        #expect(result.status == 2, "\(result.stderrText)")
        #expect(result.stderrText.contains("--\(arguments[1].dropFirst(2))"), "\(result.stderrText)")
    }

    @Test("keys on a live stream: space pauses on the picture shown, an arrow says a live stream cannot be sought, q ends the player (exit 0)",
          .enabled(if: ready && ProcessRunner.which("xdotool") != nil, "needs xdotool"))
    func keysOnLive() throws {
        let display = try #require(Self.server).display
        let (player, port) = try Self.startPlayer(["rtp://@:0", "--timeout", "600"])
        // FFmpeg sends no RTCP BYE: after the stream the player keeps its window and waits for more.
        let stream = try #require(GeneratedStream.standard.first).url()
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-re", "-i", stream.path, "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        #expect(player.wait { player.stderr.contains("window 0x") }, "\(player.stderr)")
        let text = player.stderr
        let window = try #require(text.range(of: "window 0x").map { "0x" + String(text[$0.upperBound...].prefix { $0.isHexDigit }) })
        for (key, said) in [("space", "vtk play: paused at"), ("Right", "a live stream cannot be sought")] {
            let pressed = try ProcessRunner.run("xdotool", ["key", "--window", window, key], environment: ["DISPLAY": display])
            #expect(pressed.status == 0, "\(pressed.stderrText)")
            #expect(player.wait { player.stderr.contains(said) }, "\(key): \(player.stderr)")
        }
        _ = try ProcessRunner.run("xdotool", ["key", "--window", window, "q"], environment: ["DISPLAY": display])
        #expect(player.finish() == 0, "\(player.stderr)")
    }
}
