import Foundation
import Testing
import VTKTestSupport

/// `vtk-bench --smoke` (make bench-smoke): one section made to fail must not stop the others, and the
/// benchmark must say which failed and exit 1 at the end only.
@Suite("vtk-bench --smoke", .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
struct BenchSmokeTests {
    @Test("a failed section is reported, every later section still runs, and the exit status is 1")
    func failedSectionDoesNotStopTheRest() throws {
        let bench = try #require(VTKSoftDriverLocation.directory?.appendingPathComponent("vtk-bench"))
        try #require(FileManager.default.isExecutableFile(atPath: bench.path), "no vtk-bench beside the tests")
        let out = TestPaths.scratch.appendingPathComponent("bench-smoke-\(UUID().uuidString)")
        let result = try ProcessRunner.run(bench.path, ["--smoke", "--out", out.path],
                                           environment: Sanitizer.vtkEnvironment.merging(["VTK_BENCH_FAIL_SECTION": "decode CIF"]) { $1 })
        #expect(result.status == 1, "\(result.stderrText)")
        let markdown = try String(contentsOf: out.appendingPathComponent("vtk-bench.md"), encoding: .utf8)
        #expect(markdown.contains("**FAILED: decode CIF**"))
        // The sections before and after it ran.
        for heading in ["### Decode through vtksoft", "H.265 176x144", "### Encode through vtksoft", "### Round trip", "### `vtk suite run`",
                        "### Kernels", "### Peak memory", "### Live 176x144 encode -> RTP", "### Targets"] {
            #expect(markdown.contains(heading), "missing: \(heading)")
        }
        #expect(markdown.components(separatedBy: "**FAILED:").count == 2, "only the section made to fail fails:\n\(markdown)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("vtk-bench.json"))) as? [String: Any])
        #expect((json["failedSections"] as? [String])?.count == 1)
        #expect(result.stderrText.contains("1 section(s) failed"))
    }
}
