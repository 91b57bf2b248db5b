import Foundation
import Testing
import VTKTestSupport

/// `vtk suite run` on fluster's own suite files (../shared/conformance/fluster), with the vectors ../shared
/// holds laid out as `fluster download` lays them out: DIR/SUITE/VECTOR/input_file (symbolic links here,
/// matched to the streams of ../shared/conformance/h264* by file name). Vectors not held are errors ("not
/// found"), the rest must pass: through FFmpeg's VA hwaccel on vtksoft, every held vector but CVFC1_Sony_C
/// (FFmpeg cannot crop its left and top on hardware frames).
@Suite("vtk suite run on fluster's own suite files, fluster's layout")
struct FlusterLayoutSuiteTests {
    static let suites = ["JVT-AVC_V1", "JVT-FR-EXT"]
    static var flusterDirectory: URL? { TestPaths.shared?.appendingPathComponent("conformance/fluster") }

    /// The streams of ../shared/conformance/h264* by file name.
    static func heldStreams() -> [String: URL] {
        guard let shared = TestPaths.shared else { return [:] }
        let conformance = shared.appendingPathComponent("conformance")
        var held: [String: URL] = [:]
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: conformance.path)) ?? []
        for folder in folders.sorted() where folder.hasPrefix("h264") {
            let dir = conformance.appendingPathComponent(folder)
            for file in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where held[file] == nil {
                held[file] = dir.appendingPathComponent(file)
            }
        }
        return held
    }

    /// Lays out the held vectors of `suite` under `root` as root/SUITE/VECTOR/input_file; returns their names.
    static func layOut(_ suite: URL, under root: URL, held: [String: URL]) throws -> (name: String, vectors: [String]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: suite)) as? [String: Any])
        let name = try #require(object["name"] as? String)
        var laid: [String] = []
        for vector in (object["test_vectors"] as? [[String: Any]]) ?? [] {
            guard let vectorName = vector["name"] as? String, let input = vector["input_file"] as? String,
                  let stream = held[(input as NSString).lastPathComponent] else { continue }
            let link = root.appendingPathComponent(name).appendingPathComponent(vectorName).appendingPathComponent(input)
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: stream)
            laid.append(vectorName)
        }
        return (name, laid)
    }

    @Test("FFmpeg's VA hwaccel on vtksoft passes every held vector of JVT-AVC_V1 and JVT-FR-EXT but CVFC1_Sony_C",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: flusterDirectory != nil, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: suites)
    func ffmpegVAAPI(_ suiteName: String) throws {
        try Self.runLaidOut(suiteName, decoder: "ffmpeg-vaapi:soft", failing: ["CVFC1_Sony_C"])
    }

    /// Runs `vtk suite run SUITE.json --resources DIR --decoder D` on the held vectors laid out in fluster's layout
    /// and checks the report: vectors not laid out are errors, the `failing` ones fail, every other one passes.
    static func runLaidOut(_ suiteName: String, decoder: String, failing: Set<String> = []) throws {
        let suite = try #require(flusterDirectory).appendingPathComponent("\(suiteName).json")
        let root = TestPaths.scratch.appendingPathComponent("fluster-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (name, laid) = try layOut(suite, under: root, held: heldStreams())
        try #require(!laid.isEmpty, "no vector of \(suiteName) is held in ../shared")
        let json = root.appendingPathComponent("report.json").path
        let run = try VTKBinary.run(["suite", "run", suite.path, "--resources", root.path, "--decoder", decoder, "--json", json, "-q"])
        #expect(run.status == 1, "the vectors not held are errors: \(run.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect(report["suite"] as? String == name)
        let results = try #require(report["results"] as? [[String: Any]])
        var passed = 0
        for result in results {
            let vector = result["test"] as? String ?? ""
            let status = result["status"] as? String
            if !laid.contains(vector) {
                #expect(status == "error", "\(vector) is not laid out: \(result)")
            } else if failing.contains(vector) {
                #expect(status == "fail", "\(vector): \(result)")
            } else {
                #expect(status == "pass", "\(vector): \(result["detail"] ?? "")")
                if status == "pass" { passed += 1 }
            }
        }
        print("\(suiteName) through \(decoder): \(passed) of \(laid.count) held vectors pass (\(results.count) in the suite)")
    }

    @Test("GStreamer's vaapih264dec on vtksoft passes every held vector of JVT-FR-EXT but FRExt2_Panasonic_C, which its h264parse refuses",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: flusterDirectory != nil, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftGStreamer.isAvailable, "\(VTKSoftGStreamer.unavailableReason ?? "")"))
    func gstreamer() throws {
        let suite = try #require(Self.flusterDirectory).appendingPathComponent("JVT-FR-EXT.json")
        let root = TestPaths.scratch.appendingPathComponent("fluster-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (_, laid) = try Self.layOut(suite, under: root, held: Self.heldStreams())
        let json = root.appendingPathComponent("report.json").path
        _ = try VTKBinary.run(["suite", "run", suite.path, "--resources", root.path, "--decoder", "gst-vaapi", "--json", json, "-q"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]]).filter { laid.contains($0["test"] as? String ?? "") }
        #expect(results.count == laid.count)
        for result in results where result["test"] as? String != "FRExt2_Panasonic_C" {
            #expect(result["status"] as? String == "pass", "\(result["test"] ?? ""): \(result["detail"] ?? "")")
        }
    }
}
