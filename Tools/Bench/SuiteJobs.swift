import Foundation
import VTKTestSupport

/// One stream of the bench's suite and the MD5 of its decoded frames.
struct SuiteVector {
    let name: String
    let path: String
    let md5: String
}

/// `vtk suite run` with -j 1 against -j 2 on the same suite, decoded by vtk through vtksoft. The suite is laid
/// out as fluster lays out its resources, SUITE.json beside SUITE/VECTOR/FILE (a link to each stream), and
/// every input_file is relative, as in fluster's own suites. Whole processes, as everywhere.
func suiteJobsComparison(vtk: String, work: URL, vectors: [SuiteVector]) throws -> [Row] {
    guard !vectors.isEmpty else { throw BenchFailure("no streams for the suite") }
    let folder = work.appendingPathComponent("suite")
    let suite = folder.appendingPathComponent("bench.json")
    try? FileManager.default.removeItem(at: folder)
    var entries: [[String: String]] = []
    for vector in vectors {
        let file = URL(fileURLWithPath: vector.path).lastPathComponent
        let directory = folder.appendingPathComponent("bench").appendingPathComponent(vector.name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(file).path, withDestinationPath: vector.path)
        } catch {
            throw BenchFailure("cannot lay out the suite's resources in \(directory.path): \(error)")
        }
        entries.append(["name": vector.name, "input_file": file, "output_format": "yuv420p", "result": vector.md5])
    }
    guard let data = try? JSONSerialization.data(withJSONObject: ["name": "bench", "codec": "H.264", "test_vectors": entries]),
          FileManager.default.createFile(atPath: suite.path, contents: data) else { throw BenchFailure("cannot write \(suite.path)") }
    let common = ["suite", "run", suite.path, "--decoder", "vtk:soft", "-q", "--json", "/dev/null"]
    return try compare("vtk suite run, \(vectors.count) streams", [
        command("-j 1", vtk, common + ["-j", "1"]),
        command("-j 2", vtk, common + ["-j", "2"]),
    ])
}
