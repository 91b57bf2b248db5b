import Foundation
import Testing
@testable import VTKCommandLine

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
