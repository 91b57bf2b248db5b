/// Intra 8x8 prediction (8.3.2.2): the reference samples filtered (8.3.2.2.1), then the nine modes.
/// Mode availability is that of Intra4x4 (``IntraPrediction/isAvailable4x4(mode:_:)``).
extension IntraPrediction {
    /// Loads and filters the edge of an 8x8 block into e (25 values): e[9 + x] = p′[x, −1]
    /// (x = −1...15), e[7 − y] = p′[−1, y] (y = −1...7); the top-right samples are p[7, −1] when
    /// unavailable (8.3.2.2).
    static func loadEdge8x8(at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours, into e: UnsafeMutablePointer<Int32>) {
        @inline(__always) func top(_ x: Int) -> Int32 { Int32(p[-stride &+ x]) }
        @inline(__always) func left(_ y: Int) -> Int32 { Int32(p[y &* stride &- 1]) }
        // (a + 2b + c + 2) >> 2 lane-wise: with the sample before the first p[−1, −1] (or the first again) and
        // the one past the last the last again, every equation of 8.3.2.2.1 for a row or column
        @inline(__always) func filtered(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>, _ c: SIMD8<Int32>) -> SIMD8<Int32> { (a &+ 2 &* b &+ c &+ 2) &>> 2 }
        @inline(__always) func store(_ v: SIMD8<Int32>, at i: Int) { UnsafeMutableRawPointer(e + i).storeBytes(of: v, as: SIMD8<Int32>.self) }
        let corner = n.topLeft ? Int32(p[-stride - 1]) : 0
        if n.top {
            let t = SIMD8(top(0), top(1), top(2), top(3), top(4), top(5), top(6), top(7))  // p[x, -1], x = 0...7
            let r = n.topRight ? SIMD8(top(8), top(9), top(10), top(11), top(12), top(13), top(14), top(15)) : SIMD8(repeating: t[7])  // x = 8...15
            let before = n.topLeft ? corner : t[0]
            store(filtered(SIMD8(before, t[0], t[1], t[2], t[3], t[4], t[5], t[6]), t, SIMD8(t[1], t[2], t[3], t[4], t[5], t[6], t[7], r[0])), at: 9)
            store(filtered(SIMD8(t[7], r[0], r[1], r[2], r[3], r[4], r[5], r[6]), r, SIMD8(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[7])), at: 17)
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
            let l = SIMD8(left(0), left(1), left(2), left(3), left(4), left(5), left(6), left(7))  // p[-1, y], y = 0...7
            let before = n.topLeft ? corner : l[0]
            let f = filtered(SIMD8(before, l[0], l[1], l[2], l[3], l[4], l[5], l[6]), l, SIMD8(l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[7]))
            store(SIMD8(f[7], f[6], f[5], f[4], f[3], f[2], f[1], f[0]), at: 0)  // e[7 − y]
        }
    }

    /// The Intra 8x8 DC prediction value (8.3.2.2.4) from the edge of ``loadEdge8x8(at:stride:_:into:)``.
    @inline(__always) static func dc8x8(edge e: UnsafePointer<Int32>, _ n: Neighbours) -> Int32 {
        var sum: Int32 = 0
        if n.top { for k in 0..<8 { sum += e[9 &+ k] } }
        if n.left { for k in 0..<8 { sum += e[7 &- k] } }
        return n.top && n.left ? (sum &+ 8) >> 4 : (n.top || n.left ? (sum &+ 4) >> 3 : 128)
    }

