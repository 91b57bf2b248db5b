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
        try FlusterLayoutSuiteTests.runLaidOut(suiteName, decoder: "vtk:soft")
    }
}
