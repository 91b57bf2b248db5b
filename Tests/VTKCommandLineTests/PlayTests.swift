import Foundation
import PixelConversion
import Testing
import VTKMedia
import VTKTestSupport

/// `vtk play` under the test process's Xvfb: what the window shows, read back from the X server (by
/// `--screenshot` and by xwd), against FFmpeg's decode of the same stream put through the same RGB
/// conversion; drops under a slowed decoder; the exit without a display. Timing itself is checked on a
/// manual clock in VideoDisplayTests: nothing here depends on how fast the machine is.
@Suite("vtk play", .serialized)  // one window at a time: windows on one screen would cover each other
struct PlayTests {
    /// An X server of the suite's own, so that its windows never cover those of tests reading the shared one's root window.
    static let server = Xvfb.startPrivate()
    static var ready: Bool { VTKBinary.available && ProcessRunner.hasFFmpeg && server != nil }
    static let missing: Comment = "needs the vtk binary, ffmpeg and Xvfb"

    /// A stream and the frame rate it is played at.
    struct Stream: CustomStringConvertible, Sendable {
        let url: URL
        let width: Int
        let height: Int
        let fps: Double
        var description: String { url.lastPathComponent }
    }

    /// Three streams made here (CAVLC baseline, CABAC with B-pyramid, odd size with slices), at 25 fps.
    static func generated() throws -> [Stream] {
        try GeneratedStream.standard.filter { $0.width <= 320 && $0.height <= 240 }.map { Stream(url: try $0.url(), width: $0.width, height: $0.height, fps: 25) }
    }

    /// Three conformance streams: several IDRs, CABAC, non-reference frames.
    static func conformance() -> [Stream] {
        ConformanceStream.all.filter { ["MIDR_MW_D.264", "CI_MW_D.264", "NRF_MW_E.264"].contains($0.file) }
            .map { Stream(url: $0.url, width: $0.width, height: $0.height, fps: 25) }
    }

