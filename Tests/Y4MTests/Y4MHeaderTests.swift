import Foundation
import Testing
import VTKMedia
import Y4M

@Suite("Y4M header parsing")
struct Y4MHeaderTests {
    func header(_ text: String) throws(Y4MError) -> Y4MHeader { try Y4MHeader(line: Array(text.utf8)) }

    @Test("FFmpeg's header: all fields, X parameters kept")
    func ffmpegHeader() throws {
        let h = try header("YUV4MPEG2 W176 H144 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG")
        #expect(h.width == 176 && h.height == 144)
        #expect(h.frameRate == .init(30000, 1001))
        #expect(h.sampleAspectRatio == .init(1, 1))
        #expect(h.interlace == .progressive)
        #expect(h.colorspace == .c420jpeg)
        #expect(h.extensions == ["YSCSS=420JPEG"])
        #expect(h.line == "YUV4MPEG2 W176 H144 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n")
        #expect(h.frameSize == 176 * 144 * 3 / 2)
    }

    @Test("The four 8-bit 4:2:0 colorspaces and C420p10", arguments: Y4MHeader.Colorspace.allCases)
    func colorspaces(_ colorspace: Y4MHeader.Colorspace) throws {
        let h = try header("YUV4MPEG2 W7 H5 F25:1 C\(colorspace.rawValue)")
        #expect(h.colorspace == colorspace)
        #expect(h.frameSize == (7 * 5 + 2 * 4 * 3) * colorspace.bytesPerSample)
    }

    @Test("Defaults, interlace values, unknown parameters ignored")
    func defaults() throws {
        let h = try header("YUV4MPEG2 H2 W2 Zfoo")
        #expect(h.frameRate == .init(25, 1) && h.sampleAspectRatio == .unknown && h.colorspace == .c420jpeg && !h.colorspaceGiven)
        for (code, value) in [("p", Y4MHeader.Interlace.progressive), ("t", .topFieldFirst), ("b", .bottomFieldFirst), ("m", .mixed), ("?", .unknown)] {
            #expect(try header("YUV4MPEG2 W2 H2 I\(code)").interlace == value)
        }
    }

    @Test("Bad headers give typed errors")
    func badHeaders() {
        #expect(throws: Y4MError.notY4M(byteOffset: 0)) { try header("YUV4MPEG W2 H2") }
        #expect(throws: Y4MError.unsupportedColorspace("444")) { try header("YUV4MPEG2 W2 H2 C444") }
        // C420p10 is read (H.265 Main 10 input); 4:4:4 and other depths are not.
        #expect((try? header("YUV4MPEG2 W2 H2 C420p10"))?.colorspace == .c420p10)
        #expect(throws: Y4MError.unsupportedColorspace("422p10")) { try header("YUV4MPEG2 W2 H2 C422p10") }
        #expect(throws: Y4MError.badParameter(name: "W", value: "(missing)", byteOffset: 0)) { try header("YUV4MPEG2 H2") }
        #expect(throws: Y4MError.badParameter(name: "W", value: "0", byteOffset: 10)) { try header("YUV4MPEG2 W0 H2") }
        #expect(throws: Y4MError.badParameter(name: "W", value: "99999999999999999999", byteOffset: 10)) { try header("YUV4MPEG2 W99999999999999999999 H2") }
        #expect(throws: Y4MError.badParameter(name: "F", value: "30:0", byteOffset: 16)) { try header("YUV4MPEG2 W2 H2 F30:0") }
        #expect(throws: Y4MError.badParameter(name: "I", value: "x", byteOffset: 16)) { try header("YUV4MPEG2 W2 H2 Ix") }
    }
}
