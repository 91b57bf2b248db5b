@testable import H264Encoding
import Testing

/// SA8D against its definition. Rules of comparison:
/// - per 8x8 quarter of the 16x16 block, the reference takes the differences d = a − b, the 2-D transform
///   H·d·Hᵀ with H the 8x8 Sylvester Hadamard matrix (H[i][j] = (−1)^popcount(i & j)), and (Σ |coefficients| + 2) >> 2;
///   the kernel's butterflies order and sign the coefficients differently, which leaves the sum of magnitudes unchanged;
/// - the kernel's total over the four quarters must equal the reference's on random blocks and on the extremes
///   (all 255 against all 0, the largest coefficients) and on equal blocks (0).
@Suite("SA8D against the 8x8 Hadamard definition")
struct SA8DKernelTests {
    /// The two blocks a kernel test compares, 16 rows of `stride` samples each.
    enum BlockPair { case extremes, reversedExtremes, equal, random }

    static func blocks(_ kind: BlockPair, stride: Int, next: () -> UInt8) -> (a: [UInt8], b: [UInt8]) {
        var a = [UInt8](repeating: 0, count: 16 * stride), b = a
        for i in a.indices {
            switch kind {
            case .extremes: a[i] = 255; b[i] = 0
            case .reversedExtremes: a[i] = 0; b[i] = 255
            case .equal: a[i] = next(); b[i] = a[i]
            case .random: a[i] = next(); b[i] = next()
            }
        }
        return (a, b)
    }

    static func reference(_ a: [UInt8], _ b: [UInt8], stride: Int) -> Int32 {
        var total: Int32 = 0
        for q in 0..<4 {
            let ox = 8 * (q & 1), oy = 8 * (q >> 1)
            var d = [[Int32]](repeating: [Int32](repeating: 0, count: 8), count: 8)
            for y in 0..<8 { for x in 0..<8 { d[y][x] = Int32(a[(oy + y) * stride + ox + x]) - Int32(b[(oy + y) * stride + ox + x]) } }
            func h(_ i: Int, _ j: Int) -> Int32 { (i & j).nonzeroBitCount % 2 == 0 ? 1 : -1 }
            var sum: Int32 = 0
            for u in 0..<8 {
                for v in 0..<8 {
                    var c: Int32 = 0
                    for y in 0..<8 { for x in 0..<8 { c += h(u, y) * d[y][x] * h(v, x) } }
                    sum += abs(c)
                }
            }
            total += (sum + 2) >> 2
        }
        return total
    }

    @Test("sa8d16x16 equals the definition")
    func sa8dMatches() {
        var state: UInt64 = 0xD1B5_4A32_D192_ED03
        func next() -> UInt8 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }
        let stride = 24
        for trial in 0..<60 {
            let (a, b) = Self.blocks(trial % 4 == 0 ? .extremes : trial % 4 == 1 ? .equal : .random, stride: stride, next: next)
            let expected = Self.reference(a, b, stride: stride)
            let got = a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb -> Int32 in
                    guard let x = pa.baseAddress, let y = pb.baseAddress else { return -1 }
                    return MotionSearch.sa8d16x16(x, stride, y, stride)
                }
            }
            #expect(got == expected, "trial \(trial)")
        }
    }
}