    /// The filtered edge's 3-tap and 2-tap lines, once per block for all the directional modes, as bytes:
    /// F(i) = f3(e[i − 1], e[i], e[i + 1]) at lines[i] (i = 1...23; lines[24] (p′[14, −1] + 3p′[15, −1] + 2) >> 2,
    /// 8.3.2.2.5) and A(i) = f2(e[i], e[i + 1]) at
    /// lines[32 + i] (i = 0...19), e the edge of ``loadEdge8x8(at:stride:_:into:)`` (reads e[0...24] only).
    static func filterEdge8x8(_ e: UnsafePointer<Int32>, into lines: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func load(_ i: Int) -> SIMD16<Int32> { UnsafeRawPointer(e + i).loadUnaligned(as: SIMD16<Int32>.self) }
        @inline(__always) func store(_ v: SIMD16<Int32>, at i: Int) {
            UnsafeMutableRawPointer(lines + i).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: v), as: SIMD16<UInt8>.self)
        }
        @inline(__always) func filter(from start: Int) {  // F(start + 1...start + 16), A(start...start + 15)
            let x = load(start), y = load(start &+ 1), z = load(start &+ 2)
            store((x &+ 2 &* y &+ z &+ 2) &>> 2, at: start &+ 1)
            store((x &+ y &+ 1) &>> 1, at: 32 &+ start)
        }
        filter(from: 0); filter(from: 7)  // e[0...17], then e[7...24]
        lines[24] = UInt8(truncatingIfNeeded: (e[23] &+ 3 &* e[24] &+ 2) >> 2)  // diagonal down left's last sample, past F(23)
    }

    /// ``predict8x8(mode:edge:lines:_:dst:dstStride:)`` with the edge's lines built here.
    static func predict8x8(mode: Int, edge e: UnsafePointer<Int32>, _ n: Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        withFilteredLines(of: e, capacity: 64, filter: filterEdge8x8) { lines in
            predict8x8(mode: mode, edge: e, lines: lines, n, dst: dst, dstStride: dstStride)
        }
    }

    /// The prediction of `mode` (0...8, 8.3.2.2.2 to 8.3.2.2.10) from the filtered edge and its lines
    /// (``filterEdge8x8(_:into:)``).
    static func predict8x8(mode: Int, edge e: UnsafePointer<Int32>, lines: UnsafePointer<UInt8>, _ n: Neighbours,
                           dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func L(_ y: Int) -> Int32 { e[7 &- y] }  // p′[-1, y], y ≥ -1
        @inline(__always) func store(_ y: Int, _ word: UInt64) { UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: word, as: UInt64.self) }
        @inline(__always) func repeated(_ v: Int32) -> UInt64 { UInt64(truncatingIfNeeded: v) & 255 &* 0x0101_0101_0101_0101 }
        if mode == 2 {
            let dc = dc8x8(edge: e, n)
            for y in 0..<8 { store(y, repeated(dc)) }
            return
        }
        if mode == 1 {
            for y in 0..<8 { store(y, repeated(L(y))) }
            return
        }
        // Every other mode: each row is 8 consecutive bytes of a line of the edge's 3-tap filter F(i), its 2-tap
        // average A(i) (``filterEdge8x8(_:into:)``; p′[x, −1] = e[9 + x], p′[−1, y] = e[7 − y]) or the two interleaved
        // (vertical right, horizontal down and up: the values the mode reads, once, as bytes), then a word per row.
        @inline(__always) func line(_ i: Int) -> UInt64 { UnsafeRawPointer(lines + i).loadUnaligned(as: UInt64.self) }
        switch mode {
        case 3:  // diagonal down left (8.3.2.2.5): F(10 + x + y), the last sample lines[24]
            for y in 0..<8 { store(y, line(10 &+ y)) }
            return
        case 4:  // diagonal down right (8.3.2.2.6): F(8 + x − y)
            for y in 0..<8 { store(y, line(8 &- y)) }
            return
        case 7:  // vertical left (8.3.2.2.9): A(9 + x + y / 2) in even rows, F(10 + x + y / 2) in odd ones
            for y in 0..<8 { store(y, line(y & 1 == 0 ? 41 &+ y >> 1 : 10 &+ y >> 1)) }
            return
        default: break
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            guard let b = buffer.baseAddress else { return }
            // zeros first, 16 bytes a store: the bytes a row reads past its values are masked or overwritten
            for k in 0..<4 { UnsafeMutableRawPointer(b + 16 &* k).storeBytes(of: SIMD16<UInt8>.zero, as: SIMD16<UInt8>.self) }
            @inline(__always) func F(_ i: Int) -> UInt8 { lines[i] }
            @inline(__always) func A(_ i: Int) -> UInt8 { lines[32 &+ i] }
            @inline(__always) func load(_ i: Int) -> UInt64 { UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) }
            switch mode {
            case 0:  // vertical (8.3.2.2.2): p′[x, −1]
                for i in 9...16 { b[i] = UInt8(truncatingIfNeeded: e[i]) }
                for y in 0..<8 { store(y, load(9)) }
            case 5:  // vertical right (8.3.2.2.7): from x = y / 2 on, A (even rows) or F (odd rows) of 8 + x − y / 2; before it F(9 − y + 2x)
                for i in 2...15 { b[i] = F(i) }
                for i in 5...15 { b[32 &+ i] = A(i) }
                for y in 0..<8 {
                    let half = y >> 1
                    var word = load((y & 1 == 0 ? 40 : 8) &- half)
                    for x in 0..<half {
                        let shift = UInt64(8 &* x)
                        word = (word & ~(255 << shift)) | UInt64(b[9 &- y &+ 2 &* x]) << shift
                    }
                    store(y, word)
                }
            case 6:  // horizontal down (8.3.2.2.8): H[14 − 2y + x] up to x = 2y + 1, H[2m] = A(m), H[2m + 1] = F(m + 1); after it F(7 + x − 2y)
                for m in 0...7 { b[2 &* m] = A(m); b[2 &* m &+ 1] = F(m &+ 1) }
                for i in 9...14 { b[32 &+ i] = F(i) }
                for y in 0..<8 {
                    let interleaved = load(14 &- 2 &* y), filtered = load(39 &- 2 &* y)
                    let split = 2 &* y &+ 2  // bytes from here on: F
                    let low: UInt64 = split >= 8 ? ~0 : (1 << UInt64(8 &* split)) &- 1
                    store(y, (interleaved & low) | (filtered & ~low))
                }
            default:  // 8, horizontal up (8.3.2.2.10): U[2y + x], U[2k] = A(6 − k), U[2k + 1] = F(6 − k); then the corner value, then p′[−1, 7]
                for k in 0...6 { b[2 &* k] = A(6 &- k) }
                for k in 0...5 { b[2 &* k &+ 1] = F(6 &- k) }
                b[13] = UInt8(truncatingIfNeeded: (L(6) &+ 3 &* L(7) &+ 2) >> 2)
                for i in 14...21 { b[i] = UInt8(truncatingIfNeeded: L(7)) }
                for y in 0..<8 { store(y, load(2 &* y)) }
            }
        }
    }
}
