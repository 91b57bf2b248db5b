import Foundation
import Testing
import VTKTestSupport

/// `vtk decode` is written once for H.264 and H.265 (StreamDecode): each test runs the same assertions on a
/// libx264 and a libx265 stream made at run time, so what H.264 does H.265 does too.
@Suite("vtk decode: H.264 and H.265 behave alike", .serialized)
struct CodecParityTests {
    /// A codec as the tests make its streams: ffmpeg's encoder and muxer, and the file extension.
    struct Codec: Sendable, CustomStringConvertible {
        let name: String
        let encoder: [String]
        let muxer: String
        var description: String { name }

        static let all = [
            Codec(name: "H.264", encoder: ["-c:v", "libx264", "-x264-params", "bframes=0"], muxer: "h264"),
            Codec(name: "H.265", encoder: ["-c:v", "libx265", "-x265-params", "log-level=none:bframes=0"], muxer: "hevc"),
        ]

        /// A stream of `frames` frames of `size`, one IDR then P pictures (no B: decoding order is display order).
        func stream(_ size: String, frames: Int, in folder: URL, name: String) throws -> URL {
            let url = folder.appendingPathComponent("\(name).\(muxer)")
            try Fixture.ffmpeg(Fixture.testsrc(size, frames: frames) + encoder + ["-f", muxer, url.path])
            return url
        }
    }

    /// Rules: the size change is where the second stream's IDR is (frame 4); a Y4M file has one size, so a file
    /// input is refused before anything is written (the pictures are counted first), and a pipe, which cannot
    /// be read twice, stops at the change with the frames before it written whole and named.
    @Test("a mid-stream size change: both sizes in the summary; Y4M refused up front, or finished and named from a pipe",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: Codec.all)
    func sizeChange(_ codec: Codec) throws {
        let dir = try Fixture.folder("parity-resize")
        let both = dir.appendingPathComponent("ab.\(codec.muxer)")
        try (try Data(contentsOf: codec.stream("96x64", frames: 4, in: dir, name: "a"))
             + Data(contentsOf: codec.stream("64x48", frames: 3, in: dir, name: "b"))).write(to: both)

        let decode = try VTKBinary.run(["decode", both.path, "--device", "soft"])
        #expect(decode.status == 0, "\(decode.stderrText)")
        #expect(decode.stderrText.contains("7 frames 96x64, 64x48 from frame 4"), "\(decode.stderrText)")

        let y4m = dir.appendingPathComponent("ab.y4m")
        let refused = try VTKBinary.run(["decode", both.path, "-o", y4m.path, "--device", "soft"])
        #expect(refused.status == 2, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("a Y4M file has one size") && refused.stderrText.contains("(-n 4)"), "\(refused.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: y4m.path))

        let piped = try VTKBinary.run(["decode", "-", "-o", y4m.path, "--device", "soft"], stdin: both)
        #expect(piped.status == 5, "\(piped.stderrText)")
        #expect(piped.stderrText.contains("frames 0-3 were written to \(y4m.path)"), "\(piped.stderrText)")
        // The Y4M file holds the four frames before the change, whole: FFmpeg reads them all.
        let written = try Data(contentsOf: y4m)
        let header = written.prefix { $0 != 0x0A }.count + 1
        #expect(written.count == header + 4 * (6 + 96 * 64 * 3 / 2))
        let frames = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", y4m.path])
        #expect(frames.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "4")
    }

    /// Rules: libavcodec (5.1) conceals damaged HEVC slice data silently, so the driver's error is made with
    /// vtksoft's VTKSOFT_FAIL_PICTURE hook on picture 4 (decoding order, which is display order here): vaSyncSurface
    /// answers DECODING_ERROR and vaQuerySurfaceError names the blocks. vtk must flag that frame and, as every
    /// later P picture is predicted from it, frames 5-9 too (6 frames); output every frame, and exit 3. Frames
    /// 0-3 come before it and stay unflagged.
    @Test("a picture the driver reports DECODING_ERROR for is flagged, on the vtksoft persona",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: Codec.all)
    func decodingError(_ codec: Codec) throws {
        let dir = try Fixture.folder("parity-error")
        let url = try codec.stream("128x96", frames: 10, in: dir, name: "p")
        let clean = try VTKBinary.run(["decode", url.path, "--device", "soft:vtksoft", "--json"])
        #expect(clean.status == 0, "\(clean.stderrText)")
        let cleanSummary = try #require(try JSONSerialization.jsonObject(with: clean.stdout) as? [String: Any])
        #expect(cleanSummary["damaged_frames"] as? Int == 0)

        let failed = try VTKBinary.run(["decode", url.path, "--device", "soft:vtksoft", "--json"], extraEnvironment: ["VTKSOFT_FAIL_PICTURE": "4"])
        #expect(failed.status == 3, "\(failed.stderrText)")
        let summary = try #require(try JSONSerialization.jsonObject(with: failed.stdout) as? [String: Any])
        #expect(summary["frames"] as? Int == 10)
        #expect(summary["damaged_frames"] as? Int == 6, "\(failed.stdoutText)")
        let problems = (summary["problems"] as? [Any])?.map { "\($0)" } ?? []
        #expect(problems.contains { $0.contains("picture 4: the decoder concealed errors") }, "\(problems)")
        #expect(!problems.contains { $0.contains("picture 3") }, "\(problems)")
        #expect(failed.stderrText.contains("of them possibly wrong"), "\(failed.stderrText)")
    }

    /// Rules: a pipe has no file name to look at, so its first bytes are read for what it is; with `--codec`, what
    /// is not that codec's Annex B stream (a Y4M file, an MP4, the other codec) is refused with what it is, exit 3.
    @Test("from a pipe, what is not the codec's stream is named and refused",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: Codec.all)
    func pipeSignature(_ codec: Codec) throws {
        let dir = try Fixture.folder("parity-pipe")
        let option = codec.muxer == "hevc" ? "h265" : "h264"
        let y4m = dir.appendingPathComponent("raw.y4m"), mp4 = dir.appendingPathComponent("coded.mp4")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 2) + [y4m.path])
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 2) + codec.encoder + [mp4.path])
        let other = try Codec.all.first { $0.name != codec.name }.map { try $0.stream("64x48", frames: 2, in: dir, name: "other") }
        for (input, expected) in [(y4m, "is a Y4M file of raw frames, not \(codec.name)"), (mp4, "is an MP4 file; MP4 needs seeking"),
                                  (try #require(other), "stream, not \(codec.name): leave out --codec \(option)")] {
            let result = try VTKBinary.run(["decode", "-", "--codec", option, "--md5", "--device", "soft"], stdin: input)
            #expect(result.status == 3, "\(input.lastPathComponent): \(result.stderrText)")
            #expect(result.stderrText.contains(expected), "\(input.lastPathComponent): \(result.stderrText)")
            #expect(!result.stdoutText.contains("MD5="))
        }
    }
}
