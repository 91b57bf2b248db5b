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
                let v = UInt8(dc)
                for y in 0..<4 { for x in 0..<4 { dst[(by * 4 + y) * dstStride + bx * 4 + x] = v } }
            }
        }
    }

    /// 16x16 luma or 8x8 chroma: mode in chroma numbering (0 DC, 1 horizontal, 2 vertical, 3 plane).
    private static func predictSquare(mode: Int, size: Int, at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours,
                                      dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        switch mode {
        case 2:
            for y in 0..<size { (dst + y &* dstStride).update(from: p - stride, count: size) }
        case 1:
            for y in 0..<size { (dst + y &* dstStride).update(repeating: p[y &* stride &- 1], count: size) }
        case 3:
            let half = size / 2
            var h: Int32 = 0, v: Int32 = 0
            for i in 0..<half {
                h += Int32(i &+ 1) &* (Int32(p[-stride &+ half &+ i]) &- Int32(p[-stride &+ half &- 2 &- i]))
                v += Int32(i &+ 1) &* (Int32(p[(half &+ i) &* stride &- 1]) &- Int32(p[(half &- 2 &- i) &* stride &- 1]))
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
                    dst[y &* dstStride &+ x] = clip((a + b &* (Int32(x) &- center) &+ c &* (Int32(y) &- center) &+ 16) >> 5)
                }
            }
        default:  // DC (16x16; chroma DC is per 4x4 block, above)
            var sum: Int32 = 0
            let shift = size == 16 ? 4 : 3
            var dc: Int32 = 128
            if n.top { for i in 0..<size { sum += Int32(p[-stride &+ i]) } }
            if n.left { for i in 0..<size { sum += Int32(p[i &* stride &- 1]) } }
            if n.top && n.left { dc = (sum &+ Int32(size)) >> Int32(shift &+ 1) } else if n.top || n.left { dc = (sum &+ Int32(size / 2)) >> Int32(shift) }
            for y in 0..<size { (dst + y &* dstStride).update(repeating: UInt8(dc), count: size) }
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
    static func predict4x4(mode: Int, edge e: UnsafePointer<Int32>, _ n: Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func T(_ x: Int) -> Int32 { e[5 &+ x] }  // p[x, -1], x ≥ -1
        @inline(__always) func L(_ y: Int) -> Int32 { e[3 &- y] }  // p[-1, y], y ≥ -1
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: Int32) { dst[y &* dstStride &+ x] = UInt8(truncatingIfNeeded: v) }
        switch mode {
        case 0: for y in 0..<4 { for x in 0..<4 { put(x, y, T(x)) } }
        case 1: for y in 0..<4 { for x in 0..<4 { put(x, y, L(y)) } }
        case 3:
            for y in 0..<4 {
                for x in 0..<4 {
                    put(x, y, x == 3 && y == 3 ? (T(6) &+ 3 &* T(7) &+ 2) >> 2 : (T(x &+ y) &+ 2 &* T(x &+ y &+ 1) &+ T(x &+ y &+ 2) &+ 2) >> 2)
                }
            }
        case 4:
            for y in 0..<4 {
                for x in 0..<4 {
                    if x > y { put(x, y, (T(x &- y &- 2) &+ 2 &* T(x &- y &- 1) &+ T(x &- y) &+ 2) >> 2) }
                    else if x < y { put(x, y, (L(y &- x &- 2) &+ 2 &* L(y &- x &- 1) &+ L(y &- x) &+ 2) >> 2) }
                    else { put(x, y, (T(0) &+ 2 &* T(-1) &+ L(0) &+ 2) >> 2) }
                }
            }
        case 5:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = 2 &* x &- y
                    if z >= 0 && z & 1 == 0 { put(x, y, (T(x &- (y >> 1) &- 1) &+ T(x &- (y >> 1)) &+ 1) >> 1) }
                    else if z >= 0 { put(x, y, (T(x &- (y >> 1) &- 2) &+ 2 &* T(x &- (y >> 1) &- 1) &+ T(x &- (y >> 1)) &+ 2) >> 2) }
                    else if z == -1 { put(x, y, (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2) }
                    else { put(x, y, (L(y &- 1) &+ 2 &* L(y &- 2) &+ L(y &- 3) &+ 2) >> 2) }
                }
            }
        case 6:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = 2 &* y &- x
                    if z >= 0 && z & 1 == 0 { put(x, y, (L(y &- (x >> 1) &- 1) &+ L(y &- (x >> 1)) &+ 1) >> 1) }
                    else if z >= 0 { put(x, y, (L(y &- (x >> 1) &- 2) &+ 2 &* L(y &- (x >> 1) &- 1) &+ L(y &- (x >> 1)) &+ 2) >> 2) }
                    else if z == -1 { put(x, y, (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2) }
                    else { put(x, y, (T(x &- 1) &+ 2 &* T(x &- 2) &+ T(x &- 3) &+ 2) >> 2) }
                }
            }
        case 7:
            for y in 0..<4 {
                for x in 0..<4 {
                    let i = x &+ (y >> 1)
                    put(x, y, y & 1 == 0 ? (T(i) &+ T(i &+ 1) &+ 1) >> 1 : (T(i) &+ 2 &* T(i &+ 1) &+ T(i &+ 2) &+ 2) >> 2)
                }
            }
        case 8:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = x &+ 2 &* y, i = y &+ (x >> 1)
                    if z > 5 { put(x, y, L(3)) }
                    else if z == 5 { put(x, y, (L(2) &+ 3 &* L(3) &+ 2) >> 2) }
                    else if z & 1 == 0 { put(x, y, (L(i) &+ L(i &+ 1) &+ 1) >> 1) }
                    else { put(x, y, (L(i) &+ 2 &* L(i &+ 1) &+ L(i &+ 2) &+ 2) >> 2) }
                }
            }
        default:
            var dc: Int32 = 128
            if n.top && n.left { dc = (T(0) &+ T(1) &+ T(2) &+ T(3) &+ L(0) &+ L(1) &+ L(2) &+ L(3) &+ 4) >> 3 }
            else if n.left { dc = (L(0) &+ L(1) &+ L(2) &+ L(3) &+ 2) >> 2 }
            else if n.top { dc = (T(0) &+ T(1) &+ T(2) &+ T(3) &+ 2) >> 2 }
            for y in 0..<4 { for x in 0..<4 { put(x, y, dc) } }
        }
    }
}