    /// `vtk play` on `server` (the suite's own X server unless another suite passes its own).
    static func play(_ arguments: [String], on server: Xvfb? = PlayTests.server) throws -> ProcessRunner.Result {
        try VTKBinary.run(["play"] + arguments, extraEnvironment: ["DISPLAY": try #require(server).display])
    }

    /// FFmpeg's decode of `stream`, frame `index` (display order), as I420.
    static func reference(_ stream: Stream, frame index: Int) throws -> PixelBuffer {
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
                                                      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        return try #require(PixelBuffer(format: .i420, width: stream.width, height: stream.height, packed: result.stdout[...].map { $0 }[...]))
    }

    /// Packed RGB of an image file FFmpeg reads (PNG, XWD).
    static func rgb(of url: URL) throws -> [UInt8] {
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        return [UInt8](result.stdout)
    }

    /// The luma PSNR of `shot` against the frames around `due`; the frame due must be the best match, at 40 dB or more.
    static func expectShows(_ shot: URL, dueFrame due: Int, of stream: Stream, frameCount: Int) throws -> Double {
        let picture = RGBImage(width: stream.width, height: stream.height, bytes: try rgb(of: shot))
        #expect(picture.bytes.count == stream.width * stream.height * 3, "\(shot.lastPathComponent): wrong size")
        var psnr: [Int: Double] = [:]
        for index in max(0, due - 1)...min(frameCount - 1, due + 1) {
            // FFmpeg's decode through the same RGB conversion as vtk play's (libyuv, BT.601 limited range).
            psnr[index] = picture.lumaPSNR(RGBImage(width: stream.width, height: stream.height, bytes: PixelConverter.rgb(try reference(stream, frame: index))))
        }
        let best = psnr.max { $0.value < $1.value }?.key
        #expect(best == due, "\(stream) \(shot.lastPathComponent): best match frame \(best ?? -1), due \(due); PSNRs \(psnr)")
        #expect(psnr[due] ?? 0 >= 40, "\(stream): frame \(due) at \(psnr[due] ?? 0) dB")
        return psnr[due] ?? 0
    }

    static func frameCount(_ stream: Stream) throws -> Int {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                                       "-of", "csv=p=0", stream.url.path])
        return try #require(Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Screenshots at three times equal FFmpeg's frame due at each time. `present` is vtk play's --present:
    /// "auto" takes VA's vaPutSurface on vtksoft (which can present), "x11" the XShm/XPutImage path.
    static func checkScreenshots(_ stream: Stream, mode: String, present: String = "auto", on server: Xvfb? = PlayTests.server) throws {
        let count = try frameCount(stream)
        let duration = Double(count) / stream.fps
        let times = [0.1, 0.5, 0.85].map { ($0 * duration * 100).rounded() / 100 }
        let shots = times.enumerated().map { TestPaths.scratch.appendingPathComponent("play-\(stream)-\(mode)-\(present)-\($0.offset).png") }
        let result = try play([stream.url.path, "--fps", "\(Int(stream.fps))", "--rate", "4", "--mode", mode, "--present", present]
                              + zip(times, shots).flatMap { ["--screenshot", "\($0):\($1.path)"] }, on: server)
        #expect(result.status == 0, "\(result.stderrText)")
        // The window line names the path that drew the pictures.
        let path = present == "x11" ? ["(XShm)", "(XPutImage)"] : ["(vaPutSurface)"]
        #expect(path.contains { result.stderrText.contains($0) }, "--present \(present): \(result.stderrText)")
        for (time, shot) in zip(times, shots) {
            let psnr = try expectShows(shot, dueFrame: Int((time * stream.fps + 1e-9).rounded(.down)), of: stream, frameCount: count)
            print("vtk play \(stream) \(mode) --present \(present): screenshot at \(time) s: \(String(format: "%.2f", psnr)) dB")
        }
    }

    @Test("--screenshot at three times shows the frame due at each, on three generated streams, drawn by vtksoft's vaPutSurface (Y-PSNR >= 40 dB, the best of its neighbours)",
          .enabled(if: ready, missing))
    func screenshotsGenerated() throws {
        let streams = try Self.generated()
        #expect(streams.count == 3)
        for (stream, mode) in zip(streams, ["pull", "push", "pull"]) { try Self.checkScreenshots(stream, mode: mode) }
    }

    @Test("--screenshot at three times shows the frame due at each, on three conformance streams, put by XShm (--present x11)", .enabled(if: ready, missing))
    func screenshotsConformance() throws {
        let streams = Self.conformance()
        guard !streams.isEmpty else {
            print("vtk play: \(TestPaths.sharedMissingMessage)")
            return
        }
        #expect(streams.count == 3)
        for stream in streams { try Self.checkScreenshots(stream, mode: "pull", present: "x11") }
    }

    @Test("a device that cannot present (the nvidia persona refuses vaPutSurface): --present va exits 4 naming it, auto falls back to XShm",
          .enabled(if: ready, missing))
    func presentationFallback() throws {
        let stream = try #require(try Self.generated().first)
        let refused = try Self.play([stream.url.path, "--device", "soft:nvidia", "--present", "va", "--frames", "3", "--rate", "4"])
        #expect(refused.status == 4, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("--present va") && refused.stderrText.contains("present"), "\(refused.stderrText)")
        let shot = TestPaths.scratch.appendingPathComponent("play-nvidia-fallback.png")
        let fallback = try Self.play([stream.url.path, "--device", "soft:nvidia", "--fps", "25", "--frames", "10", "--rate", "4", "--screenshot", "0.2:\(shot.path)"])
        #expect(fallback.status == 0, "\(fallback.stderrText)")
        #expect(fallback.stderrText.contains("(XShm)") || fallback.stderrText.contains("(XPutImage)"), "\(fallback.stderrText)")
        _ = try Self.expectShows(shot, dueFrame: 5, of: stream, frameCount: try Self.frameCount(stream))
    }

    @Test("--start in the middle of a GOP decodes from the IDR before it and shows the picture due at the target", .enabled(if: ready, missing))
    func seekLandsOnTarget() throws {
        // keyint=15 at 25 fps: IDRs at frames 0 and 15; frame 21 is due at 0.84 s.
        let stream = try #require(try Self.generated().first)
        let shot = TestPaths.scratch.appendingPathComponent("play-seek.png")
        let log = TestPaths.scratch.appendingPathComponent("play-seek.jsonl")
        let result = try Self.play([stream.url.path, "--start", "0.84", "--screenshot", "0.84:\(shot.path)", "--rate", "4", "--timing-log", log.path])
        #expect(result.status == 0, "\(result.stderrText)")
        _ = try Self.expectShows(shot, dueFrame: 21, of: stream, frameCount: 30)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains("\"pts\": 0.84") == true || lines.first?.contains("\"pts\":0.84") == true, "\(lines.first ?? "")")
        #expect(lines.count == 30 - 21)
    }

