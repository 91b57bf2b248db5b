import Foundation
import Testing
import VTKTestSupport

/// What the built `vtk` loads before its first instruction: no part of Foundation, whose libraries
/// (libFoundation, its internationalization and ICU; FoundationEssentials) cost ~12M instructions a process.
@Suite("vtk start-up libraries")
struct StartupLibrariesTests {
    static let foundation = ["libFoundation.so", "libFoundationEssentials.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
                             "libFoundationNetworking.so", "libFoundationXML.so"]

    /// The libraries the dynamic loader maps for `path` (ldd, which every glibc system has), by file name.
    static func loadedLibraries(_ path: String) throws -> [String] {
        let result = try ProcessRunner.run("ldd", [path])
        #expect(result.status == 0, "ldd \(path): \(result.stderrText)")
        return result.stdoutText.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map { String($0.split(separator: "/").last ?? $0) }
        }
    }

    // Not skipped when the binary is missing: `make test` builds it, and a check that does not run checks nothing.
    @Test("vtk and vtksoft load no part of Foundation")
    func noFoundation() throws {
        let vtk = try #require(VTKBinary.url, VTKBinary.missing)
        let driver = try #require(VTKSoftDriverLocation.library, Comment(rawValue: VTKSoftDriverLocation.missingMessage))
        for path in [vtk.path, driver.path] {
            let libraries = try Self.loadedLibraries(path)
            #expect(libraries.contains("libswiftCore.so"), "ldd's list was read: \(libraries)")
            // An incremental debug build made before a module stopped importing Foundation can keep object files
            // that still ask for it (their autolink entries): then `touch` those sources or remove .build/debug.
            #expect(libraries.filter(Self.foundation.contains).isEmpty, "\(path) loads \(libraries.filter(Self.foundation.contains))")
        }
    }
}
