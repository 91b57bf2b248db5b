import Testing
@testable import H265Encoding

/// The butterfly transforms against the Recommendation's matrix products written out directly (8.6.4.2, 8-318).
@Suite struct H265TransformTests {
    /// A small deterministic generator (the tests must not depend on a seed that changes between runs).
    struct Generator {
        var state: UInt64
        mutating func next(_ range: ClosedRange<Int32>) -> Int32 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let span = UInt64(Int64(range.upperBound) - Int64(range.lowerBound) + 1)
            return range.lowerBound + Int32((state >> 33) % span)
        }
    }

    static func matrix(log2: Int, dst: Bool) -> (Int, Int) -> Int64 {
        let n = 1 << log2
        return { k, j in dst ? Int64(H265Transform.dst[k * 4 + j]) : Int64(H265Transform.matrix32[k * (32 / n)][j]) }
    }

    /// 8.6.4.2 exactly: columns, clip to 16 bits, rows, with the scaling of 8.6.3 before them.
    static func referenceInverse(_ c: [Int32], log2: Int, qp: Int, bitDepth: Int, dst: Bool) -> [Int32] {
        let n = 1 << log2, m = matrix(log2: log2, dst: dst)
        let bdShift = Int64(bitDepth + log2 - 5)
        let scale = Int64(H265Transform.levelScale[qp % 6]) << Int64(qp / 6)
        let d = c.map { min(max((Int64($0) * scale * 16 + (1 << (bdShift - 1))) >> bdShift, -32768), 32767) }
        var g = [Int64](repeating: 0, count: n * n), r = [Int32](repeating: 0, count: n * n)
        for x in 0..<n {
            for y in 0..<n {
                var s: Int64 = 0
                for k in 0..<n { s += m(k, y) * d[k * n + x] }
                g[y * n + x] = min(max((s + 64) >> 7, -32768), 32767)
            }
        }
        let shift2 = Int64(20 - bitDepth)
        for y in 0..<n {
            for x in 0..<n {
                var s: Int64 = 0
                for k in 0..<n { s += m(k, x) * g[y * n + k] }
                r[y * n + x] = Int32((s + (1 << (shift2 - 1))) >> shift2)
            }
        }
        return r
    }

    static func referenceForward(_ r: [Int32], log2: Int, bitDepth: Int, dst: Bool) -> [Int32] {
        let n = 1 << log2, m = matrix(log2: log2, dst: dst)
        let shift1 = Int64(log2 + bitDepth - 9), shift2 = Int64(log2 + 6)
        var t = [Int64](repeating: 0, count: n * n), out = [Int32](repeating: 0, count: n * n)
        for y in 0..<n {
            for k in 0..<n {
                var s: Int64 = 0
                for x in 0..<n { s += m(k, x) * Int64(r[y * n + x]) }
                t[y * n + k] = (s + (1 << (shift1 - 1))) >> shift1
            }
        }
        for x in 0..<n {
            for k in 0..<n {
                var s: Int64 = 0
                for y in 0..<n { s += m(k, y) * t[y * n + x] }
                out[k * n + x] = Int32((s + (1 << (shift2 - 1))) >> shift2)
            }
        }
        return out
    }

    @Test(arguments: [(2, true), (2, false), (3, false), (4, false), (5, false)])
    func butterfliesEqualTheMatrixProducts(log2: Int, dst: Bool) {
        let n = 1 << log2
        var random = Generator(state: UInt64(log2 * 2 + (dst ? 1 : 0)))
        for bitDepth in [8, 10] {
            let maxResidual = Int32((1 << bitDepth) - 1)
            for trial in 0..<40 {
                // Dense residuals, and sparse levels confined to a corner (the inverse skips zero rows and columns).
                let residual = (0..<(n * n)).map { _ in random.next(-maxResidual...maxResidual) }
                #expect(H265Transform.forward(residual, log2: log2, bitDepth: bitDepth, dst: dst)
                        == Self.referenceForward(residual, log2: log2, bitDepth: bitDepth, dst: dst))
                let corner = 1 + trial % n
                let levels = (0..<(n * n)).map { i -> Int32 in
                    i / n < corner && i % n < corner && random.next(0...2) == 0 ? random.next(-300...300) : 0
                }
                let qp = Int(random.next(0...51)) + 6 * (bitDepth - 8)
                var rebuilt = [Int32](repeating: 7, count: n * n)
                H265Transform.inverse(levels, log2: log2, qp: qp, bitDepth: bitDepth, dst: dst, into: &rebuilt)
                #expect(rebuilt == Self.referenceInverse(levels, log2: log2, qp: qp, bitDepth: bitDepth, dst: dst))
            }
        }
    }
}
