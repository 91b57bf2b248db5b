import Testing
@testable import VideoAcceleration

/// The LIBVA_DRIVERS_PATH a program's main sets so that libva loads vtksoft: its rules, as libva applies
/// them (entries in order, the first that holds the driver wins; unset means libva's own directory).
@Suite("SoftwareDriverLocation")
struct SoftwareDriverLocationTests {
    static let vtksoft = "/build/debug"
    static func holds(_ directories: Set<String>) -> (String) -> Bool { { directories.contains($0) } }

    @Test("Unset: vtksoft's directory, then libva's default so that hardware drivers are still found")
    func unset() {
        #expect(SoftwareDriverLocation.searchPath(leadingTo: Self.vtksoft, current: nil, libvaDefault: "/usr/lib/dri",
                                                  holdsDriver: Self.holds([Self.vtksoft])) == "/build/debug:/usr/lib/dri")
        #expect(SoftwareDriverLocation.searchPath(leadingTo: Self.vtksoft, current: "", libvaDefault: nil,
                                                  holdsDriver: Self.holds([Self.vtksoft])) == "/build/debug")
    }

    @Test("A path whose first driver-holding entry is vtksoft's directory is left as it is")
    func alreadyLeads() {
        #expect(SoftwareDriverLocation.searchPath(leadingTo: Self.vtksoft, current: "/opt/intel:/build/debug", libvaDefault: "/usr/lib/dri",
                                                  holdsDriver: Self.holds([Self.vtksoft])) == nil)
    }

    @Test("Another vtksoft earlier on the path, or none: vtksoft's directory goes first, the rest keeps its order")
    func prepends() {
        #expect(SoftwareDriverLocation.searchPath(leadingTo: Self.vtksoft, current: "/old/vtksoft:/build/debug:/opt/intel", libvaDefault: nil,
                                                  holdsDriver: Self.holds([Self.vtksoft, "/old/vtksoft"])) == "/build/debug:/old/vtksoft:/opt/intel")
        #expect(SoftwareDriverLocation.searchPath(leadingTo: Self.vtksoft, current: "/opt/intel", libvaDefault: "/usr/lib/dri",
                                                  holdsDriver: Self.holds([Self.vtksoft])) == "/build/debug:/opt/intel")
    }

    @Test("libva's default directory is dri beside the libva this process loaded")
    func libvaDefault() throws {
        let directory = try #require(SoftwareDriverLocation.libvaDefaultDriversDirectory())
        #expect(directory.hasPrefix("/") && directory.hasSuffix("/dri"))
    }

    @Test("This test process's search path leads to vtksoft (VTKTestEnvironment set it at load)")
    func testProcess() throws {
        #expect(try SoftwareDriverLocation.searchPathLeadingToSoftware() == nil)
    }
}
