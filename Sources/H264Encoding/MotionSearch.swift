/// Block distortion (SAD, SATD), rate estimates, and the motion search: integer hexagon/square
/// search around the predictors, then half- and quarter-sample refinement with SATD.
enum MotionSearch {
    /// λ for SAD/SATD costs at a QP (≈ 0.92 · 2^((QP − 12) / 6)).
    static let lambda: [Int32] = (0..<52).map { qp in
        var v = 0.92
        for _ in 0..<max(qp - 12, 0) { v *= 1.122462 }  // 2^(1/6)
        return Int32(max(1, (v + 0.5).rounded(.down)))
    }

    /// Length of se(v) (9.1.1).
    @inline(__always) static func bitsSE(_ v: Int32) -> Int32 {
        let codeNum = UInt32(v > 0 ? 2 * v - 1 : -2 * v) + 1
        return Int32(2 * (31 - codeNum.leadingZeroBitCount) + 1)
    }

    @inline(__always) static func bitsUE(_ v: Int) -> Int32 {
        let codeNum = UInt32(v) + 1
        return Int32(2 * (31 - codeNum.leadingZeroBitCount) + 1)
    }

    @inline(__always) static func sad16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var sum = SIMD16<UInt16>.zero
        for row in 0..<16 {
            let va = UnsafeRawPointer(a + row * aStride).loadUnaligned(as: SIMD16<UInt8>.self)
            let vb = UnsafeRawPointer(b + row * bStride).loadUnaligned(as: SIMD16<UInt8>.self)
            sum &+= SIMD16<UInt16>(truncatingIfNeeded: pointwiseMax(va, vb) &- pointwiseMin(va, vb))
        }
        return Int32(sum.wrappedSum())
    }

    /// SATD of a 4x4 block: half the sum of absolute Hadamard coefficients of the difference.
    @inline(__always) static func satd4x4(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var d = SIMD16<Int32>()
        for r in 0..<4 {
            for c in 0..<4 { d[4 * r + c] = Int32(a[r * aStride + c]) - Int32(b[r * bStride + c]) }
        }
        // rows
        var t = SIMD16<Int32>()
        for r in 0..<4 {
            let s01 = d[4 * r] + d[4 * r + 1], d01 = d[4 * r] - d[4 * r + 1]
            let s23 = d[4 * r + 2] + d[4 * r + 3], d23 = d[4 * r + 2] - d[4 * r + 3]
            t[4 * r] = s01 + s23; t[4 * r + 1] = s01 - s23; t[4 * r + 2] = d01 - d23; t[4 * r + 3] = d01 + d23
        }
        var sum: Int32 = 0
        for c in 0..<4 {
            let s01 = t[c] + t[4 + c], d01 = t[c] - t[4 + c], s23 = t[8 + c] + t[12 + c], d23 = t[8 + c] - t[12 + c]
            sum += abs(s01 + s23) + abs(s01 - s23) + abs(d01 - d23) + abs(d01 + d23)
        }
        return (sum + 1) >> 1
    }

    @inline(__always) static func satd(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, w: Int, h: Int) -> Int32 {
        var sum: Int32 = 0
        var y = 0
        while y < h {
            var x = 0
            while x < w {
                sum += satd4x4(a + y * aStride + x, aStride, b + y * bStride + x, bStride)
                x += 4
            }
            y += 4
        }
        return sum
    }
}
