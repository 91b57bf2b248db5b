import Foundation
import Testing
@testable import VTKCommandLine
import VTKTestSupport

/// vtk's number text without Foundation, against Foundation's String(format:), which it replaced.
@Suite("Number text")
struct TextFormattingTests {
    static let values: [Double] = [0, -0.0, 0.125, 0.375, 2.5, 3.5, 1.005, 0.99995, 0.00005, 47.285, 43.21, -3.14159, 0.98765, 430.3125,
                                   123_456.789, 1e20, 1e-7, 9.9999, -0.0004, .nan, .infinity, -.infinity, 1.7976931348623157e308]

    @Test("String(decimals:) is String(format: \"%.Nf\") byte for byte, ties and non-finite values included", arguments: [0, 1, 2, 3, 4, 6])
    func decimals(digits: Int) {
        for value in Self.values {
            #expect(String(decimals: digits, value) == String(format: "%.\(digits)f", value), "\(value)")
        }
    }

    @Test("trimming drops the picked characters at both ends only")
    func trimming() {
        #expect(" 30 \t".trimming { $0.isWhitespace && !$0.isNewline } == "30")
        #expect(": vtksoft: x :".trimming { $0 == ":" || $0 == " " } == "vtksoft: x")
        #expect("::".trimming { $0 == ":" }.isEmpty)
        #expect("".trimming { _ in true }.isEmpty)
        #expect("a".trimming { _ in false } == "a")
    }
}

/// What the built `vtk` loads before its first instruction: not Foundation proper, whose libraries
/// (libFoundation, its internationalization and ICU) cost ~10M instructions and ~7 ms a process.
@Suite("vtk start-up libraries")
struct StartupLibrariesTests {
    static let foundation = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
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
    @Test("vtk and vtksoft load no part of Foundation beyond FoundationEssentials")
    func noFoundation() throws {
        let vtk = try #require(VTKBinary.url, VTKBinary.missing)
        let driver = try #require(VTKSoftDriverLocation.library, Comment(rawValue: VTKSoftDriverLocation.missingMessage))
        for path in [vtk.path, driver.path] {
            let libraries = try Self.loadedLibraries(path)
            #expect(libraries.contains("libswiftCore.so"), "ldd's list was read: \(libraries)")
            #expect(libraries.filter(Self.foundation.contains).isEmpty, "\(path) loads \(libraries.filter(Self.foundation.contains))")
        }
    }
}
