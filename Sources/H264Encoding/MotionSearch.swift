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
            let d = row16(a + row * aStride, b + row * bStride)
            let sign = d &>> 15
            sum &+= SIMD16<UInt16>(truncatingIfNeeded: (d ^ sign) &- sign)
        }
        return Int32(sum.wrappedSum())
    }

    /// Half the sum of absolute 4x4 Hadamard coefficients of each 4-lane group of four difference rows:
    /// the vertical transform lane-wise, the first horizontal stage on even/odd lanes, the last one as
    /// |a + b| + |a − b| = 2·max(|a|, |b|).
    @inline(__always) static func hadamardRows16(_ d0: SIMD16<Int16>, _ d1: SIMD16<Int16>, _ d2: SIMD16<Int16>, _ d3: SIMD16<Int16>) -> SIMD4<Int32> {
        let s01 = d0 &+ d1, t01 = d0 &- d1, s23 = d2 &+ d3, t23 = d2 &- d3
        return horizontal16(s01 &+ s23) &+ horizontal16(s01 &- s23) &+ horizontal16(t01 &- t23) &+ horizontal16(t01 &+ t23)
    }

    @inline(__always) static func horizontal16(_ v: SIMD16<Int16>) -> SIMD4<Int32> {
        let e = v.evenHalf, o = v.oddHalf
        let s = e &+ o, d = e &- o
        let m = max4(abs4(s.evenHalf), abs4(s.oddHalf)) &+ max4(abs4(d.evenHalf), abs4(d.oddHalf))
        return SIMD4<Int32>(truncatingIfNeeded: m)
    }

    // Branch-free lane arithmetic: the generic pointwiseMax/Min and replacing(with:where:) are not
    // always inlined and then cost a call per vector.
    @inline(__always) static func abs4(_ v: SIMD4<Int16>) -> SIMD4<Int16> { let s = v &>> 15; return (v ^ s) &- s }
    @inline(__always) static func max4(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>) -> SIMD4<Int16> { let d = b &- a; return b &- (d & (d &>> 15)) }

    @inline(__always) static func row16(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD16<Int16> {
        SIMD16<Int16>(truncatingIfNeeded: UnsafeRawPointer(a).loadUnaligned(as: SIMD16<UInt8>.self))
            &- SIMD16<Int16>(truncatingIfNeeded: UnsafeRawPointer(b).loadUnaligned(as: SIMD16<UInt8>.self))
    }

    @inline(__always) static func row4(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(a).loadUnaligned(as: SIMD4<UInt8>.self))
            &- SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(b).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    /// SATD of a 16x16 block (sum over its 4x4 blocks of half the absolute Hadamard coefficients).
    @inline(__always) static func satd16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var acc = SIMD4<Int32>.zero
        for g in 0..<4 {
            let pa = a + 4 * g * aStride, pb = b + 4 * g * bStride
            acc &+= hadamardRows16(row16(pa, pb), row16(pa + aStride, pb + bStride), row16(pa + 2 * aStride, pb + 2 * bStride),
                                   row16(pa + 3 * aStride, pb + 3 * bStride))
        }
        return acc.wrappedSum()
    }

    /// SATD of a 4x4 block.
    @inline(__always) static func satd4x4(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        let d0 = row4(a, b), d1 = row4(a + aStride, b + bStride), d2 = row4(a + 2 * aStride, b + 2 * bStride), d3 = row4(a + 3 * aStride, b + 3 * bStride)
        let s01 = d0 &+ d1, t01 = d0 &- d1, s23 = d2 &+ d3, t23 = d2 &- d3
        // four vertical rows packed as 16 lanes: the same horizontal stages as 16-wide rows
        let v = SIMD16<Int16>(lowHalf: SIMD8(lowHalf: s01 &+ s23, highHalf: s01 &- s23), highHalf: SIMD8(lowHalf: t01 &- t23, highHalf: t01 &+ t23))
        return horizontal16(v).wrappedSum()
    }

    @inline(__always) static func satd(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, w: Int, h: Int) -> Int32 {
        if w == 16 && h == 16 { return satd16x16(a, aStride, b, bStride) }
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
