@testable import H264Encoding
import Testing

/// The plane predictions against their per-sample equations. Rules of comparison:
/// - Intra_16x16 plane (8.3.3.4) and chroma plane for 4:2:0 (8.3.4.4, xCF = yCF = 4): every predicted sample must equal
///   Clip1((a + b·(x − centre) + c·(y − centre) + 16) >> 5) computed here in Int, from H and V summed as the equations
///   write them, on random edges and on the edges of the largest |H| and |V| of either sign (the kernel computes a
///   row at a time in lanes).
@Suite("Intra plane prediction against the per-sample equations")
struct IntraPlanePredictionTests {
    static func reference(size: Int, top: [Int], left: [Int], corner: Int) -> [UInt8] {
        // top[x] = p[x, −1], left[y] = p[−1, y], both x, y = 0...size − 1; p[−1, −1] = corner
        func t(_ x: Int) -> Int { x < 0 ? corner : top[x] }
        func l(_ y: Int) -> Int { y < 0 ? corner : left[y] }
        let half = size / 2, mul = size == 16 ? 5 : 34
        var h = 0, v = 0
        for k in 0..<half {
            h += (k + 1) * (t(half + k) - t(half - 2 - k))
            v += (k + 1) * (l(half + k) - l(half - 2 - k))
        }
        let a = 16 * (l(size - 1) + t(size - 1)), b = (mul * h + 32) >> 6, c = (mul * v + 32) >> 6
        var out: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size { out.append(UInt8(min(max((a + b * (x - (half - 1)) + c * (y - (half - 1)) + 16) >> 5, 0), 255))) }
        }
        return out
    }

    @Test("16x16 and chroma plane equal the equations")
    func plane() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state >> 56)
        }
        let stride = 24
        var n = IntraPrediction.Neighbours()
        n.left = true; n.top = true; n.topLeft = true; n.topRight = true
        for size in [16, 8] {
            for trial in 0..<64 {
                let high = trial % 4 == 0 ? 255 : 0, low = 255 - high
                let top = (0..<size).map { x in trial % 4 < 2 ? (x >= size / 2 ? high : low) : next() }
                let left = (0..<size).map { y in trial % 4 < 2 ? (y >= size / 2 ? high : low) : next() }
                let corner = trial % 4 < 2 ? low : next()
                var plane = [UInt8](repeating: 0, count: (size + 1) * stride)
                plane[0] = UInt8(corner)
                for x in 0..<size { plane[1 + x] = UInt8(top[x]) }
                for y in 0..<size { plane[(y + 1) * stride] = UInt8(left[y]) }
                var dst = [UInt8](repeating: 0, count: size * size)
                plane.withUnsafeBufferPointer { p in
                    dst.withUnsafeMutableBufferPointer { d in
                        guard let p = p.baseAddress, let d = d.baseAddress else { return }
                        if size == 16 {
                            IntraPrediction.predict16x16(mode: 3, at: p + stride + 1, stride: stride, n, dst: d, dstStride: 16)
                        } else {
                            IntraPrediction.predictChroma(mode: 3, at: p + stride + 1, stride: stride, n, dst: d, dstStride: 8)
                        }
                    }
                }
                #expect(dst == Self.reference(size: size, top: top, left: left, corner: corner), "size \(size), trial \(trial)")
            }
        }
    }
}
