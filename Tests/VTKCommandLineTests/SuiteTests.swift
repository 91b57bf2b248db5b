import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// `vtk suite run`, `merge` and `encode`, run as the vtk binary, on the conformance streams of ../shared.
@Suite("vtk suite")
struct SuiteTests {
    /// A fluster-format suite (as fluster writes them: input_file relative to the resources) of `streams`.
    static func flusterSuite(_ streams: [ConformanceStream], name: String) throws -> URL {
        let vectors = streams.map { ["name": $0.file, "source": "https://example.invalid/\($0.file).zip", "source_checksum": "0",
                                     "input_file": $0.file, "output_format": "yuv420p", "result": $0.md5] }
        let url = TestPaths.scratch.appendingPathComponent("\(name)-\(UUID().uuidString).json")
        let suite: [String: Any] = ["name": name, "codec": "H.264", "description": "reference.tsv as a fluster suite", "test_vectors": vectors]
        try JSONSerialization.data(withJSONObject: suite, options: [.prettyPrinted]).write(to: url)
        return url
    }

    static var conformanceDirectory: String { ConformanceStream.all.first?.url.deletingLastPathComponent().path ?? "" }
    static var haveShared: Bool { !ConformanceStream.all.isEmpty }
    static let sharedMissing = Comment(rawValue: TestPaths.sharedMissingMessage)
    /// Why `--decoder ffmpeg-vaapi` cannot reach vtksoft here, or nil when it can.
    static let ffmpegVAAPIUnavailable: String? = Sanitizer.clientUnavailableReason
        ?? (ProcessRunner.hasFFmpeg && Xvfb.isInstalled ? nil : "ffmpeg, ffprobe or Xvfb missing: skipping the three-decoder suite")

    static func scratch(_ name: String) -> String { TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-\(name)").path }

    static func report(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func results(_ report: [String: Any]) throws -> [[String: Any]] { try #require(report["results"] as? [[String: Any]]) }

    @Test("a fluster suite of the 19 streams: vtk:soft, ffmpeg and ffmpeg-vaapi pass all but FFmpeg VA-API on CVFC1_Sony_C.jsv; JUnit counts match",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: haveShared, sharedMissing),
          .enabled(if: ffmpegVAAPIUnavailable == nil, "\(ffmpegVAAPIUnavailable ?? "")"))
    func threeDecoders() throws {
        let streams = ConformanceStream.all
        let suite = try Self.flusterSuite(streams, name: "JVT-vtk-reference")
        let json = Self.scratch("report.json"), junit = Self.scratch("junit.xml"), markdown = Self.scratch("table.md")
        let run = try VTKBinary.run(["suite", "run", suite.path, "--resources", Self.conformanceDirectory, "--decoder", "vtk:soft",
                                     "--decoder", "ffmpeg", "--decoder", "ffmpeg-vaapi", "-j", "2", "--json", json, "--junit", junit,
                                     "--markdown", markdown, "-q"])
        #expect(run.status == 1, "one failure expected: \(run.stderrText)")
        let report = try Self.report(json)
        #expect(report["suite"] as? String == "JVT-vtk-reference")
        let results = try Self.results(report)
        #expect(results.count == 3 * streams.count)
        for decoder in ["vtk:soft", "ffmpeg", "ffmpeg-vaapi"] {
            for stream in streams {
                let matching = results.filter { $0["test"] as? String == stream.file && $0["decoder"] as? String == decoder }
                #expect(matching.count == 1, "\(stream.file) on \(decoder)")
                guard let result = matching.first else { continue }
                #expect(result["seconds"] is Double || result["seconds"] is Int)
                if decoder == "ffmpeg-vaapi" && stream.file == "CVFC1_Sony_C.jsv" {
                    // FFmpeg ignores the 2-sample left crop on VA surfaces: every frame is off.
                    #expect(result["status"] as? String == "fail")
                    #expect(result["first_bad_frame"] as? Int == 0)
                    #expect(result["md5"] as? String != stream.md5)
                } else {
                    #expect(result["status"] as? String == "pass", "\(stream.file) on \(decoder): \(result["detail"] ?? "")")
                    #expect(result["md5"] as? String == stream.md5)
                }
            }
        }
        // The summary table: a column per decoder, the totals row, and the one failure.
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.split(separator: " ") == ["test", "vtk:soft", "ffmpeg", "ffmpeg-vaapi"] })
        let n = streams.count
        #expect(lines.contains { $0.split(separator: " ") == ["TOTAL", "\(n)/\(n)", "\(n)/\(n)", "\(n - 1)/\(n)"] }, "\(run.stdoutText)")
        #expect(lines.contains { $0.split(separator: " ") == ["CVFC1_Sony_C.jsv", "pass", "pass", "FAIL"] })
        let md = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(md.contains("|TOTAL|\(n)/\(n)|\(n)/\(n)|\(n - 1)/\(n)|"))
        try Self.checkJUnit(junit, decoders: ["vtk:soft": 0, "ffmpeg": 0, "ffmpeg-vaapi": 1], tests: n, failing: "CVFC1_Sony_C.jsv")
    }

