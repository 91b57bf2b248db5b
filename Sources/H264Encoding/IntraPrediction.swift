/// Intra prediction from the reconstructed, not yet deblocked, neighbours (8.3). `at` points at the
/// block's top-left sample in the reconstruction; the prediction goes to `dst` (stride `dstStride`).
enum IntraPrediction {
    /// Which neighbours may be used (6.4.x availability, constrained_intra_pred already applied).
    struct Neighbours {
        var left = false, top = false, topRight = false, topLeft = false
    }

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
            // a row at a time in 16 lanes (chroma: the first 8 stored)
            let center = Int32(half &- 1)
            let ramp = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) &- center
            let rowStart = b &* ramp &+ (a + 16)
            for y in 0..<size {
                let v = (rowStart &+ c &* (Int32(y) &- center)) &>> 5
                let positive = v & ~(v &>> 31)
                let over = (255 &- positive) &>> 31
                let row = SIMD16<UInt8>(truncatingIfNeeded: (positive & ~over) | (255 & over))
                if size == 16 {
                    UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: row, as: SIMD16<UInt8>.self)
                } else {
                    UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: row.lowHalf, as: SIMD8<UInt8>.self)
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
    /// (x = 0...7, the top-right substituted by p[3, -1] when unavailable, 8.3.1.2); the unavailable samples 0 (e has
    /// 16 values: the encoder costs every mode, then keeps an available one).
    static func loadEdge4x4(at p: UnsafePointer<UInt8>, stride: Int, _ n: Neighbours, into e: UnsafeMutablePointer<Int32>) {
        UnsafeMutableRawPointer(e).storeBytes(of: SIMD16<Int32>.zero, as: SIMD16<Int32>.self)
        if n.left { for y in 0..<4 { e[3 - y] = Int32(p[y * stride - 1]) } }
        if n.topLeft { e[4] = Int32(p[-stride - 1]) }
        if n.top {
            for x in 0..<4 { e[5 + x] = Int32(p[-stride + x]) }
            if n.topRight { for x in 4..<8 { e[5 + x] = Int32(p[-stride + x]) } } else { for x in 4..<8 { e[5 + x] = e[8] } }
        }
    }

    /// The edge's 3-tap and 2-tap filtered lines, once per block for all the directional modes, as bytes:
    /// F(i) = (e[i − 1] + 2e[i] + e[i + 1] + 2) >> 2 at lines[i] (i = 1...11; lines[12] the diagonal down left
    /// corner (p[6, −1] + 3p[7, −1] + 2) >> 2, 8.3.1.2.4) and A(i) = (e[i] + e[i + 1] + 1) >> 1 at lines[16 + i]
    /// (i = 0...9), with the edge e of ``loadEdge4x4(at:stride:_:into:)``: e[0...12] = p[-1, 3...-1] then
    /// p[0...7, -1], so that every directional mode predicts each sample as one of these values (the equations of
    /// 8.3.1.2.4-8.3.1.2.9 with p[x, −1] = e[5 + x], p[−1, y] = e[3 − y]). Wrapping arithmetic here and in the
    /// predictions: sums of a few samples cannot overflow.
    static func filterEdge4x4(_ e: UnsafePointer<Int32>, into lines: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeRawPointer(e)  // e[0...12], then e[12] repeated: the edge's values only are read
        let x = SIMD16(lowHalf: raw.loadUnaligned(as: SIMD8<Int32>.self),
                       highHalf: SIMD8(lowHalf: raw.loadUnaligned(fromByteOffset: 32, as: SIMD4<Int32>.self), highHalf: SIMD4(repeating: e[12])))
        let y = SIMD16(x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15], x[15])
        let z = SIMD16(x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15], x[15], x[15])
        let f = (x &+ 2 &* y &+ z &+ 2) &>> 2  // lane i: F(i + 1)
        let a = (x &+ y &+ 1) &>> 1  // lane i: A(i)
        // F first: its last lane, lines[16], is then A(0)
        UnsafeMutableRawPointer(lines + 1).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: f), as: SIMD16<UInt8>.self)
        UnsafeMutableRawPointer(lines + 16).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: a), as: SIMD16<UInt8>.self)
        lines[12] = UInt8(truncatingIfNeeded: (e[11] &+ 3 &* e[12] &+ 2) >> 2)
    }

    /// ``predict4x4(mode:edge:lines:_:dst:dstStride:)`` with the edge's lines built here.
    static func predict4x4(mode: Int, edge e: UnsafePointer<Int32>, _ n: Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        withFilteredLines(of: e, capacity: 32, filter: filterEdge4x4) { lines in
            predict4x4(mode: mode, edge: e, lines: lines, n, dst: dst, dstStride: dstStride)
        }
    }

    /// Runs `body` on the lines `filter` makes of the edge `e` (``filterEdge4x4(_:into:)``,
    /// ``filterEdge8x8(_:into:)``) in `capacity` bytes of temporary memory: for callers that predict one block
    /// (the encoder keeps the lines in its scratch and filters once for every mode).
    static func withFilteredLines(of e: UnsafePointer<Int32>, capacity: Int, filter: (UnsafePointer<Int32>, UnsafeMutablePointer<UInt8>) -> Void,
                                  _ body: (UnsafePointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let lines = buffer.baseAddress else { return }
            filter(e, lines)
            body(lines)
        }
    }

    /// The prediction of `mode` (0...8, 8.3.1.2.1-8.3.1.2.9) from the edge and its filtered lines
    /// (``filterEdge4x4(_:into:)``): each row four of the lines' bytes, stored as one 32-bit word. Inlined: a
    /// constant `mode` leaves one case (``IntraDirectionalSATD4x4/predict(edge:lines:_:into:)``).
    @inline(__always) static func predict4x4(mode: Int, edge e: UnsafePointer<Int32>, lines: UnsafePointer<UInt8>, _ n: Neighbours,
                           dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func row(_ y: Int, _ word: UInt32) { UnsafeMutableRawPointer(dst + y &* dstStride).storeBytes(of: word, as: UInt32.self) }
        @inline(__always) func rows(_ r0: UInt32, _ r1: UInt32, _ r2: UInt32, _ r3: UInt32) { row(0, r0); row(1, r1); row(2, r2); row(3, r3) }
        @inline(__always) func F(_ i: Int) -> UInt32 { UnsafeRawPointer(lines + i).loadUnaligned(as: UInt32.self) }  // F(i...i + 3)
        @inline(__always) func A(_ i: Int) -> UInt32 { UnsafeRawPointer(lines + (16 &+ i)).loadUnaligned(as: UInt32.self) }  // A(i...i + 3)
        @inline(__always) func f(_ i: Int) -> UInt32 { UInt32(lines[i]) }
        @inline(__always) func a(_ i: Int) -> UInt32 { UInt32(lines[16 &+ i]) }
        @inline(__always) func repeated(_ v: Int32) -> UInt32 { UInt32(truncatingIfNeeded: v) &* 0x0101_0101 }
        switch mode {
        case 0:  // vertical (8.3.1.2.1)
            let t = UInt32(truncatingIfNeeded: e[5]) | UInt32(truncatingIfNeeded: e[6]) << 8 | UInt32(truncatingIfNeeded: e[7]) << 16
                | UInt32(truncatingIfNeeded: e[8]) << 24
            rows(t, t, t, t)
        case 1:  // horizontal (8.3.1.2.2)
            rows(repeated(e[3]), repeated(e[2]), repeated(e[1]), repeated(e[0]))
        case 3:  // diagonal down left (8.3.1.2.4): F(6 + x + y), the corner last
            rows(F(6), F(7), F(8), F(9))
        case 4:  // diagonal down right (8.3.1.2.5): F(4 + x − y)
            rows(F(4), F(3), F(2), F(1))
        case 5:  // vertical right (8.3.1.2.6): A(4...7), F(4...7), (F(3), A(4...6)), (F(2), F(4...6))
            rows(A(4), F(4), A(3) & 0xFFFF_FF00 | f(3), F(3) & 0xFFFF_FF00 | f(2))
        case 6:  // horizontal down (8.3.1.2.7): (A(3), F(4...6)), then A(2 − k), F(3 − k), A(3 − k), F(4 − k) interleaved
            @inline(__always) func spread(_ v: UInt32) -> UInt64 {  // bytes 0...3 to bytes 0, 2, 4, 6
                var s = UInt64(v)
                s = (s | s << 16) & 0x0000_FFFF_0000_FFFF
                return (s | s << 8) & 0x00FF_00FF_00FF_00FF
            }
            let z = spread(A(0)) | spread(F(1)) << 8  // A(0), F(1), A(1), F(2), A(2), F(3), A(3), F(4)
            rows(F(3) & 0xFFFF_FF00 | a(3), UInt32(truncatingIfNeeded: z >> 32), UInt32(truncatingIfNeeded: z >> 16), UInt32(truncatingIfNeeded: z))
        case 7:  // vertical left (8.3.1.2.8)
            rows(A(5), F(6), A(6), F(7))
        case 8:  // horizontal up (8.3.1.2.9): p[−1, 3] past the edge
            let l3 = UInt32(truncatingIfNeeded: e[0]), g = UInt32(truncatingIfNeeded: (e[1] &+ 3 &* e[0] &+ 2) >> 2)
            rows(a(2) | f(2) << 8 | a(1) << 16 | f(1) << 24, a(1) | f(1) << 8 | a(0) << 16 | g << 24, a(0) | g << 8 | l3 &* 0x0101_0000,
                 l3 &* 0x0101_0101)
        default:  // DC (8.3.1.2.3)
            let dc = repeated(dc4x4(edge: e, n))
            rows(dc, dc, dc, dc)
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
