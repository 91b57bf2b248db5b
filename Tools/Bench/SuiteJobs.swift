import Foundation
import VTKTestSupport

/// `vtk suite run` with -j 1 against -j 2 on the same suite: a fluster-format suite of the small
/// conformance streams (written to `work`), decoded by vtk through vtksoft. Whole processes, as everywhere.
func suiteJobsComparison(vtk: String, work: URL) -> [Row] {
    let streams = ConformanceStream.all.filter { $0.width * $0.height <= 352 * 288 && $0.frames <= 150 }
    let vectors = streams.map { ["name": $0.file, "input_file": $0.url.path, "output_format": "yuv420p", "result": $0.md5] }
    let suite = work.appendingPathComponent("bench-suite.json")
    guard let data = try? JSONSerialization.data(withJSONObject: ["name": "bench", "codec": "H.264", "test_vectors": vectors]),
          FileManager.default.createFile(atPath: suite.path, contents: data) else { fail("cannot write \(suite.path)") }
    let common = ["suite", "run", suite.path, "--decoder", "vtk:soft", "-q", "--json", "/dev/null"]
    return compare("vtk suite run, \(streams.count) streams", [
        command("-j 1", vtk, common + ["-j", "1"]),
        command("-j 2", vtk, common + ["-j", "2"]),
    ])
}
