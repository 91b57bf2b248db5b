import Foundation
import Testing
import VTKTestSupport

/// `vtk play` on H.265, under an X server of the suite's own: screenshots against FFmpeg's decode of the
/// frame due, through the same RGB conversion (PlayTests' checks), on both presentation paths, from an
/// Annex B stream, an hvc1 MP4 and a Main 10 conformance stream; a start in the middle of an open GOP.
@Suite("vtk play H.265", .serialized)  // one window at a time
struct PlayH265Tests {
    static let server = Xvfb.startPrivate()
    static var ready: Bool { VTKBinary.available && ProcessRunner.hasFFmpeg && server != nil }
    static let missing: Comment = "needs the vtk binary, ffmpeg with libx265 and Xvfb"

    /// 30 frames of 320x240 at 25 fps with B-pyramid and open GOPs: frame 15 is a CRA whose leading pictures
    /// (RASL, frames 12 to 14) follow it in decoding order.
    static let generated = GeneratedStream(name: "x265-bpyramid-opengop-320x240", width: 320, height: 240, frames: 30,
                                           encoderOptions: ["-c:v", "libx265", "-x265-params",
                                                            "log-level=error:bframes=3:b-pyramid=1:keyint=15:min-keyint=15:scenecut=0:open-gop=1"],
                                           muxer: "hevc")

    static func annexB() throws -> PlayTests.Stream {
        PlayTests.Stream(url: try generated.url(), width: generated.width, height: generated.height, fps: 25)
    }

    /// The same encoded straight into MP4 as hvc1 (parameter sets in hvcC, B-frames by ctts and an edit list).
    /// Not a remux of the Annex B file: FFmpeg's `-c copy` from raw H.265 writes no composition offsets.
    static let generatedMP4 = GeneratedStream(name: "x265-bpyramid-opengop-320x240-hvc1", width: 320, height: 240, frames: 30,
                                              encoderOptions: generated.encoderOptions + ["-tag:v", "hvc1"], muxer: "mp4")

    static func mp4() throws -> PlayTests.Stream {
        PlayTests.Stream(url: try generatedMP4.url(), width: generatedMP4.width, height: generatedMP4.height, fps: 25)
    }

    @Test("an Annex B H.265 stream with B-frames: --screenshot at three times shows the frame due, through vaPutSurface and through XShm, pull and push",
          .enabled(if: ready, missing), arguments: ["va", "x11"], ["pull", "push"])
    func annexBScreenshots(present: String, mode: String) throws {
        try PlayTests.checkScreenshots(try Self.annexB(), mode: mode, present: present, on: Self.server)
    }

    @Test("an H.265 MP4 (hvc1): --screenshot at three times shows the frame due, through vaPutSurface and through XShm",
          .enabled(if: ready, missing), arguments: ["va", "x11"])
    func mp4Screenshots(present: String) throws {
        try PlayTests.checkScreenshots(try Self.mp4(), mode: "pull", present: present, on: Self.server)
    }

    @Test("a Main 10 conformance stream (x265_cif_main10.265, decoded on P010 surfaces): --screenshot at three times shows the frame due, through vaPutSurface and through XShm",
          .enabled(if: ready, missing), arguments: ["va", "x11"])
    func main10Screenshots(present: String) throws {
        guard let row = H265ConformanceStream.named("x265_cif_main10.265") else {
            print("vtk play H.265 Main 10: SKIPPED, \(TestPaths.sharedMissingMessage)")
            return
        }
        try PlayTests.checkScreenshots(PlayTests.Stream(url: row.url, width: row.width, height: row.height, fps: 25), mode: "pull", present: present,
                                       on: Self.server)
    }

    @Test("--start in the middle of an open GOP decodes from the CRA before it (its RASL pictures skipped) and shows the picture due at the target",
          .enabled(if: ready, missing), arguments: ["va", "x11"])
    func seekLandsOnTarget(present: String) throws {
        // The CRA is frame 15 (0.6 s), decoded before frames 12 to 14; frame 21 is due at 0.84 s.
        let stream = try Self.annexB()
        let shot = TestPaths.scratch.appendingPathComponent("play-h265-seek-\(present).png")
        let log = TestPaths.scratch.appendingPathComponent("play-h265-seek-\(present).jsonl")
        let result = try PlayTests.play([stream.url.path, "--fps", "25", "--start", "0.84", "--screenshot", "0.84:\(shot.path)", "--rate", "4",
                                         "--present", present, "--timing-log", log.path], on: Self.server)
        #expect(result.status == 0, "\(result.stderrText)")
        let psnr = try PlayTests.expectShows(shot, dueFrame: 21, of: stream, frameCount: 30)
        print("vtk play H.265 --start 0.84 --present \(present): \(String(format: "%.2f", psnr)) dB against frame 21")
        // Frames 21 to 29 follow in the log, each at its own time; the 6 from the CRA to the target are decoded only.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30 - 21, "\(lines)")
        for (n, line) in lines.enumerated() {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(abs((fields["pts"] as? Double ?? -1) - Double(21 + n) / 25) < 1e-6, "\(line)")
        }
        #expect(result.stderrText.contains("6 decoded only to reach a seek target"), "\(result.stderrText)")
    }

    @Test("without --fps an H.265 Annex B stream is timed by its VUI (30 fps here): the timing log's PTS are n/30", .enabled(if: ready, missing))
    func vuiTiming() throws {
        let stream = try GeneratedStream(name: "x265-vui-30fps-176x144", width: 176, height: 144, frames: 10,
                                         encoderOptions: ["-r", "30", "-c:v", "libx265", "-x265-params", "log-level=error:bframes=2"], muxer: "hevc").url()
        let vui = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", stream.path])
        #expect(vui.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "30/1", "ffprobe: \(vui.stdoutText)")
        let log = TestPaths.scratch.appendingPathComponent("play-h265-vui.jsonl")
        let result = try PlayTests.play([stream.path, "--rate", "4", "--timing-log", log.path], on: Self.server)
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 10, "\(lines)")
        for (n, line) in lines.enumerated() {
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(abs((fields["pts"] as? Double ?? -1) - Double(n) / 30) < 1e-6, "\(line)")
        }
    }
}
