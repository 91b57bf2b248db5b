import PixelConversion
import Testing
import VTKMedia

/// PixelConverter (libyuv, and the 10-bit sample-by-sample path) against a plain reference written here:
/// per sample, which plane and position each value goes to, and the 8 <-> 10-bit shifts.
@Suite("PixelConverter")
struct PixelConverterTests {
    /// An odd size, so that chroma rounds up and no fast path hides an edge.
    static let width = 37, height = 21

    /// A deterministic picture in `format` whose every sample differs from its neighbours.
    static func picture(_ format: PixelFormat) -> PixelBuffer {
        var buffer = PixelBuffer(format: format, width: width, height: height)
        for p in buffer.planes.indices {
            for i in buffer.planes[p].bytes.indices { buffer.planes[p].bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ p &* 97 &+ 11) }
        }
        return buffer
    }

    /// Sample (x, y) of component c (0 Y, 1 U, 2 V) in any layout, as a 10-bit value (8-bit samples << 2).
    static func sample(_ b: PixelBuffer, _ c: Int, _ x: Int, _ y: Int) -> Int {
        func byte(_ p: Int, _ offset: Int) -> Int { Int(b.planes[p].bytes[y * b.planes[p].bytesPerRow + offset]) }
        func word(_ p: Int, _ offset: Int) -> Int { byte(p, offset) | byte(p, offset + 1) << 8 }
        switch b.format {
        case .i420: return byte(c, x) << 2
        case .yuv420p10: return word(c, 2 * x)
        case .nv12: return c == 0 ? byte(0, x) << 2 : byte(1, 2 * x + c - 1) << 2
        case .p010: return (c == 0 ? word(0, 2 * x) : word(1, 4 * x + 2 * (c - 1))) >> 6
        }
    }

    static func samplesAgree(_ a: PixelBuffer, _ b: PixelBuffer, bits8: Bool) -> Bool {
        for c in 0..<3 {
            let (w, h) = c == 0 ? (width, height) : (a.chromaWidth, a.chromaHeight)
            for y in 0..<h {
                for x in 0..<w {
                    var (s, t) = (sample(a, c, x, y), sample(b, c, x, y))
                    if bits8 { (s, t) = (s >> 2, t >> 2) }  // an 8-bit destination keeps the top 8 of 10 bits
                    if s != t { return false }
                }
            }
        }
        return true
    }

    @Test("NV12 <-> I420 moves every sample to its place, both ways", arguments: [(PixelFormat.nv12, PixelFormat.i420), (.i420, .nv12)])
    func eightBit(from: PixelFormat, to: PixelFormat) {
        let source = Self.picture(from)
        let out = PixelConverter.convert(source, to: to)
        #expect(out.format == to && out.width == Self.width && out.height == Self.height)
        #expect(Self.samplesAgree(source, out, bits8: false))
        #expect(PixelConverter.convert(out, to: from).planes.map(\.bytes) == source.planes.map(\.bytes))
    }

    @Test("10-bit layouts convert sample by sample; to 8 bits the top 8 bits are kept",
          arguments: [(PixelFormat.p010, PixelFormat.yuv420p10), (.yuv420p10, .p010), (.p010, .i420), (.yuv420p10, .nv12), (.i420, .yuv420p10)])
    func tenBit(from: PixelFormat, to: PixelFormat) {
        var source = Self.picture(from)
        if from == .p010 {  // P010 holds its 10 bits in the high bits: clear the low 6 as a real one would
            for p in source.planes.indices {
                for i in stride(from: 0, to: source.planes[p].bytes.count, by: 2) { source.planes[p].bytes[i] &= 0xC0 }
            }
        }
        if from == .yuv420p10 {  // 10 bits in the low bits of each 16
            for p in source.planes.indices {
                for i in stride(from: 1, to: source.planes[p].bytes.count, by: 2) { source.planes[p].bytes[i] &= 0x03 }
            }
        }
        let out = PixelConverter.convert(source, to: to)
        #expect(out.format == to)
        #expect(Self.samplesAgree(source, out, bits8: !to.is10Bit))
    }

    @Test("Converting with a reused buffer gives the same bytes as a fresh one, and keeps the storage for the next frame")
    func reusing() {
        var storage: PixelBuffer?
        let first = PixelConverter.convert(Self.picture(.nv12), to: .i420, reusing: &storage)
        #expect(storage != nil)
        var second = Self.picture(.nv12)
        second.planes[0].bytes[0] ^= 0xFF
        let again = PixelConverter.convert(second, to: .i420, reusing: &storage)
        #expect(again.planes.map(\.bytes) == PixelConverter.convert(second, to: .i420).planes.map(\.bytes))
        #expect(first.planes[0].bytes[0] != again.planes[0].bytes[0])  // the first result was not overwritten
    }
}
