import Foundation
import JSONText
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// `vtk encode --codec h265` and `vtk roundtrip --codec h265` on vtksoft's personas: each negotiates as its
/// driver's table says (iHD Gen12: EncSliceLP with low-delay B, no B-frames; radeonsi and vtksoft: EncSlice
/// with B-frames), the round trip passes its PSNR floor, and what vtk writes decodes in FFmpeg (the oracle):
/// MP4 as hvc1, Main 10 from a 10-bit Y4M as yuv420p10le.
@Suite("vtk encode and roundtrip in H.265", .serialized, .enabled(if: VTKBinary.available, VTKBinary.missing))
struct HEVCEncodeCommandTests {
    struct Case: Sendable, CustomStringConvertible {
        let persona: String
        let arguments: [String]
        let entrypoint: String
        let bFrames: Int
        var description: String { "\(persona) \(arguments.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(persona: "vtksoft", arguments: ["--qp", "27", "--bframes", "2"], entrypoint: "EncSlice", bFrames: 2),
        Case(persona: "vtksoft", arguments: ["--bitrate", "600k", "--rc", "cbr"], entrypoint: "EncSlice", bFrames: 0),
        Case(persona: "ihd-gen12", arguments: ["--qp", "27", "--bframes", "2"], entrypoint: "EncSliceLP", bFrames: 0),
        Case(persona: "ihd-gen12", arguments: ["--bitrate", "600k", "--rc", "vbr", "--maxrate", "1M"], entrypoint: "EncSliceLP", bFrames: 0),
        Case(persona: "radeonsi-26", arguments: ["--qp", "27", "--bframes", "2"], entrypoint: "EncSlice", bFrames: 2),
        Case(persona: "radeonsi-26", arguments: ["--bitrate", "600k", "--rc", "cbr"], entrypoint: "EncSlice", bFrames: 0),
    ]

    @Test("vtk roundtrip --codec h265 --psnr --min-psnr 35 passes on each persona, negotiated as its table says", arguments: cases)
    func roundtrip(_ c: Case) throws {
        let run = try VTKBinary.run(["roundtrip", "--codec", "h265", "--psnr", "--min-psnr", "35", "--size", "192x128", "--frames", "10",
                                     "--device", "soft:\(c.persona)", "--json", "-q"] + c.arguments)
        #expect(run.status == 0, "\(run.stderrText.prefix(600))")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdoutText.utf8)) as? [String: Any])
        #expect(report["codec"] as? String == "H.265")
        #expect(report["entrypoint"] as? String == c.entrypoint)
        #expect(report["b_frames"] as? Int == c.bFrames)
        let psnr = try #require((report["psnr"] as? [String: Any])?["y"] as? Double)
        #expect(psnr >= 35)
    }

    @Test("Main 10 from a 10-bit Y4M: MP4 hvc1, decoded by FFmpeg to yuv420p10le at 40 dB or more",
          .enabled(if: ProcessRunner.which("ffmpeg") != nil, "needs ffmpeg"))
    func main10() throws {
        let source = TestPaths.scratch.appendingPathComponent("hevc-main10-source-\(UUID().uuidString).y4m")
        let output = TestPaths.scratch.appendingPathComponent("hevc-main10-\(UUID().uuidString).mp4")
        let decoded = TestPaths.scratch.appendingPathComponent("hevc-main10-\(UUID().uuidString).yuv")
        let raw = TestPaths.scratch.appendingPathComponent("hevc-main10-source-\(UUID().uuidString).yuv")
        defer { for url in [source, output, decoded, raw] { try? FileManager.default.removeItem(at: url) } }
        let make = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=192x128:rate=30", "-frames:v", "6",
                                                    "-pix_fmt", "yuv420p10le", "-strict", "-1", "-y", source.path])
        try #require(make.status == 0, "\(make.stderrText)")
        let run = try VTKBinary.run(["encode", source.path, "-o", output.path, "--codec", "h265", "--qp", "22", "--bframes", "2", "--device", "soft", "-q"])
        try #require(run.status == 0, "\(run.stderrText.prefix(600))")
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string,profile,pix_fmt", "-of", "csv=p=0", output.path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "Main 10,hvc1,yuv420p10le", "\(probe.stdoutText)")
        for (input, file) in [(output, decoded), (source, raw)] {
            let r = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", input.path, "-f", "rawvideo", "-pix_fmt", "yuv420p10le", file.path])
            #expect(r.status == 0 && r.stderrText.isEmpty, "\(r.stderrText.prefix(300))")
        }
        let psnr = try ProcessRunner.run("ffmpeg", ["-nostdin", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "192x128", "-i", decoded.path,
                                                    "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "192x128", "-i", raw.path, "-lavfi", "psnr", "-f", "null", "-"])
        let line = try #require(psnr.stderrText.split(separator: "\n").last { $0.contains("PSNR y:") })
        let y = try #require(line.split(separator: " ").first { $0.hasPrefix("y:") }.flatMap { Double($0.dropFirst(2)) })
        #expect(y >= 40, "\(line)")
        // Six frames in, six out.
        #expect(try Data(contentsOf: decoded).count == 6 * 192 * 128 * 3)
    }

    @Test("The codec key of an encode matrix case")
    func matrixCodec() throws {
        let fail = { (why: String) in CommandFailure(.input, why) }
        let hevc = try EncodeCase(.object([("name", .string("a")), ("codec", .string("h265"))]), index: 0, fail: fail)
        #expect(hevc.arguments.contains("--codec") && hevc.arguments.contains("h265"))
        let avc = try EncodeCase(.object([("name", .string("b"))]), index: 0, fail: fail)
        #expect(!avc.arguments.contains("--codec"))
        #expect(throws: CommandFailure.self) { try EncodeCase(.object([("name", .string("c")), ("codec", .string("vp9"))]), index: 0, fail: fail) }
    }
}
