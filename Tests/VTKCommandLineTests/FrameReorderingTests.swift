import Foundation
import Testing
import VTKTestSupport

/// B-frames end to end: `vtk encode`/`roundtrip` through vtksoft's native engine (L1 1, packed headers),
/// checked by FFmpeg (picture types, a clean decode of every frame, MP4 presentation times from 0), and
/// the fallback on the openh264 engine (L1 0): a warning, or exit 2 under --strict.
@Suite("vtk with B-frames", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct FrameReorderingTests {
    static let native = ["VTKSOFT_ENCODER": "native"]
    static let frames = 24

    /// 24 frames of 160x96 testsrc2 as Y4M, made once (small: the native engine runs unoptimised in debug builds).
    static let input: Result<URL, Error> = Result {
        let url = TestPaths.scratch.appendingPathComponent("reorder-testsrc2-160x96.y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30", "-frames:v", "\(frames)",
                                                     "-pix_fmt", "yuv420p", "-y", url.path])
            guard r.status == 0 else { throw TraceHeadersError.ffmpegFailed("testsrc2", r.stderrText) }
        }
        return url
    }

    static func ffprobe(_ file: URL, _ entries: String, packets: Bool = false) throws -> [String] {
        let r = try ProcessRunner.run("ffprobe", ["-v", "error", packets ? "-show_packets" : "-show_frames", "-show_entries",
                                                  "\(packets ? "packet" : "frame")=\(entries)", "-of", "csv=p=0", file.path])
        return r.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("--bframes 2 to Annex B: FFmpeg sees IBBP… in display order and decodes every frame without an error")
    func annexB() throws {
        let output = TestPaths.scratch.appendingPathComponent("reorder-bf2.h264")
        let r = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "2", "--keyint", "12", "-o", output.path],
                                  extraEnvironment: Self.native)
        #expect(r.status == 0, "\(r.stderrText)")
        #expect(r.stderrText.contains("packed headers SEQUENCE|SLICE|MISC"))
        let types = try Self.ffprobe(output, "pict_type").joined()
        // Closed GOP of 12: the B-frames before the next IDR close on a P.
        #expect(types == "IBBPBBPBBPBP" + "IBBPBBPBBPBP")
        let decode = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "framemd5", "-"])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
        #expect(decode.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == Self.frames)
    }

    @Test("--bframes 3 --b-pyramid to MP4: presentation times from 0, strictly increasing in display order; ctts and an edit list")
    func mp4() throws {
        let output = TestPaths.scratch.appendingPathComponent("reorder-bf3-pyramid.mp4")
        let r = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "3", "--b-pyramid", "-o", output.path],
                                  extraEnvironment: Self.native)
        #expect(r.status == 0, "\(r.stderrText)")
        let pts = try Self.ffprobe(output, "pts").compactMap { Int($0) }
        #expect(pts.count == Self.frames)
        #expect(pts.first == 0 && zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 }, "\(pts)")
        let packets = try Self.ffprobe(output, "pts,dts", packets: true).map { $0.split(separator: ",").compactMap { Int($0) } }
        // Decode times run two frames (the pyramid's reorder depth) behind, and never pass the presentation time.
        #expect(packets.first == [0, -2])
        #expect(packets.allSatisfy { $0.count == 2 && $0[1] <= $0[0] })
        #expect(try Self.ffprobe(output, "pict_type").joined() == "IBBBPBBBPBBBPBBBPBBBPBBP")
        // sdtp (ISO 14496-12 8.6.4), in decoding order: the IDR depends on nothing (0x24), P pictures and the
        // pyramid's middle B depend and are depended on (0x14), the other B pictures are disposable (0x18).
        let bytes = [UInt8](try Data(contentsOf: output))
        let sdtp = try #require((0..<(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual("sdtp".utf8) })
        let flags = Array(bytes[(sdtp + 8)..<(sdtp + 8 + Self.frames)])
        #expect(Array(flags.prefix(9)) == [0x24, 0x14, 0x14, 0x18, 0x18, 0x14, 0x14, 0x18, 0x18])
    }

    @Test("roundtrip --bframes 3 --psnr --min-psnr 30 passes on the built-in clip and reports B-frames, entrypoint and packed headers")
    func roundtrip() throws {
        let r = try VTKBinary.run(["roundtrip", "--bframes", "3", "--psnr", "--min-psnr", "30", "--json", "--size", "320x192", "--frames", "12"],
                                  extraEnvironment: Self.native)
        #expect(r.status == 0, "\(r.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(report["frames"] as? Int == 12)
        #expect(report["b_frames"] as? Int == 3)
        #expect(report["entrypoint"] as? String == "EncSlice")
        #expect(report["packed_headers"] as? String == "SEQUENCE|SLICE|MISC")
    }

    @Test("A driver without list 1: a warning and P-frames, or exit 2 with --strict")
    func fallback() throws {
        let openh264 = ["VTKSOFT_ENCODER": "openh264"]
        let output = TestPaths.scratch.appendingPathComponent("reorder-fallback.h264")
        let warned = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "2", "-o", output.path], extraEnvironment: openh264)
        #expect(warned.status == 0, "\(warned.stderrText)")
        #expect(warned.stderrText.contains("warning") && warned.stderrText.contains("L1 = 0"))
        #expect(try Self.ffprobe(output, "pict_type").allSatisfy { $0 != "B" })
        let strict = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "2", "--strict", "-o", output.path], extraEnvironment: openh264)
        #expect(strict.status == 2)
        #expect(strict.stderrText.contains("--strict") && strict.stderrText.contains("list-1"))
    }

    @Test("--open-gop: IDR only first; the other key frames are I pictures with a recovery point SEI, which FFmpeg marks as key frames")
    func openGOP() throws {
        let output = TestPaths.scratch.appendingPathComponent("reorder-open-gop.h264")
        let r = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "2", "--keyint", "6", "--open-gop", "-o", output.path],
                                  extraEnvironment: Self.native)
        #expect(r.status == 0, "\(r.stderrText)")
        let frames = try Self.ffprobe(output, "key_frame,pict_type")
        #expect(frames.indices.filter { frames[$0].hasPrefix("1") } == [0, 6, 12, 18])
        #expect(frames.map { $0.split(separator: ",").last.map(String.init) ?? "" }.joined() == "IBBPBBIBBPBBIBBPBBIBBPBP")
        let decode = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
    }

    @Test("--force-idr puts IDRs on the asked frames, B-frames or not")
    func forcedIDR() throws {
        let output = TestPaths.scratch.appendingPathComponent("reorder-forced.h264")
        let r = try VTKBinary.run(["encode", try Self.input.get().path, "--bframes", "2", "--keyint", "0", "--force-idr", "7,17", "-o", output.path],
                                  extraEnvironment: Self.native)
        #expect(r.status == 0, "\(r.stderrText)")
        let keys = try Self.ffprobe(output, "key_frame")
        #expect(keys.indices.filter { keys[$0] == "1" } == [0, 7, 17])
    }
}
