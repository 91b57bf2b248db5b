/// Intra prediction from the reconstructed, not yet deblocked, neighbours (8.3). `at` points at the
/// block's top-left sample in the reconstruction; the prediction goes to `dst` (stride `dstStride`).
enum IntraPrediction {
    /// Which neighbours may be used (6.4.x availability, constrained_intra_pred already applied).
    struct Neighbours {
        var left = false, top = false, topRight = false, topLeft = false
    }

    @inline(__always) static func clip(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v, 0), 255)) }

    // MARK: Intra16x16 (8.3.3): 0 vertical, 1 horizontal, 2 DC, 3 plane

    static func isAvailable16x16(mode: Int, _ n: Neighbours) -> Bool {
        switch mode {
        case 0: return n.top
        case 1: return n.left
        case 3: return n.top && n.left && n.topLeft
        default: return true
        }
    }

    static func predict16x16(mode: Int, at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours,
                             dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        predictSquare(mode: mode == 0 ? 2 : (mode == 1 ? 1 : (mode == 2 ? 0 : 3)), size: 16, at: p, stride: stride, n, dst: dst, dstStride: dstStride)
    }

    // MARK: Chroma (8.3.4): 0 DC, 1 horizontal, 2 vertical, 3 plane

    static func isAvailableChroma(mode: Int, _ n: Neighbours) -> Bool {
        switch mode {
        case 1: return n.left
        case 2: return n.top
        case 3: return n.top && n.left && n.topLeft
        default: return true
        }
    }

    static func predictChroma(mode: Int, at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours,
                              dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        if mode != 0 {
            predictSquare(mode: mode, size: 8, at: p, stride: stride, n, dst: dst, dstStride: dstStride)
            return
        }
        // DC per 4x4 chroma block (8.3.4.1-3)
        for by in 0..<2 {
            for bx in 0..<2 {
                var sumTop: Int32 = 0, sumLeft: Int32 = 0
                if n.top { for i in 0..<4 { sumTop += Int32(p[-stride + bx * 4 + i]) } }
                if n.left { for i in 0..<4 { sumLeft += Int32(p[(by * 4 + i) * stride - 1]) } }
                var dc: Int32 = 128
                if bx == by {
                    if n.top && n.left { dc = (sumTop + sumLeft + 4) >> 3 } else if n.left { dc = (sumLeft + 2) >> 2 } else if n.top { dc = (sumTop + 2) >> 2 }
                } else if bx == 1 {
                    if n.top { dc = (sumTop + 2) >> 2 } else if n.left { dc = (sumLeft + 2) >> 2 }
                } else {
                    if n.left { dc = (sumLeft + 2) >> 2 } else if n.top { dc = (sumTop + 2) >> 2 }
                }
                let word = UInt32(truncatingIfNeeded: dc) &* 0x0101_0101  // dc in 0...255 in every byte
                let offset: Int = 4 &* (by &* dstStride &+ bx)
                let block: UnsafeMutablePointer<UInt8> = dst + offset
                for y in 0..<4 { UnsafeMutableRawPointer(block + y &* dstStride).storeBytes(of: word, as: UInt32.self) }
            }
        }
    }

    /// 16x16 luma or 8x8 chroma: mode in chroma numbering (0 DC, 1 horizontal, 2 vertical, 3 plane).
    private static func predictSquare(mode: Int, size: Int, at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours,
                                      dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        switch mode {
        case 2:
            if size == 16 {
                let top = UnsafeRawPointer(p - stride).loadUnaligned(as: SIMD16<UInt8>.self)
                for y in 0..<16 { UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: top, as: SIMD16<UInt8>.self) }
            } else {  // 8 (chroma)
                let top = UnsafeRawPointer(p - stride).loadUnaligned(as: UInt64.self)
                for y in 0..<size { UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: top, as: UInt64.self) }
            }
        case 1:
            if size == 16 {
                for y in 0..<16 {
                    UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: SIMD16<UInt8>(repeating: p[y &* stride &- 1]), as: SIMD16<UInt8>.self)
                }
            } else {  // 8 (chroma): the sample in every byte of a word
                for y in 0..<size {
                    UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: UInt64(p[y &* stride &- 1]) &* 0x0101_0101_0101_0101, as: UInt64.self)
                }
            }
        case 3:
            let half = size / 2
            var h: Int32 = 0, v: Int32 = 0
            for i in 0..<half {
                h &+= Int32(i &+ 1) &* (Int32(p[-stride &+ half &+ i]) &- Int32(p[-stride &+ half &- 2 &- i]))
                v &+= Int32(i &+ 1) &* (Int32(p[(half &+ i) &* stride &- 1]) &- Int32(p[(half &- 2 &- i) &* stride &- 1]))
            }
            let a = 16 &* (Int32(p[(size &- 1) &* stride &- 1]) &+ Int32(p[-stride &+ size &- 1]))
            let mul: Int32 = size == 16 ? 5 : 34
            let b = (mul &* h &+ 32) >> 6, c = (mul &* v &+ 32) >> 6
            let center = Int32(half &- 1)
            if size == 16 {
                let ramp = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) &- center
                let rowStart = b &* ramp &+ (a + 16)
                for y in 0..<16 {
                    let v = (rowStart &+ c &* (Int32(y) &- center)) &>> 5
                    let positive = v & ~(v &>> 31)
                    let over = (255 &- positive) &>> 31
                    UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: (positive & ~over) | (255 & over)),
                                                                           as: SIMD16<UInt8>.self)
                }
                return
            }
            for y in 0..<size {
                for x in 0..<size {
                    dst[y &* dstStride &+ x] = clip((a &+ b &* (Int32(x) &- center) &+ c &* (Int32(y) &- center) &+ 16) >> 5)
                }
            }
        default:  // DC (16x16; chroma DC is per 4x4 block, above)
            var sum: Int32 = 0
            let shift = size == 16 ? 4 : 3
            var dc: Int32 = 128
            if n.top { for i in 0..<size { sum &+= Int32(p[-stride &+ i]) } }
            if n.left { for i in 0..<size { sum &+= Int32(p[i &* stride &- 1]) } }
            if n.top && n.left { dc = (sum &+ Int32(size)) >> Int32(shift &+ 1) } else if n.top || n.left { dc = (sum &+ Int32(size / 2)) >> Int32(shift) }
            if size == 16 {
                for y in 0..<16 { UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: SIMD16<UInt8>(repeating: UInt8(dc)), as: SIMD16<UInt8>.self) }
            } else {
                for y in 0..<size { (dst + y &* dstStride).update(repeating: UInt8(dc), count: size) }
            }
        }
    }

    // MARK: Intra4x4 (8.3.1.2)

    static func isAvailable4x4(mode: Int, _ n: Neighbours) -> Bool {
        switch mode {
        case 0, 3, 7: return n.top
        case 1, 8: return n.left
        case 4, 5, 6: return n.top && n.left && n.topLeft
        default: return true
        }
    }

    /// Loads the edge of a 4x4 block into e: e[3 - y] = p[-1, y] (y = -1...3), e[5 + x] = p[x, -1]
    /// (x = 0...7, the top-right substituted by p[3, -1] when unavailable, 8.3.1.2).
    static func loadEdge4x4(at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours, into e: UnsafeMutablePointer<Int32>) {
        if n.left { for y in 0..<4 { e[3 - y] = Int32(p[y * stride - 1]) } }
        if n.topLeft { e[4] = Int32(p[-stride - 1]) }
        if n.top {
            for x in 0..<4 { e[5 + x] = Int32(p[-stride + x]) }
            if n.topRight { for x in 4..<8 { e[5 + x] = Int32(p[-stride + x]) } } else { for x in 4..<8 { e[5 + x] = e[8] } }
        }
    }

    /// Wrapping arithmetic here and in the other predictions: sums of a few samples cannot overflow, and the
    /// overflow checks cost about a third of these functions.
    ///
    /// Every directional mode predicts each sample from the edge as a line, e[0...12] = p[-1, 3...-1] then
    /// p[0...7, -1]: either the 3-tap filter F(i) = (e[i−1] + 2e[i] + e[i+1] + 2) >> 2 or the 2-tap
    /// average A(i) = (e[i] + e[i+1] + 1) >> 1 (the equations of 8.3.1.2.4-8.3.1.2.9 with p[x, −1] = e[5 + x],
    /// p[−1, y] = e[3 − y]); each row is four such values, stored as one 32-bit word.
    static func predict4x4(mode: Int, edge e: UnsafePointer<Int32>, _ n: Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func F(_ i: Int) -> Int32 { (e[i &- 1] &+ 2 &* e[i] &+ e[i &+ 1] &+ 2) >> 2 }
        @inline(__always) func A(_ i: Int) -> Int32 { (e[i] &+ e[i &+ 1] &+ 1) >> 1 }
        @inline(__always) func row(_ y: Int, _ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) {
            let word = UInt32(truncatingIfNeeded: a) | UInt32(truncatingIfNeeded: b) << 8 | UInt32(truncatingIfNeeded: c) << 16
                | UInt32(truncatingIfNeeded: d) << 24
            UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: word, as: UInt32.self)
        }
        @inline(__always) func rows(_ r0: (Int32, Int32, Int32, Int32), _ r1: (Int32, Int32, Int32, Int32),
                                    _ r2: (Int32, Int32, Int32, Int32), _ r3: (Int32, Int32, Int32, Int32)) {
            row(0, r0.0, r0.1, r0.2, r0.3); row(1, r1.0, r1.1, r1.2, r1.3); row(2, r2.0, r2.1, r2.2, r2.3); row(3, r3.0, r3.1, r3.2, r3.3)
        }
        switch mode {
        case 0:  // vertical (8.3.1.2.1)
            let t = (e[5], e[6], e[7], e[8])
            rows(t, t, t, t)
        case 1:  // horizontal (8.3.1.2.2)
            for y in 0..<4 { let l = e[3 &- y]; row(y, l, l, l, l) }
        case 3:  // diagonal down left (8.3.1.2.4): F(6 + x + y), the last sample (p[6, −1] + 3p[7, −1] + 2) >> 2
            let corner = (e[11] &+ 3 &* e[12] &+ 2) >> 2
            rows((F(6), F(7), F(8), F(9)), (F(7), F(8), F(9), F(10)), (F(8), F(9), F(10), F(11)), (F(9), F(10), F(11), corner))
        case 4:  // diagonal down right (8.3.1.2.5): F(4 + x − y)
            rows((F(4), F(5), F(6), F(7)), (F(3), F(4), F(5), F(6)), (F(2), F(3), F(4), F(5)), (F(1), F(2), F(3), F(4)))
        case 5:  // vertical right (8.3.1.2.6)
            rows((A(4), A(5), A(6), A(7)), (F(4), F(5), F(6), F(7)), (F(3), A(4), A(5), A(6)), (F(2), F(4), F(5), F(6)))
        case 6:  // horizontal down (8.3.1.2.7)
            rows((A(3), F(4), F(5), F(6)), (A(2), F(3), A(3), F(4)), (A(1), F(2), A(2), F(3)), (A(0), F(1), A(1), F(2)))
        case 7:  // vertical left (8.3.1.2.8)
            rows((A(5), A(6), A(7), A(8)), (F(6), F(7), F(8), F(9)), (A(6), A(7), A(8), A(9)), (F(7), F(8), F(9), F(10)))
        case 8:  // horizontal up (8.3.1.2.9): p[−1, 3] past the edge
            let l3 = e[0], g = (e[1] &+ 3 &* e[0] &+ 2) >> 2
            rows((A(2), F(2), A(1), F(1)), (A(1), F(1), A(0), g), (A(0), g, l3, l3), (l3, l3, l3, l3))
        default:  // DC (8.3.1.2.3)
            let dc = dc4x4(edge: e, n)
            rows((dc, dc, dc, dc), (dc, dc, dc, dc), (dc, dc, dc, dc), (dc, dc, dc, dc))
        }
    }

    /// The Intra4x4 DC prediction value (8.3.1.2.3) from the edge of ``loadEdge4x4(at:stride:_:into:)``.
    @inline(__always) static func dc4x4(edge e: UnsafePointer<Int32>, _ n: Neighbours) -> Int32 {
        if n.top && n.left { return (e[5] &+ e[6] &+ e[7] &+ e[8] &+ e[0] &+ e[1] &+ e[2] &+ e[3] &+ 4) >> 3 }
        if n.left { return (e[0] &+ e[1] &+ e[2] &+ e[3] &+ 2) >> 2 }
        if n.top { return (e[5] &+ e[6] &+ e[7] &+ e[8] &+ 2) >> 2 }
        return 128
    }
}