    @Test("gst-vaapi through vtksoft: small streams pass, CVFC1_Sony_C.jsv fails from frame 0 (GStreamer keeps the crop size, not its offsets)",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: haveShared, sharedMissing),
          .enabled(if: Sanitizer.clientUnavailableReason == nil, "\(Sanitizer.clientUnavailableReason ?? "")"),
          .enabled(if: ProcessRunner.which("gst-launch-1.0") != nil && Xvfb.isInstalled,
                   "gst-launch-1.0 (gstreamer1.0-tools, -vaapi, -plugins-bad) or Xvfb missing: skipping the GStreamer decoder"))
    func gstreamer() throws {
        let names = ["BA1_Sony_D.jsv", "SVA_Base_B.264", "test_qcif_cabac.264", "CVFC1_Sony_C.jsv"]
        let streams = ConformanceStream.all.filter { names.contains($0.file) }
        let suite = try Self.flusterSuite(streams, name: "gst")
        let json = Self.scratch("gst.json")
        let run = try VTKBinary.run(["suite", "run", suite.path, "--resources", Self.conformanceDirectory, "--decoder", "gst-vaapi", "--json", json, "-q"])
        #expect(run.status == 1, "\(run.stdoutText)\(run.stderrText)")
        for result in try Self.results(try Self.report(json)) {
            let stream = try #require(streams.first { $0.file == result["test"] as? String })
            if stream.file == "CVFC1_Sony_C.jsv" {
                #expect(result["status"] as? String == "fail")
                #expect(result["first_bad_frame"] as? Int == 0, "\(result)")
            } else {
                #expect(result["status"] as? String == "pass", "\(result)")
                #expect(result["md5"] as? String == stream.md5)
            }
        }
    }

    static var h265Directory: URL? {
        TestPaths.shared.map { $0.appendingPathComponent("conformance/h265") }
            .flatMap { FileManager.default.fileExists(atPath: $0.appendingPathComponent("reference.tsv").path) ? $0 : nil }
    }

    @Test("../shared/conformance/h265 as a suite: FFmpeg and vtk on vtksoft pass every stream (Main 10 as 16-bit samples)",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: h265Directory != nil, sharedMissing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func hevcFolder() throws {
        let directory = try #require(Self.h265Directory)
        let json = Self.scratch("h265.json")
        let run = try VTKBinary.run(["suite", "run", directory.path, "--decoder", "ffmpeg", "--decoder", "vtk:soft", "-j", "2", "--json", json, "-q"])
        let rows = try String(contentsOf: directory.appendingPathComponent("reference.tsv"), encoding: .utf8).split(separator: "\n").dropFirst()
        let results = try Self.results(try Self.report(json))
        #expect(results.count == 2 * rows.count)
        for result in results {
            #expect(result["status"] as? String == "pass", "\(result)")
        }
        #expect(run.status == 0, "\(run.stdoutText)")
    }

    /// JUnit as GitLab and Jenkins read it: <testsuites> of a <testsuite> per decoder whose tests/failures
    /// attributes equal its <testcase> and <failure> elements, and equal the suite's test count.
    static func checkJUnit(_ path: String, decoders: [String: Int], tests: Int, failing: String) throws {
        #if canImport(FoundationXML)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path))
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == decoders.count)
        for suite in suites {
            let name = try #require(suite.attribute(forName: "name")?.stringValue)
            let decoder = try #require(decoders.keys.first { name.hasSuffix(".\($0)") }, "\(name)")
            let cases = suite.elements(forName: "testcase")
            #expect(cases.count == tests)
            #expect(suite.attribute(forName: "tests")?.stringValue == "\(tests)")
            let failures = cases.filter { !$0.elements(forName: "failure").isEmpty }
            #expect(failures.count == decoders[decoder])
            #expect(suite.attribute(forName: "failures")?.stringValue == "\(failures.count)")
            #expect(suite.attribute(forName: "errors")?.stringValue == "0")
            for failure in failures {
                #expect(failure.attribute(forName: "name")?.stringValue == failing)
                #expect(failure.elements(forName: "failure").first?.attribute(forName: "message")?.stringValue?.contains("frame 0") == true)
            }
            for testcase in cases {
                #expect(testcase.attribute(forName: "classname")?.stringValue == name)
                #expect(Double(testcase.attribute(forName: "time")?.stringValue ?? "") != nil)
            }
        }
        #else
        Issue.record("FoundationXML is not available to validate the JUnit file")
        #endif
    }

    @Test("--shard 1/3, 2/3, 3/3 merged: every test once, the same totals as one run; overlapping or missing shards are refused",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: haveShared, sharedMissing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func shards() throws {
        // The small streams keep this fast.
        let streams = ConformanceStream.all.filter { $0.width * $0.height * $0.frames <= 176 * 144 * 100 }
        let suite = try Self.flusterSuite(streams, name: "small")
        let whole = Self.scratch("whole.json")
        let common = ["suite", "run", suite.path, "--resources", Self.conformanceDirectory, "--decoder", "vtk:soft", "--decoder", "ffmpeg", "-j", "2", "-q"]
        let one = try VTKBinary.run(common + ["--json", whole])
        #expect(one.status == 0, "\(one.stderrText)")
        var shardPaths: [String] = []
        var seen: [String: Int] = [:]
        for index in 1...3 {
            let path = Self.scratch("shard\(index).json")
            let run = try VTKBinary.run(common + ["--shard", "\(index)/3", "--json", path])
            #expect(run.status == 0, "\(run.stderrText)")
            let report = try Self.report(path)
            #expect(report["shard"] as? String == "\(index)/3")
            for result in try Self.results(report) where result["decoder"] as? String == "ffmpeg" {
                seen[result["test"] as? String ?? "", default: 0] += 1
            }
            shardPaths.append(path)
        }
        // Every stream of the suite in exactly one shard.
        #expect(streams.count >= 10)
        #expect(seen.keys.sorted() == streams.map(\.file).sorted())
        #expect(seen.values.allSatisfy { $0 == 1 })
        let mergedJSON = Self.scratch("merged.json"), mergedJUnit = Self.scratch("merged.xml")
        let merge = try VTKBinary.run(["suite", "merge"] + shardPaths + ["--json", mergedJSON, "--junit", mergedJUnit])
        #expect(merge.status == 0, "\(merge.stderrText)")
        let n = streams.count
        #expect(merge.stdoutText.split(separator: "\n").contains { $0.split(separator: " ") == ["TOTAL", "\(n)/\(n)", "\(n)/\(n)"] }, "\(merge.stdoutText)")
        func totals(_ path: String) throws -> [String: [String: Int]] {
            var out: [String: [String: Int]] = [:]
            for r in try Self.results(try Self.report(path)) {
                out[r["decoder"] as? String ?? "", default: [:]][r["status"] as? String ?? "", default: 0] += 1
            }
            return out
        }
        #expect(try totals(mergedJSON) == totals(whole))
        let wholeMD5s = Set(try Self.results(try Self.report(whole)).map { "\($0["test"] ?? "") \($0["decoder"] ?? "") \($0["md5"] ?? "")" })
        let mergedMD5s = Set(try Self.results(try Self.report(mergedJSON)).map { "\($0["test"] ?? "") \($0["decoder"] ?? "") \($0["md5"] ?? "")" })
        #expect(wholeMD5s == mergedMD5s)
        try Self.checkJUnit(mergedJUnit, decoders: ["vtk:soft": 0, "ffmpeg": 0], tests: n, failing: "")
        let twice = try VTKBinary.run(["suite", "merge", shardPaths[0], shardPaths[0], shardPaths[1], shardPaths[2]])
        #expect(twice.status == 3 && twice.stderrText.contains("overlap"), "\(twice.stderrText)")
        let missing = try VTKBinary.run(["suite", "merge", shardPaths[0], shardPaths[1]])
        #expect(missing.status == 3 && missing.stderrText.contains("missing"), "\(missing.stderrText)")
    }

    @Test("shards are decided by name alone: any order of the suite gives the same disjoint shards that cover it")
    func shardsByName() throws {
        let vectors = (0..<23).map { SuiteTestVector(name: "t\($0)", input: "/none", outputFormat: "yuv420p", md5: "", frameMD5s: nil) }
        let suite = TestSuite(name: "s", codec: "H.264", vectors: vectors)
        let items = vectors.map { SuiteRunner.Item(suite: suite, vector: $0) }
        var generator = SeededRandom(seed: 7)
        let shuffled = items.shuffled(using: &generator)
        var covered: [String] = []
        for index in 1...4 {
            let a = SuiteRunner.shard(items, index: index, count: 4).map(\.key).sorted()
            let b = SuiteRunner.shard(shuffled, index: index, count: 4).map(\.key).sorted()
            #expect(a == b)
            #expect((5...6).contains(a.count), "balanced: \(a.count)")
            covered += a
        }
        #expect(covered.sorted() == items.map(\.key).sorted())
        #expect(SuiteRunner.shard(items, index: 1, count: 1).count == items.count)
    }

    @Test("a .list option collects every value in order; a .value option given twice with different values is still refused")
    func listOption() throws {
        let parsed = try ArgumentParser.parse(["run", "--decoder", "vtk:soft", "s.json", "--decoder=ffmpeg", "-j", "2"], options: SuiteCommand.options, command: "suite")
        #expect(parsed.list("decoder") == ["vtk:soft", "ffmpeg"])
        #expect(parsed.positionals == ["run", "s.json"])
        #expect(parsed["jobs"] == "2" && parsed.has("decoder") && parsed.list("tolerance").isEmpty)
        #expect(throws: CommandFailure.self) { try ArgumentParser.parse(["-j", "1", "-j", "2"], options: SuiteCommand.options, command: "suite") }
        #expect(ArgumentParser.help(SuiteCommand.options).contains("--decoder D"))
    }

    @Test("vtk help suite documents every option", .enabled(if: VTKBinary.available, VTKBinary.missing))
    func help() throws {
        let help = try VTKBinary.run(["help", "suite"])
        #expect(help.status == 0)
        #expect(help.stdoutText.hasPrefix("usage: vtk suite run"))
        for option in SuiteCommand.options.flatMap(\.names) { #expect(help.stdoutText.contains(option), "\(option)") }
        #expect(try VTKBinary.run(["--help"]).stdoutText.contains("  suite "))
        let none = try VTKBinary.run(["suite"])
        #expect(none.status == 2)
        let wrong = try VTKBinary.run(["suite", "merge", "x.json", "--decoder", "ffmpeg"])
        #expect(wrong.status == 2 && wrong.stderrText.contains("--decoder is not an option of 'merge'"))
    }

    @Test("a missing tool is 'not available', an unknown persona an error or not-supported, a slow decode a timeout: never a crash",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: haveShared, sharedMissing))
    func unavailableAndTimeout() throws {
        let small = try #require(ConformanceStream.all.first { $0.file == "BA1_Sony_D.jsv" })
        let big = try #require(ConformanceStream.all.first { $0.file == "VID_1280x720_cavlc_temporal_direct.264" })
        let suite = try Self.flusterSuite([small], name: "one")
        let json = Self.scratch("na.json")
        // No ffmpeg and no GStreamer on this PATH: both decoders are "not available", and that is no failure.
        let noTools = try ProcessRunner.run(try #require(VTKBinary.url).path,
                                            ["suite", "run", suite.path, "--resources", Self.conformanceDirectory, "--decoder", "ffmpeg",
                                             "--decoder", "gst-vaapi", "--decoder", "vtk:soft:no-such-persona", "--decoder", "vtk:soft", "--json", json, "-q"],
                                            environment: ["PATH": "/nonexistent", "VTKSOFT_DRIVERS_PATH": try #require(VTKSoftDriverLocation.directory).path])
        let results = try Self.results(try Self.report(json))
        let byDecoder = Dictionary(uniqueKeysWithValues: results.map { ($0["decoder"] as? String ?? "", $0) })
        for decoder in ["ffmpeg", "gst-vaapi"] {
            #expect(byDecoder[decoder]?["status"] as? String == "not-supported")
            #expect((byDecoder[decoder]?["detail"] as? String)?.hasPrefix("not available") == true, "\(byDecoder[decoder] ?? [:])")
        }
        #expect(noTools.stdoutText.contains("n/a"))
        let persona = try #require(byDecoder["vtk:soft:no-such-persona"])
        #expect(["not-supported", "error"].contains(persona["status"] as? String), "\(persona)")
        #expect(byDecoder["vtk:soft"]?["status"] as? String == "pass")
        #expect(noTools.status == (persona["status"] as? String == "error" ? 1 : 0), "\(noTools.stderrText)")

        let slow = try Self.flusterSuite([big], name: "slow")
        let timeoutJSON = Self.scratch("timeout.json")
        let run = try VTKBinary.run(["suite", "run", slow.path, "--resources", Self.conformanceDirectory, "--decoder", "vtk:soft",
                                     "--timeout", "0.1", "--json", timeoutJSON, "-q"])
        #expect(run.status == 1)
        let result = try #require(try Self.results(try Self.report(timeoutJSON)).first)
        #expect(result["status"] as? String == "timeout", "\(result)")
        let usage = try VTKBinary.run(["suite", "run", slow.path, "--decoder", "nonsense"])
        #expect(usage.status == 2 && usage.stderrText.contains("unknown decoder"))
        let badShard = try VTKBinary.run(["suite", "run", slow.path, "--shard", "4/3"])
        #expect(badShard.status == 2)
    }

    /// 2 sizes x CQP, CBR, VBR on the built-in clip, through vtksoft.
    static var matrix: [[String: Any]] { [(160, 96), (320, 180)].flatMap { w, h in
        [["rc": "cqp", "qp": 28], ["rc": "cbr", "bitrate": w == 160 ? "150k" : "400k"], ["rc": "vbr", "bitrate": w == 160 ? "150k" : "400k"]]
            .map { rc -> [String: Any] in
                var c: [String: Any] = ["name": "\(w)x\(h)-\(rc["rc"] ?? "")", "size": "\(w)x\(h)", "frames": 16, "keyint": 8, "device": "soft"]
                c.merge(rc) { $1 }
                return c
            }
    } }

    @Test("encode matrix of 6 cases passes against its own baseline and fails naming case and metric when the baseline demands +1 dB",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func encodeMatrix() throws {
        let matrix = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-matrix.json")
        try JSONSerialization.data(withJSONObject: Self.matrix).write(to: matrix)
        let baseline = Self.scratch("baseline.json")
        let save = try VTKBinary.run(["suite", "encode", matrix.path, "--save-baseline", baseline, "-q"])
        #expect(save.status == 0, "\(save.stdoutText)\(save.stderrText)")
        var saved = try Self.report(baseline)
        var cases = try #require(saved["cases"] as? [[String: Any]])
        #expect(cases.count == 6)
        for c in cases {
            let psnr = try #require(c["psnr"] as? [String: Any])
            for plane in ["y", "u", "v"] { #expect(((psnr[plane] as? Double) ?? 0) > 30, "\(c["case"] ?? "") \(plane)") }
            #expect(((c["ssim"] as? Double) ?? 0) > 0.9)
            #expect(((c["bitrate"] as? Double) ?? 0) > 0)
            #expect(((c["fps"] as? Double) ?? 0) > 0)
            #expect(c["idr_frames"] as? [Int] == [0, 8], "\(c)")
            let rc = (c["case"] as? String)?.split(separator: "-").last
            #expect((c["bitrate_error"] is Double) == (rc != "cqp"))
        }
        // Against itself: everything equal but speed, which a shared machine cannot promise (hence fps=off).
        let same = try VTKBinary.run(["suite", "encode", matrix.path, "--baseline", baseline, "--tolerance", "fps=off", "-q"])
        #expect(same.status == 0, "\(same.stdoutText)")
        #expect(same.stdoutText.contains("320x180-cbr  psnr_y"))
        // The baseline edited to demand 1 dB more Y-PSNR of one case.
        let index = try #require(cases.firstIndex { $0["case"] as? String == "320x180-cbr" })
        var psnr = try #require(cases[index]["psnr"] as? [String: Any])
        psnr["y"] = try #require(psnr["y"] as? Double) + 1
        cases[index]["psnr"] = psnr
        saved["cases"] = cases
        try JSONSerialization.data(withJSONObject: saved).write(to: URL(fileURLWithPath: baseline))
        let json = Self.scratch("encode.json")
        let worse = try VTKBinary.run(["suite", "encode", matrix.path, "--baseline", baseline, "--tolerance", "fps=off", "--json", json, "-q"])
        #expect(worse.status == 1)
        let regression = worse.stdoutText.split(separator: "\n").filter { $0.contains("REGRESSION") }
        #expect(regression.count == 1 && regression[0].hasPrefix("320x180-cbr") && regression[0].contains("psnr_y"), "\(worse.stdoutText)")
        #expect(regression.first?.contains("-1.00 dB") == true, "the delta is shown")
        let results = try #require(try Self.report(json)["cases"] as? [[String: Any]])
        #expect(results.filter { $0["status"] as? String == "fail" }.map { $0["case"] as? String } == ["320x180-cbr"])
        #expect((results[index]["detail"] as? String)?.contains("psnr_y") == true)
    }

    @Test("an encode case the encoder cannot do yet (B-frames, a persona) is that case's error, not a crash",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func unsupportedEncodeCase() throws {
        let matrix = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString)-bframes.json")
        try JSONSerialization.data(withJSONObject: ["cases": [
            ["name": "ok", "size": "160x96", "frames": 4, "device": "soft"],
            ["name": "b-frames", "size": "160x96", "frames": 4, "bframes": 2, "device": "soft"],
            ["name": "persona", "size": "160x96", "frames": 4, "device": "soft:no-such-persona"],
        ]]).write(to: matrix)
        let json = Self.scratch("bframes.json")
        let run = try VTKBinary.run(["suite", "encode", matrix.path, "--json", json, "-q"])
        #expect([0, 1].contains(run.status), "\(run.stderrText)")
        let cases = try #require(try Self.report(json)["cases"] as? [[String: Any]])
        #expect(cases.count == 3)
        #expect(cases[0]["status"] as? String == "pass")
        // Until B-frames exist, roundtrip refuses --bframes and the case says so; afterwards it passes.
        let bframes = cases[1]
        #expect(bframes["status"] as? String == "pass" || (bframes["detail"] as? String)?.contains("--bframes") == true, "\(bframes)")
        #expect(cases[2]["status"] as? String != "pass")
        #expect((cases[2]["detail"] as? String)?.contains("no-such-persona") == true, "\(cases[2])")
        let bad = try VTKBinary.run(["suite", "encode", matrix.path, "--tolerance", "psnr=lots"])
        #expect(bad.status == 2)
    }
}