    @Test("xwd reads the window of a still picture (--rate 0) as the frame due at --start; q quits", .enabled(if: ready && ProcessRunner.which("xwd") != nil && ProcessRunner.which("xdotool") != nil, "needs xwd and xdotool"))
    func xwdStill() throws {
        let stream = try #require(try Self.generated().dropFirst().first)  // 320x240, B-pyramid
        let display = try #require(Self.server).display
        let log = TestPaths.scratch.appendingPathComponent("play-still.jsonl")
        let player = try VTKTestSupport.BackgroundProcess(try #require(VTKBinary.url).path,
                                                          ["play", stream.url.path, "--start", "1", "--rate", "0", "--timing-log", log.path],
                                                          environment: ["DISPLAY": display])
        #expect(player.wait { (try? String(contentsOf: log, encoding: .utf8))?.contains("\"presented\"") == true && player.outputText.contains("window 0x") })
        let text = player.outputText
        let window = try #require(text.range(of: "window 0x").map { String(text[$0.upperBound...].prefix { $0.isHexDigit }) })
        let shot = TestPaths.scratch.appendingPathComponent("play-still.xwd")
        let xwd = try ProcessRunner.run("xwd", ["-display", display, "-id", "0x\(window)", "-silent", "-out", shot.path])
        #expect(xwd.status == 0, "\(xwd.stderrText)")
        _ = try Self.expectShows(shot, dueFrame: 25, of: stream, frameCount: 40)
        let key = try ProcessRunner.run("xdotool", ["key", "--window", "0x\(window)", "q"], environment: ["DISPLAY": display])
        // xdotool's own status is not asserted: vtk play quits on the key press and destroys its window, so the
        // key release xdotool sends next may meet BadWindow (a race it can lose). The player exiting 0 is the check.
        _ = key
        #expect(player.wait(timeout: 60) { !player.isRunning })
        let end = player.stop()
        #expect(end.status == 0, "\(end.output)")
    }

    @Test("a decode slowed on purpose (--decode-delay) drops late frames and counts them: the log's nulls are the summary's drops",
          .enabled(if: ready, missing), arguments: ["pull", "push"])
    func slowDecodeDrops(mode: String) throws {
        let stream = try #require(try Self.generated().first)
        let log = TestPaths.scratch.appendingPathComponent("play-drops-\(mode).jsonl")
        // 100 ms per decode against a 40 ms frame period: at most 40% of the frames can be on time, however fast the machine.
        let result = try Self.play([stream.url.path, "--decode-delay", "100", "--mode", mode, "--timing-log", log.path])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30)
        let dropped = lines.filter { $0.contains("\"presented\": null") || $0.contains("\"presented\":null") }.count
        #expect(dropped >= 15, "only \(dropped) of 30 dropped")
        #expect(result.stderrText.contains("\(30 - dropped) frames shown, \(dropped) dropped"), "\(result.stderrText)")
        // Frames are never shown before they are due (PTS / rate after the start).
        for line in lines {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let presented = fields["presented"] as? Double, let pts = fields["pts"] as? Double { #expect(presented >= pts - 1e-3, "\(line)") }
        }
    }

    @Test("the timing log has one line per frame, numbered, with the PTS at the rate asked and a presentation time or null",
          .enabled(if: ready, missing), arguments: ["pull", "push"])
    func timingLog(mode: String) throws {
        let stream = try #require(try Self.generated().first)
        let log = TestPaths.scratch.appendingPathComponent("play-log-\(mode).jsonl")
        let result = try Self.play([stream.url.path, "--fps", "30", "--rate", "2", "--mode", mode, "--frames", "20", "--timing-log", log.path])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 20)
        for (n, line) in lines.enumerated() {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(fields["frame"] as? Int == n)
            #expect(abs((fields["pts"] as? Double ?? -1) - Double(n) / 30) < 1e-6, "\(line)")
            #expect(fields["presented"] is Double || fields["presented"] is NSNull, "\(line)")
            if let presented = fields["presented"] as? Double { #expect(presented >= Double(n) / 30 / 2 - 1e-3, "shown early: \(line)") }
        }
    }

    @Test("without a display vtk play exits 4 with one line", .enabled(if: VTKBinary.available, VTKBinary.missing),
          arguments: ["", "nonexistent.invalid:0"])
    func noDisplay(display: String) throws {
        let stream = try #require(try GeneratedStream.standard.first).url()
        let result = try VTKBinary.run(["play", stream.path], extraEnvironment: ["DISPLAY": display])
        #expect(result.status == 4)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.contains("display") == true, "\(result.stderrText)")
    }
}
