/// Intra 8x8 prediction (8.3.2.2): the reference samples filtered (8.3.2.2.1), then the nine modes.
/// Mode availability is that of Intra4x4 (``IntraPrediction/isAvailable4x4(mode:_:)``).
extension IntraPrediction {
    /// Loads and filters the edge of an 8x8 block into e (25 values): e[9 + x] = p′[x, −1]
    /// (x = −1...15), e[7 − y] = p′[−1, y] (y = −1...7); the top-right samples are p[7, −1] when
    /// unavailable (8.3.2.2).
    static func loadEdge8x8(at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours, into e: UnsafeMutablePointer<Int32>) {
        @inline(__always) func top(_ x: Int) -> Int32 { Int32(p[-stride + x]) }
        @inline(__always) func left(_ y: Int) -> Int32 { Int32(p[y * stride - 1]) }
        let corner = n.topLeft ? Int32(p[-stride - 1]) : 0
        if n.top {
            var raw = SIMD16<Int32>.zero  // p[x, -1], x = 0...15
            for x in 0..<8 { raw[x] = top(x) }
            for x in 8..<16 { raw[x] = n.topRight ? top(x) : raw[7] }
            e[9] = n.topLeft ? (corner + 2 * raw[0] + raw[1] + 2) >> 2 : (3 * raw[0] + raw[1] + 2) >> 2
            for x in 1..<15 { e[9 + x] = (raw[x - 1] + 2 * raw[x] + raw[x + 1] + 2) >> 2 }
            e[24] = (raw[14] + 3 * raw[15] + 2) >> 2
        }
        if n.topLeft {
            if n.top && n.left {
                e[8] = (top(0) + 2 * corner + left(0) + 2) >> 2
            } else if n.top {
                e[8] = (3 * corner + top(0) + 2) >> 2
            } else if n.left {
                e[8] = (3 * corner + left(0) + 2) >> 2
            } else {
                e[8] = corner
            }
        }
        if n.left {
            e[7] = n.topLeft ? (corner + 2 * left(0) + left(1) + 2) >> 2 : (3 * left(0) + left(1) + 2) >> 2
            for y in 1..<7 { e[7 - y] = (left(y - 1) + 2 * left(y) + left(y + 1) + 2) >> 2 }
            e[0] = (left(6) + 3 * left(7) + 2) >> 2
        }
    }

    /// The prediction of `mode` (0...8, 8.3.2.2.2 to 8.3.2.2.10) from the filtered edge.
    static func predict8x8(mode: Int, edge e: UnsafePointer<Int32>, _ n: Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func T(_ x: Int) -> Int32 { e[9 &+ x] }  // p′[x, -1], x ≥ -1
        @inline(__always) func L(_ y: Int) -> Int32 { e[7 &- y] }  // p′[-1, y], y ≥ -1
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: Int32) { dst[y &* dstStride &+ x] = UInt8(truncatingIfNeeded: v) }
        @inline(__always) func f3(_ a: Int32, _ b: Int32, _ c: Int32) -> Int32 { (a &+ 2 &* b &+ c &+ 2) >> 2 }
        @inline(__always) func f2(_ a: Int32, _ b: Int32) -> Int32 { (a &+ b &+ 1) >> 1 }
        if mode == 2 {
            var sum: Int32 = 0
            if n.top { for k in 0..<8 { sum += T(k) } }
            if n.left { for k in 0..<8 { sum += L(k) } }
            let dc = n.top && n.left ? (sum &+ 8) >> 4 : (n.top || n.left ? (sum &+ 4) >> 3 : 128)
            for y in 0..<8 { (dst + y &* dstStride).update(repeating: UInt8(truncatingIfNeeded: dc), count: 8) }
            return
        }
        // one loop per mode: the mode is decided once, not per sample
        @inline(__always) func fill(_ f: (Int, Int) -> Int32) {
            for y in 0..<8 { for x in 0..<8 { put(x, y, f(x, y)) } }
        }
        switch mode {
        case 0: fill { x, _ in T(x) }
        case 1: fill { _, y in L(y) }
        case 3: fill { x, y in x == 7 && y == 7 ? (T(14) &+ 3 &* T(15) &+ 2) >> 2 : f3(T(x &+ y), T(x &+ y &+ 1), T(x &+ y &+ 2)) }
        case 4:
            fill { x, y in
                if x > y { return f3(T(x &- y &- 2), T(x &- y &- 1), T(x &- y)) }
                if x < y { return f3(L(y &- x &- 2), L(y &- x &- 1), L(y &- x)) }
                return f3(T(0), T(-1), L(0))
            }
        case 5:
            fill { x, y in
                let z = 2 &* x &- y
                if z >= 0 && z & 1 == 0 { return f2(T(x &- (y >> 1) &- 1), T(x &- (y >> 1))) }
                if z >= 0 { return f3(T(x &- (y >> 1) &- 2), T(x &- (y >> 1) &- 1), T(x &- (y >> 1))) }
                if z == -1 { return f3(L(0), L(-1), T(0)) }
                return f3(L(y &- 2 &* x &- 1), L(y &- 2 &* x &- 2), L(y &- 2 &* x &- 3))
            }
        case 6:
            fill { x, y in
                let z = 2 &* y &- x
                if z >= 0 && z & 1 == 0 { return f2(L(y &- (x >> 1) &- 1), L(y &- (x >> 1))) }
                if z >= 0 { return f3(L(y &- (x >> 1) &- 2), L(y &- (x >> 1) &- 1), L(y &- (x >> 1))) }
                if z == -1 { return f3(L(0), L(-1), T(0)) }
                return f3(T(x &- 2 &* y &- 1), T(x &- 2 &* y &- 2), T(x &- 2 &* y &- 3))
            }
        case 7:
            fill { x, y in
                y & 1 == 0 ? f2(T(x &+ (y >> 1)), T(x &+ (y >> 1) &+ 1)) : f3(T(x &+ (y >> 1)), T(x &+ (y >> 1) &+ 1), T(x &+ (y >> 1) &+ 2))
            }
        default:  // 8
            fill { x, y in
                let z = x &+ 2 &* y
                if z > 13 { return L(7) }
                if z == 13 { return (L(6) &+ 3 &* L(7) &+ 2) >> 2 }
                if z & 1 == 0 { return f2(L(y &+ (x >> 1)), L(y &+ (x >> 1) &+ 1)) }
                return f3(L(y &+ (x >> 1)), L(y &+ (x >> 1) &+ 1), L(y &+ (x >> 1) &+ 2))
            }
        }
    }
}
