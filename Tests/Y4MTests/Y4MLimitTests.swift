import Testing
@testable import Y4M

/// A Y4M header cannot ask for frame buffers larger than the biggest picture vtk handles (16384 a side):
/// the limit is checked when the header is read, before any frame is allocated.
@Suite("Y4M size limits")
struct Y4MLimitTests {
    @Test("16384 is the largest width and height accepted", arguments: ["W16385 H16", "W16 H16385", "W99999999999999999999 H2", "W-4 H2", "W0 H2"])
    func tooLarge(_ parameters: String) {
        #expect(throws: Y4MError.self) { _ = try Y4MHeader(line: Array("YUV4MPEG2 \(parameters) F25:1".utf8)) }
    }

    @Test("16384x16384 itself is accepted")
    func largest() throws {
        let header = try Y4MHeader(line: Array("YUV4MPEG2 W16384 H16384 F25:1".utf8))
        #expect(header.frameSize == 16384 * 16384 * 3 / 2)
    }
}
