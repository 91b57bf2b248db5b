import Foundation
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// Issue 25, "honest numbers": speed figures that are the driver's time, a regression gate that load cannot
/// fail, suite filters and paths, gst-vaapi's unpadded frames, the plot, and one JSON key convention.
///
/// Rules of comparison for speed (no test may depend on how fast the machine is):
/// 1. `VTKSOFT_PICTURE_DELAY_MS=D` makes every picture wait D ms on vtksoft's engine before it runs. A wait
///    is a lower bound that load only lengthens: an honest stage time for N pictures is at least N x D.
/// 2. fps x seconds = frames, as reported: the figure is the one measured.
/// 3. The stream roundtrip measures is the stream `vtk encode` writes (same bytes): timing changed nothing.
@Suite("honest numbers (issue 25)", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct HonestNumbersTests {
    static func json(_ result: ProcessRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText) \(result.stderrText)")
    }

    static func y4m(_ name: String, size: String = "96x64", frames: Int) throws -> URL {
        let url = try Fixture.folder(name).appendingPathComponent("\(name).y4m")
        try Fixture.ffmpeg(Fixture.testsrc(size, frames: frames) + [url.path])
        return url
    }

    // MARK: 1. Speed figures

    @Test("roundtrip's encode and decode times cover every picture's time with the driver (each waits D ms: N x D is a floor)",
          arguments: [0, 2])
    func roundtripSpeedIsTheDriversTime(bframes: Int) throws {
        let frames = 8, delay = 25.0
        let input = try Self.y4m("speed\(bframes)", frames: frames)
        let report = try Self.json(try VTKBinary.run(["roundtrip", input.path, "--device", "soft", "--json", "--bframes", "\(bframes)"],
                                                     extraEnvironment: ["VTKSOFT_PICTURE_DELAY_MS": "\(Int(delay))"]))
        #expect(report["frames"] as? Int == frames)
        let speed = try #require(report["speed"] as? [String: Any])
        #expect((speed["method"] as? String)?.contains("until its data is back") == true, "\(speed)")
        let encodeSeconds = try #require(speed["encode_seconds"] as? Double, "\(speed)")
        let encodeFPS = try #require(speed["encode_fps"] as? Double)
        #expect(encodeSeconds >= Double(frames) * delay / 1000, "encode time \(encodeSeconds) s is less than the engine's waits alone")
        #expect(abs(encodeFPS * encodeSeconds - Double(frames)) < 1e-6)
        if bframes == 0 {
            let decodeSeconds = try #require(speed["decode_seconds"] as? Double, "\(speed)")
            #expect(decodeSeconds >= Double(frames) * delay / 1000, "decode time \(decodeSeconds) s is less than the engine's waits alone")
            #expect(abs(try #require(speed["decode_fps"] as? Double) * decodeSeconds - Double(frames)) < 1e-6)
        } else {
            // Pictures held for reordering are decoded out of sight: no figure, and the reason instead.
            #expect(speed["decode_fps"] is NSNull && speed["decode_seconds"] is NSNull, "\(speed)")
            #expect((speed["decode_not_measured"] as? String)?.contains("reordering") == true, "\(speed)")
        }
        // The stream measured is the stream vtk encode writes.
        let out = input.deletingLastPathComponent().appendingPathComponent("out.h264")
        let encode = try Self.json(try VTKBinary.run(["encode", input.path, "-o", out.path, "--device", "soft", "--json", "--bframes", "\(bframes)"]))
        #expect(encode["payload_bytes"] as? Int == report["bytes"] as? Int, "roundtrip \(report["bytes"] ?? "") B, encode \(encode["payload_bytes"] ?? "") B")
    }

    @Test("the text report names the method beside the figures")
    func roundtripTextNamesMethod() throws {
        let result = try VTKBinary.run(["roundtrip", "--size", "64x48", "-n", "3", "--device", "soft"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("speed:      encode "), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("(wall time from submit until the data is back; encode 2 pictures in flight, decode 1)"), "\(result.stdoutText)")
    }

    // MARK: 2, 3. suite encode

    static func writeMatrix(_ cases: [[String: Any]]) throws -> URL {
        let url = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-matrix.json")
        try JSONSerialization.data(withJSONObject: ["cases": cases]).write(to: url)
        return url
    }

    @Test("speed is not gated by default: a baseline 10x faster still passes; --tolerance fps=20% gates it when asked")
    func baselineSpeedNotGatedByDefault() throws {
        let matrix = try Self.writeMatrix([["name": "small", "size": "96x64", "frames": 4, "device": "soft"]])
        let baseline = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-baseline.json")
        let save = try VTKBinary.run(["suite", "encode", matrix.path, "--save-baseline", baseline.path, "-q"])
        #expect(save.status == 0, "\(save.stdoutText)\(save.stderrText)")
        var saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: baseline)) as? [String: Any])
        var cases = try #require(saved["cases"] as? [[String: Any]])
        cases[0]["fps"] = try #require(cases[0]["fps"] as? Double) * 10
        saved["cases"] = cases
        try JSONSerialization.data(withJSONObject: saved).write(to: baseline)
        let run = try VTKBinary.run(["suite", "encode", matrix.path, "--baseline", baseline.path, "-q"])
        #expect(run.status == 0, "\(run.stdoutText)")
        let fpsRow = run.stdoutText.split(separator: "\n").first { $0.hasPrefix("small") && $0.contains(" fps ") }
        #expect(fpsRow?.contains("off") == true && fpsRow?.hasSuffix("ok") == true, "\(run.stdoutText)")
        let gated = try VTKBinary.run(["suite", "encode", matrix.path, "--baseline", baseline.path, "--tolerance", "fps=20%", "-q"])
        #expect(gated.status == 1, "\(gated.stdoutText)")
        let help = try VTKBinary.run(["help", "suite"])
        #expect(help.stdoutText.contains("Speed is shown against the") && help.stdoutText.contains("not gated by default"))
    }

    @Test("B-frames a persona cannot do are not-supported with the reason, not a pass; pass + not-supported exits 0 as in suite run")
    func hiddenFallbackIsNotSupported() throws {
        let matrix = try Self.writeMatrix([
            ["name": "plain", "size": "96x64", "frames": 4, "device": "soft:ihd-gen12"],
            ["name": "bframes", "size": "96x64", "frames": 4, "bframes": 2, "device": "soft:ihd-gen12"],
        ])
        let json = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-fallback.json")
        let run = try VTKBinary.run(["suite", "encode", matrix.path, "--json", json.path, "-q"])
        #expect(run.status == 0, "\(run.stdoutText)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let cases = try #require(report["cases"] as? [[String: Any]])
        #expect(cases.map { $0["status"] as? String } == ["pass", "not-supported"], "\(cases)")
        let detail = cases[1]["detail"] as? String ?? ""
        #expect(detail.contains("asked for 2 B-frame(s), the encoder used 0") && detail.contains("list-1"), "\(detail)")
    }

    // MARK: 4. suite run: absolute input_file, --test and --skip

    @Test("suite run takes absolute input_file paths and fluster-like --test/--skip filters")
    func suiteRunFilters() throws {
        let dir = try Fixture.folder("filters")
        var vectors: [[String: Any]] = []
        for name in ["one", "two", "three"] {
            let stream = dir.appendingPathComponent("\(name).264")
            try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx264", stream.path])
            let md5 = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"])
            vectors.append(["name": name, "input_file": stream.path, "output_format": "yuv420p",
                            "result": md5.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "MD5=", with: "")])
        }
        // The suite file lives elsewhere, as vtk-bench writes it: the paths must not be joined under it.
        let suite = try Fixture.folder("filters-suite").appendingPathComponent("suite.json")
        try JSONSerialization.data(withJSONObject: ["name": "abs", "codec": "H.264", "test_vectors": vectors]).write(to: suite)
        func run(_ extra: [String]) throws -> (ProcessRunner.Result, [String]) {
            let json = dir.appendingPathComponent("\(UUID().uuidString).json")
            let result = try VTKBinary.run(["suite", "run", suite.path, "--decoder", "vtk:soft", "-q", "--json", json.path] + extra)
            let report = (try? JSONSerialization.jsonObject(with: Data(contentsOf: json))) as? [String: Any]
            let results = report?["results"] as? [[String: Any]] ?? []
            #expect(results.allSatisfy { $0["status"] as? String == "pass" }, "\(results)")
            return (result, results.compactMap { $0["test"] as? String })
        }
        let all = try run([])
        #expect(all.0.status == 0 && all.1 == ["one", "two", "three"], "\(all.0.stdoutText)\(all.0.stderrText)")
        #expect(try run(["--test", "one", "--test", "three"]).1 == ["one", "three"])
        #expect(try run(["--skip", "two"]).1 == ["one", "three"])
        #expect(try run(["--test", "one", "--test", "two", "--skip", "two"]).1 == ["one"])
        let typo = try VTKBinary.run(["suite", "run", suite.path, "--decoder", "vtk:soft", "--test", "thre"])
        #expect(typo.status == 2 && typo.stderrText.contains("did you mean 'three'"), "\(typo.stderrText)")
    }

    // MARK: 5. gst-vaapi

    static let canRunGStreamer = ProcessRunner.which("gst-launch-1.0") != nil

    @Test("GStreamer's padded I420 unpadded here equals what videocodectestsink writes; the caps' size is read from gst-launch -v",
          .enabled(if: canRunGStreamer, "gst-launch-1.0 is not installed"),
          arguments: [(202, 130), (150, 84), (64, 48), (33, 17)])
    func gstreamerUnpadding(size: (Int, Int)) throws {
        let (width, height) = size
        let dir = try Fixture.folder("gst-pad")
        let padded = dir.appendingPathComponent("padded.yuv"), plain = dir.appendingPathComponent("plain.yuv")
        let source = ["videotestsrc", "num-buffers=3", "pattern=smpte", "!", "video/x-raw,format=I420,width=\(width),height=\(height)", "!"]
        let verbose = try ProcessRunner.run("gst-launch-1.0", ["-v"] + source + ["filesink", "location=\(padded.path)"])
        try #require(verbose.status == 0, "\(verbose.stderrText)")
        let hasTestSink = try ProcessRunner.run("gst-inspect-1.0", ["videocodectestsink"]).status == 0
        let parsed = try #require(GStreamerI420.lastSize(inVerboseOutput: verbose.stdoutText))
        #expect(parsed.width == width && parsed.height == height)
        let bytes = [UInt8](try Data(contentsOf: padded))
        #expect(bytes.count == 3 * GStreamerI420.layout(width: width, height: height).frameSize)
        let unpadded = GStreamerI420.unpadded(bytes, width: width, height: height)
        #expect(unpadded.count == 3 * (width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)))
        if hasTestSink {
            try #require(try ProcessRunner.run("gst-launch-1.0", ["-q"] + source + ["videocodectestsink", "location=\(plain.path)"]).status == 0)
            #expect(unpadded == [UInt8](try Data(contentsOf: plain)))
        }
    }

    @Test("gst-vaapi through vtksoft passes the 202x130 H.265 stream (chroma width 101) and Main 10",
          .enabled(if: Sanitizer.clientUnavailableReason == nil, "\(Sanitizer.clientUnavailableReason ?? "")"),
          .enabled(if: canRunGStreamer && Xvfb.isInstalled, "gst-launch-1.0 or Xvfb missing"),
          .enabled(if: TestPaths.shared != nil, Comment(rawValue: TestPaths.sharedMissingMessage)))
    func gstreamerOddSize() throws {
        let folder = try #require(TestPaths.shared).appendingPathComponent("conformance/h265")
        let json = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-gst265.json")
        let run = try VTKBinary.run(["suite", "run", folder.path, "--decoder", "gst-vaapi", "--test", "x265_odd_202x130_crop.265",
                                     "--test", "x265_cif_main10.265", "--json", json.path, "-q"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        if results.contains(where: { ($0["detail"] as? String)?.contains("not available") == true }) { return }  // no vaapih265dec here
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0["status"] as? String == "pass" }, "\(results)")
        #expect(run.status == 0, "\(run.stdoutText)")
    }

    // MARK: 6. --plot

    @Test("--plot: .png refused (exit 2) and an unwritable path (exit 5) before any work; a failed write's exit code is the JSON's")
    func plotChecksFirst() throws {
        let dir = try Fixture.folder("plot")
        let png = dir.appendingPathComponent("q.png")
        let refused = try VTKBinary.run(["roundtrip", "--size", "64x48", "-n", "3", "--device", "soft", "--plot", png.path])
        #expect(refused.status == 2 && refused.stdoutText.isEmpty, "\(refused.stdoutText)\(refused.stderrText)")
        #expect(refused.stderrText.contains("SVG") && !FileManager.default.fileExists(atPath: png.path))
        let unwritable = try VTKBinary.run(["roundtrip", "--size", "64x48", "-n", "3", "--device", "soft", "--json",
                                            "--plot", dir.appendingPathComponent("no/such/dir/q.svg").path])
        #expect(unwritable.status == 5 && unwritable.stdoutText.isEmpty, "\(unwritable.stdoutText)\(unwritable.stderrText)")
        // Opened fine, the write fails (no space left): exit 5, and the JSON says 5.
        let full = dir.appendingPathComponent("full.svg")
        try FileManager.default.createSymbolicLink(atPath: full.path, withDestinationPath: "/dev/full")
        let failed = try VTKBinary.run(["roundtrip", "--size", "64x48", "-n", "3", "--device", "soft", "--json", "--plot", full.path])
        #expect(failed.status == 5, "\(failed.stderrText)")
        #expect(try Self.json(failed)["exit_code"] as? Int == 5)
        // A run that fails before the plot is written leaves no empty file behind.
        let early = dir.appendingPathComponent("early.svg")
        _ = try VTKBinary.run(["roundtrip", dir.appendingPathComponent("missing.y4m").path, "--device", "soft", "--plot", early.path])
        #expect(!FileManager.default.fileExists(atPath: early.path))
    }

    @Test("the plot: y labels left of the frames, frame numbers, I/P/B marks, the --min-psnr line, and SSIM with --ssim")
    func plotContent() throws {
        let input = try Self.y4m("plot-content", size: "96x64", frames: 12)
        let svg = input.deletingLastPathComponent().appendingPathComponent("q.svg")
        let result = try VTKBinary.run(["roundtrip", input.path, "--device", "soft", "--bframes", "2", "--ssim", "--min-psnr", "30",
                                        "--min-ssim", "0.5", "--plot", svg.path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.contains("Y-SSIM per frame"))
        #expect(text.contains("--min-psnr 30.0 dB") && text.contains("--min-ssim 0.5000"), "thresholds drawn")
        #expect(text.components(separatedBy: "class=\"threshold\"").count - 1 == 2)
        for type in ["I", "P", "B"] { #expect(text.contains("class=\"frame-\(type)\""), "\(type) bars") }
        // Frame numbers under each of the 3 panels (0 included).
        #expect(text.components(separatedBy: "class=\"frame-number\" ").count - 1 >= 3 * 3)
        #expect(text.contains(">11</text>") || text.contains(">10</text>"))
        // Every right-aligned y label ends left of the frames' left edge.
        let labels = text.components(separatedBy: "<text x=\"").dropFirst().filter { $0.contains("text-anchor=\"end\">") && !$0.contains("--min") && !$0.contains("frame (display") }
        #expect(!labels.isEmpty)
        for label in labels {
            let x = Double(label.prefix { $0 != "\"" }) ?? .infinity
            #expect(x < RoundtripPlot.left, "\(label.prefix(80))")
        }
        // The picture types agree with ffprobe's.
        let stream = input.deletingLastPathComponent().appendingPathComponent("types.h264")
        _ = try VTKBinary.run(["encode", input.path, "-o", stream.path, "--device", "soft", "--bframes", "2", "-q"])
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "frame=pict_type", "-of", "csv=p=0", stream.path])
        let types = probe.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let json = try Self.json(try VTKBinary.run(["roundtrip", input.path, "--device", "soft", "--bframes", "2", "--json"]))
        let ours = (json["per_frame"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        #expect(ours == types, "vtk \(ours), ffprobe \(types)")
    }

    // MARK: 7. JSON keys

    static func badKeys(_ value: Any, path: String = "") -> [String] {
        if let object = value as? [String: Any] {
            return object.flatMap { key, inner in
                (key.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } ? [] : ["\(path)/\(key)"]) + badKeys(inner, path: "\(path)/\(key)")
            }
        }
        if let list = value as? [Any] { return list.flatMap { badKeys($0, path: path) } }
        return []
    }

    @Test("every --json output uses snake_case keys, and frame_rate is a number wherever it appears")
    func snakeCaseKeys() throws {
        let input = try Self.y4m("keys", frames: 4)
        let dir = input.deletingLastPathComponent()
        let out = dir.appendingPathComponent("out.h264")
        var reports: [(String, Any)] = []
        reports.append(("encode", try Self.json(try VTKBinary.run(["encode", input.path, "-o", out.path, "--device", "soft", "--json"]))))
        reports.append(("decode", try Self.json(try VTKBinary.run(["decode", out.path, "--md5", "--device", "soft", "--json"]))))
        reports.append(("roundtrip", try Self.json(try VTKBinary.run(["roundtrip", input.path, "--device", "soft", "--json", "--bframes", "1"]))))
        reports.append(("probe", try Self.json(try VTKBinary.run(["probe", out.path, "--json"]))))
        reports.append(("info", try Self.json(try VTKBinary.run(["info", "--device", "soft", "--json"]))))
        let matrix = try Self.writeMatrix([["name": "k", "size": "64x48", "frames": 2, "device": "soft"]])
        let suiteJSON = dir.appendingPathComponent("suite.json")
        _ = try VTKBinary.run(["suite", "encode", matrix.path, "--json", suiteJSON.path, "-q"])
        reports.append(("suite encode", try JSONSerialization.jsonObject(with: Data(contentsOf: suiteJSON))))
        for (name, report) in reports {
            #expect(Self.badKeys(report).isEmpty, "\(name): \(Self.badKeys(report))")
            if let object = report as? [String: Any], let rate = object["frame_rate"] { #expect(rate is Double || rate is Int, "\(name): frame_rate \(rate)") }
        }
        let encode = try #require(reports[0].1 as? [String: Any])
        #expect(encode["frame_rate"] as? Double == 30 && encode["exit_code"] as? Int == 0)
        let roundtrip = try #require(reports[2].1 as? [String: Any])
        #expect(roundtrip["b_frames"] as? Int == 1 && roundtrip["packed_headers"] is String && roundtrip["exit_code"] as? Int == 0)
    }
}
