import Foundation
import Testing
import VTKTestSupport

/// vtk play's keys driven end to end under an Xvfb of its own: xdotool presses space and the arrows, vtk
/// play says what the window shows once it shows it, and xwd reads the window back; the oracle is FFmpeg's
/// decode of the frame due at the time said. Nothing waits on a clock: each step waits for the player's
/// line, and "pause stops time" is checked as no frame shown between two looks at a paused player.
@Suite("vtk play: keys (space, Left, Right, q) under xdotool", .serialized)
struct PlayKeyTests {
    static let server = Xvfb.startPrivate()
    static var ready: Bool {
        VTKBinary.available && ProcessRunner.hasFFmpeg && server != nil && ProcessRunner.which("xdotool") != nil && ProcessRunner.which("xwd") != nil
    }
    static let missing: Comment = "needs the vtk binary, ffmpeg, Xvfb, xdotool and xwd"

    /// 10 s of numbered test pattern at 25 fps, 160x120, IDR every 2 s, B-frames: every frame looks different.
    static func stream() throws -> PlayTests.Stream {
        let url = TestPaths.scratch.appendingPathComponent("play-keys-160x120.264")
        if !FileManager.default.fileExists(atPath: url.path) {
            let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-frames:v", "250",
                                                        "-pix_fmt", "yuv420p", "-c:v", "libx264", "-x264-params", "keyint=50:min-keyint=50:bframes=2:scenecut=0",
                                                        url.path])
            #expect(made.status == 0, "\(made.stderrText)")
        }
        return PlayTests.Stream(url: url, width: 160, height: 120, fps: 25)
    }

    /// A line vtk play said after a key: the media time it names and the time of the frame it shows.
    struct Said {
        let time: Double
        let shownFrameTime: Double
    }

    final class Session {
        let player: VTKTestSupport.BackgroundProcess
        let window: String
        let display: String
        let log: URL
        let stream: PlayTests.Stream

        init(stream: PlayTests.Stream, tag: String) throws {
            display = try #require(PlayKeyTests.server).display
            self.stream = stream
            log = TestPaths.scratch.appendingPathComponent("play-keys-\(tag).jsonl")
            let started = try VTKTestSupport.BackgroundProcess(try #require(VTKBinary.url).path,
                                                               ["play", stream.url.path, "--fps", "25", "--loop", "--timing-log", log.path],
                                                               environment: ["DISPLAY": display])
            player = started
            #expect(started.wait { started.stderr.contains("window 0x") }, "\(started.stderr)")
            let text = started.stderr
            window = try #require(text.range(of: "window 0x").map { "0x" + String(text[$0.upperBound...].prefix { $0.isHexDigit }) }, "\(text)")
        }

        /// Presses `key` and waits for the line beginning with `what`; returns what it says.
        func press(_ key: String, expecting what: String) throws -> Said {
            let before = player.stderr.components(separatedBy: "vtk play: \(what) ").count
            let pressed = try ProcessRunner.run("xdotool", ["key", "--window", window, key], environment: ["DISPLAY": display])
            #expect(pressed.status == 0, "\(pressed.stderrText)")
            #expect(player.wait { player.stderr.components(separatedBy: "vtk play: \(what) ").count > before }, "no '\(what)' after \(key): \(player.stderr)")
            let line = try #require(player.stderr.components(separatedBy: "vtk play: \(what) ").last?.split(separator: "\n").first)
            // "T s, showing the frame at P s"
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
            #expect(numbers.count == 2, "\(line)")
            return Said(time: numbers.first ?? -1, shownFrameTime: numbers.last ?? -1)
        }

        /// The window, read by xwd, shows the frame due at `said.time`: the frame said, which is FFmpeg's frame at that index.
        func expectWindowShows(_ said: Said) throws {
            let period = 1 / stream.fps
            #expect(said.shownFrameTime <= said.time + 1e-6 && said.time < said.shownFrameTime + period, "frame at \(said.shownFrameTime) s is not the one due at \(said.time) s")
            let index = Int((said.shownFrameTime * stream.fps).rounded()) % 250  // --loop: pass after pass
            let shot = TestPaths.scratch.appendingPathComponent("play-keys-\(UUID().uuidString).xwd")
            defer { try? FileManager.default.removeItem(at: shot) }
            let xwd = try ProcessRunner.run("xwd", ["-display", display, "-id", window, "-silent", "-out", shot.path])
            #expect(xwd.status == 0, "\(xwd.stderrText)")
            _ = try PlayTests.expectShows(shot, dueFrame: index, of: stream, frameCount: 250)
        }

        var presentedLines: Int {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { !$0.contains("null") }.count
        }
    }

    @Test("space pauses (the window keeps the frame due, and no frame is shown while paused), Right and Left seek 5 s from the IDR before the target and show the frame due, space resumes, q quits",
          .enabled(if: ready, missing))
    func pauseSeekResumeQuit() throws {
        let session = try Session(stream: try Self.stream(), tag: "pause-seek")
        let paused = try session.press("space", expecting: "paused at")
        try session.expectWindowShows(paused)

        let forward = try session.press("Right", expecting: "sought to")
        #expect(abs(forward.time - (paused.time + 5)) < 1e-6, "Right from \(paused.time) s went to \(forward.time) s")
        try session.expectWindowShows(forward)
        // Paused: after the seek's frame, nothing more is shown however long one looks (here, across an xwd and a key).
        let shownWhilePaused = session.presentedLines

        let back = try session.press("Left", expecting: "sought to")
        #expect(abs(back.time - paused.time) < 1e-6, "Left from \(forward.time) s went to \(back.time) s")
        try session.expectWindowShows(back)
        #expect(session.presentedLines == shownWhilePaused + 1, "frames shown while paused: only the one Left sought to")

        let resumed = try session.press("space", expecting: "resumed at")
        #expect(abs(resumed.time - back.time) < 1e-6, "time moved while paused: \(back.time) s -> \(resumed.time) s")
        #expect(session.player.wait { session.presentedLines > shownWhilePaused + 2 }, "no frame shown after resuming")

        _ = try ProcessRunner.run("xdotool", ["key", "--window", session.window, "q"], environment: ["DISPLAY": session.display])
        #expect(session.player.finish() == 0, "\(session.player.stderr)")
    }
}
