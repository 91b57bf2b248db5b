import Foundation
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// `vtk roundtrip` decodes and measures on threads of their own while it encodes (issue 28). Rules of comparison:
/// 1. The oracle is FFmpeg: its psnr filter on the stream `vtk encode` writes with the same options (the same
///    bytes: HonestNumbersTests checks that), against the same source, frame by frame in display order.
///    FFmpeg prints each PSNR to two decimals, so a frame agrees within 0.01 dB. Frames are paired by
///    number (setpts=N/30/TB: a raw H.264 stream with B-frames has no timestamps to pair by), and `shortest=1`
///    keeps the filter from repeating the stream's last frame against the source's end.
/// 2. Order and figures do not depend on timing: a run whose every picture waits on the driver
///    (`VTKSOFT_PICTURE_DELAY_MS`, so the stages drift apart) reports the same per-frame figures.
/// 3. The pipeline changes nothing but the time: a serial run (`VTK_ROUNDTRIP_SERIAL=1`, every stage done
///    before the next picture encodes) gives the same report, field for field, speed aside (wall times).
@Suite("roundtrip stages (issue 28)", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct RoundtripStagesTests {
    static func perFrame(_ result: ProcessRunner.Result) throws -> [[String: Any]] {
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText) \(result.stderrText)")
        return try #require(report["per_frame"] as? [[String: Any]], "\(report)")
    }

    static func lumaPSNR(_ frame: [String: Any]) -> Double? { (frame["psnr"] as? [String: Any])?["y"] as? Double }

    @Test("per-frame figures, in display order, are FFmpeg's psnr of the stream vtk encode writes, whatever the timing",
          arguments: [0, 2])
    func perFrameFiguresMatchFFmpeg(bframes: Int) throws {
        let frames = 10
        let folder = try Fixture.folder("roundtrip-stages-\(bframes)")
        let input = folder.appendingPathComponent("in.y4m"), stream = folder.appendingPathComponent("out.h264")
        try Fixture.ffmpeg(Fixture.testsrc("96x64", frames: frames) + [input.path])
        let options = ["--device", "soft", "--qp", "30", "--bframes", "\(bframes)"]
        let run = try VTKBinary.run(["roundtrip", input.path, "--json"] + options)
        #expect(run.status == 0, "\(run.stderrText)")
        let measured = try Self.perFrame(run)
        try #require(measured.count == frames)
        #expect(measured.enumerated().allSatisfy { $0.element["index"] as? Int == $0.offset })

        let encode = try VTKBinary.run(["encode", input.path, "-o", stream.path] + options)
        try #require(encode.status == 0, "\(encode.stderrText)")
        try Self.expectFFmpegPSNR(agreesWith: measured, stream: stream, source: ["-i", input.path], filterOptions: ":shortest=1", folder: folder)

        // The same figures when every picture waits on the driver and the stages drift apart.
        let slow = try VTKBinary.run(["roundtrip", input.path, "--json"] + options, extraEnvironment: ["VTKSOFT_PICTURE_DELAY_MS": "15"])
        #expect(slow.status == 0, "\(slow.stderrText)")
        let again = try Self.perFrame(slow)
        #expect(again.map { Self.lumaPSNR($0) } == measured.map { Self.lumaPSNR($0) })
        #expect(again.map { $0["bits"] as? Int } == measured.map { $0["bits"] as? Int })
        #expect(again.map { $0["type"] as? String } == measured.map { $0["type"] as? String })
    }

    @Test("pipelined and serial runs report the same figures, field for field (raw NV12 input, read into recycled frames)")
    func pipelinedRunEqualsSerialRun() throws {
        let frames = 14
        let folder = try Fixture.folder("roundtrip-serial")
        let input = folder.appendingPathComponent("in.nv12"), stream = folder.appendingPathComponent("out.h264")
        try Fixture.ffmpeg(Array(Fixture.testsrc("96x64", frames: frames).dropLast(2)) + ["-pix_fmt", "nv12", "-f", "rawvideo", input.path])
        let options = ["--size", "96x64", "--pix-fmt", "nv12", "--device", "soft", "--qp", "28", "--keyint", "6"]
        let pipelined = try VTKBinary.run(["roundtrip", input.path, "--json", "--ssim"] + options)
        let serial = try VTKBinary.run(["roundtrip", input.path, "--json", "--ssim"] + options, extraEnvironment: ["VTK_ROUNDTRIP_SERIAL": "1"])
        #expect(pipelined.status == 0, "\(pipelined.stderrText)")
        #expect(serial.status == 0, "\(serial.stderrText)")
        var a = try #require(try JSONSerialization.jsonObject(with: pipelined.stdout) as? [String: Any])
        var b = try #require(try JSONSerialization.jsonObject(with: serial.stdout) as? [String: Any])
        a["speed"] = nil
        b["speed"] = nil
        let canonical = { (report: [String: Any]) throws -> String in
            String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try canonical(a) == canonical(b))
        let measured = try Self.perFrame(pipelined)
        try #require(measured.count == frames)
        #expect(measured.map { $0["index"] as? Int } == Array(0..<frames))

        // And FFmpeg's psnr filter agrees on the stream vtk encode writes from the same raw frames. Both inputs
        // hold `frames` pictures (the count is checked below), so no shortest=1 here: with raw input it ended the filter a frame early, and
        // an input rate (-r 30) paired one frame with its neighbour (checked by hand against a decode to raw).
        let encode = try VTKBinary.run(["encode", input.path, "-o", stream.path] + options)
        try #require(encode.status == 0, "\(encode.stderrText)")
        try Self.expectFFmpegPSNR(agreesWith: measured, stream: stream, source: ["-f", "rawvideo", "-pix_fmt", "nv12", "-s", "96x64", "-i", input.path],
                                  filterOptions: "", folder: folder)
    }

    /// FFmpeg's psnr filter on `stream` against the source (`source`: its ffmpeg input arguments), both retimed
    /// to one rate so that frames pair by index: one figure per frame of vtk's, each within 0.01 dB of vtk's Y-PSNR.
    static func expectFFmpegPSNR(agreesWith measured: [[String: Any]], stream: URL, source: [String], filterOptions: String, folder: URL) throws {
        let stats = folder.appendingPathComponent("psnr.log")
        try Fixture.ffmpeg(["-i", stream.path] + source
                           + ["-lavfi", "[0:v]setpts=N/30/TB[a];[1:v]setpts=N/30/TB[b];[a][b]psnr=stats_file=\(stats.path)\(filterOptions)", "-f", "null", "-"])
        let reference = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_y:") }.flatMap { Double($0.dropFirst(7)) }
        }
        try #require(reference.count == measured.count, "\(reference)")
        for (index, frame) in measured.enumerated() {
            let psnr = try #require(Self.lumaPSNR(frame))
            #expect(abs(psnr - reference[index]) < 0.01, "frame \(index): vtk \(psnr) dB, FFmpeg \(reference[index]) dB")
        }
    }
}
