import Foundation
import Testing
import VTKTestSupport

/// `vtk suite run --decoder vtk:soft` on fluster's own suite files, with the vectors ../shared holds laid out
/// as `fluster download` lays them out (``FlusterLayoutSuiteTests/layOut(_:under:held:)``): vtk passes every
/// held vector, interlaced (field pictures, PAFF, MBAFF) and 4:0:0 ones included.
@Suite("vtk suite run --decoder vtk:soft on fluster's own suite files")
struct FlusterVTKSuiteTests {
    @Test("vtk on vtksoft passes every held vector of JVT-AVC_V1 and JVT-FR-EXT",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: FlusterLayoutSuiteTests.flusterDirectory != nil, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: FlusterLayoutSuiteTests.suites)
    func vtkSoft(_ suiteName: String) throws {
        let suite = try #require(FlusterLayoutSuiteTests.flusterDirectory).appendingPathComponent("\(suiteName).json")
        let root = TestPaths.scratch.appendingPathComponent("fluster-vtk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (name, laid) = try FlusterLayoutSuiteTests.layOut(suite, under: root, held: FlusterLayoutSuiteTests.heldStreams())
        try #require(!laid.isEmpty, "no vector of \(suiteName) is held in ../shared")
        let json = root.appendingPathComponent("report.json").path
        let run = try VTKBinary.run(["suite", "run", suite.path, "--resources", root.path, "--decoder", "vtk:soft", "--json", json, "-q"])
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
            } else {
                #expect(status == "pass", "\(vector): \(result["detail"] ?? "")")
                if status == "pass" { passed += 1 }
            }
        }
        print("\(suiteName) through vtk:soft: \(passed) of \(laid.count) held vectors pass (\(results.count) in the suite)")
    }
}
