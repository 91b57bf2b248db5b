/// A plane seen through a pointer at its (0, 0) sample; rows `stride` apart, padding around it.
struct PlanePointer {
    var base: UnsafeMutablePointer<UInt8>
    var stride: Int
    /// Wrapping arithmetic: coordinates stay within the padded plane, and the hot loops then carry no overflow checks.
    @inline(__always) func at(_ x: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> { base + (y &* stride &+ x) }
}

/// A reference picture prepared for motion compensation: the full-sample planes with replicated
/// borders and the three luma half-sample planes b, h, j of 8.4.2.2.1 (each at the integer position
/// left of / above the half position).
struct ReferencePlanes {
    var full: PlanePointer
    var halfH: PlanePointer
    var halfV: PlanePointer
    var halfHV: PlanePointer
    var cb: PlanePointer
    var cr: PlanePointer
    var width: Int, height: Int, padding: Int
    /// Identifies the picture (not the list position) for the deblocking's bS (8.7.2.1).
    var identity: Int32
}

/// Columns [from, to) in 16-wide steps, with their index; the last step is moved back to end at the
/// limit (overlap is harmless). A loop body, not a closure, so the compiler keeps it inline.
struct ColumnSteps: Sequence, IteratorProtocol {
    private var x: Int, k = 0
    private let to: Int
    init(_ from: Int, _ to: Int) { x = from; self.to = to }
    mutating func next() -> (x: Int, k: Int)? {
        guard x < to else { return nil }
        defer { x &+= 16; k &+= 1 }
        return (Swift.min(x, to - 16), k)
    }
}

/// Luma quarter-sample and chroma eighth-sample interpolation (8.4.2.2), default weighted bi-prediction (8.4.2.3.1).
enum InterPrediction {
    @inline(__always) static func clip(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v, 0), 255)) }

    @inline(__always) static func tap6(_ p: UnsafePointer<UInt8>, _ step: Int) -> Int32 {
        Int32(p[-2 * step]) + Int32(p[3 * step]) - 5 * (Int32(p[-step]) + Int32(p[2 * step])) + 20 * (Int32(p[0]) + Int32(p[step]))
    }

    /// 16 samples as their even and odd columns (8 little-endian 16-bit lanes split by masks): no
    /// widening conversion, which the generic SIMD init does not always inline.
    @inline(__always) static func split(_ p: UnsafePointer<UInt8>) -> Split {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int16>.self)
        let low = SIMD8<Int16>(repeating: 0xFF)
        return (v & low, (v &>> 8) & low)
    }

    /// 16 samples as their even and odd columns (``split(_:)``).
    typealias Split = (even: SIMD8<Int16>, odd: SIMD8<Int16>)

    /// The 6-tap filter on 16 samples at once (E − 5F + 20G + 20H − 5I + J), unrounded (fits Int16), as even and
    /// odd columns, from the six rows or columns E...J split.
    @inline(__always) static func tap6x16(_ e: Split, _ f: Split, _ g: Split, _ h: Split, _ i: Split, _ j: Split) -> Split {
        ((e.even &+ j.even) &- 5 &* (f.even &+ i.even) &+ 20 &* (g.even &+ h.even),
         (e.odd &+ j.odd) &- 5 &* (f.odd &+ i.odd) &+ 20 &* (g.odd &+ h.odd))
    }

    /// One row of b (8.4.2.2.1): ``tap6x16(_:_:_:_:_:_:)`` along the row over the columns `columns`, 16 at a time
    /// (``ColumnSteps``), rounded into `rounded` and unrounded into `b1` (per step its 8 even then 8 odd columns).
    /// The samples at odd offsets are the other lanes of those at even ones, so four loads two columns apart serve
    /// the six taps. `step` is 1, passed to a function that is not inlined so that it is no constant to the
    /// optimiser: with a step of 1 known, LLVM assembles the overlapping loads lane by lane (pextrw, pinsrw; 73
    /// instructions a step against 54).
    @inline(never) static func filterRowB(_ src: UnsafePointer<UInt8>, step: Int, columns: Range<Int>,
                                          rounded: UnsafeMutablePointer<UInt8>, b1: UnsafeMutablePointer<Int16>) {
        for (x, k) in ColumnSteps(columns.lowerBound, columns.upperBound) {
            let p = src + x
            let m2 = split(p - 2 &* step), c0 = split(p), p2 = split(p + 2 &* step), p4 = split(p + 4 &* step).even
            let v = tap6x16((m2.even, m2.odd), (m2.odd, c0.even), (c0.even, c0.odd), (c0.odd, p2.even), (p2.even, p2.odd), (p2.odd, p4))
            UnsafeMutableRawPointer(b1 + 16 &* k).storeBytes(of: v.even, as: SIMD8<Int16>.self)
            UnsafeMutableRawPointer(b1 + (16 &* k &+ 8)).storeBytes(of: v.odd, as: SIMD8<Int16>.self)
            storeRounded(v, rounded + x)
        }
    }

    /// Stores Clip1((v + 16) >> 5) of even and odd columns as 16 interleaved samples.
    @inline(__always) static func storeRounded(_ v: (even: SIMD8<Int16>, odd: SIMD8<Int16>), _ dst: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func clip(_ x: SIMD8<Int16>) -> SIMD8<Int16> { clipToByte((x &+ 16) &>> 5) }
        UnsafeMutableRawPointer(dst).storeBytes(of: clip(v.even) | (clip(v.odd) &<< 8), as: SIMD8<Int16>.self)
    }

    /// Clip1 of 8.4.2.2.1 per lane: the signed 16-bit minimum and maximum (pmaxsw, pminsw in SSE2).
    @inline(__always) static func clipToByte(_ x: SIMD8<Int16>) -> SIMD8<Int16> {
        pointwiseMin(pointwiseMax(x, .zero), SIMD8(repeating: 255))
    }

    /// Fills b, h and j over the padded area where their 6-tap windows fit, 16 samples at a time.
    /// `scratch` holds (stride · rows) Int16 for the unrounded b1 values: per 16-column step its 8 even
    /// then 8 odd columns, steps 16 apart (the steps of a row fit its stride, a multiple of 16 less 5).
    ///
    /// The padding rows repeat the first or last row (``PaddedPlane/replicateEdges()``), and so do their b
    /// rows; an h or j row whose six taps all lie there is the full-sample row (32·G) or b row (32·b1)
    /// rounded back: those rows are copied, not filtered.
    static func buildHalfPel(_ r: ReferencePlanes, scratch: UnsafeMutablePointer<Int16>) {
        let pad = r.padding, s = r.full.stride
        let x0 = -pad + 2, x1 = r.width + pad - 3  // b and j columns [x0, x1)
        let y0 = -pad, y1 = r.height + pad
        let pitch = 16 * ((x1 - x0 + 15) / 16)  // b1 scratch row
        // Rows filtered: b (and b1) where the h and j rows filtered below read them; h and j where their taps
        // reach both a padding row's value and another.
        let filteredB = max(y0, -4)..<min(y1, r.height + 4), filteredHJ = max(y0 + 2, -2)..<min(y1 - 3, r.height + 1)
        for y in filteredB {
            filterRowB(r.full.at(0, y), step: 1, columns: x0..<x1, rounded: r.halfH.at(0, y), b1: scratch + (y - y0) * pitch)
        }
        for y in y0..<y1 where !filteredB.contains(y) {
            let edge = y < 0 ? 0 : r.height - 1
            r.halfH.at(x0, y).update(from: r.halfH.at(x0, edge), count: x1 - x0)
        }
        for y in (y0 + 2)..<(y1 - 3) where !filteredHJ.contains(y) {
            let edge = y < 0 ? 0 : r.height - 1
            r.halfV.at(-pad, y).update(from: r.full.at(-pad, edge), count: r.width + 2 * pad)
            r.halfHV.at(x0, y).update(from: r.halfH.at(x0, edge), count: x1 - x0)
        }
        // h down 16-column strips: each full-sample row is split once for the six h rows it serves
        for (x, _) in ColumnSteps(-pad, r.width + pad) {
            var src = UnsafePointer(r.full.at(x, filteredHJ.lowerBound)), hv = r.halfV.at(x, filteredHJ.lowerBound)
            var e = split(src - 2 &* s), f = split(src - s), g = split(src), h = split(src + s), i = split(src + 2 &* s)
            var rows = filteredHJ.count
            while rows >= 2 {  // two rows a turn: half the window's moves
                let j = split(src + 3 &* s), k = split(src + 4 &* s)
                storeRounded(tap6x16(e, f, g, h, i, j), hv)
                storeRounded(tap6x16(f, g, h, i, j, k), hv + s)
                (e, f, g, h, i) = (g, h, i, j, k)
                src += 2 &* s
                hv += 2 &* s
                rows &-= 2
            }
            if rows == 1 { storeRounded(tap6x16(e, f, g, h, i, split(src + 3 &* s)), hv) }
        }
        for y in filteredHJ {
            let jj = r.halfHV.at(0, y)
            let b1 = UnsafePointer(scratch + (y - y0) * pitch)
            for (x, k) in ColumnSteps(x0, x1) {
                @inline(__always) func row(_ d: Int, _ odd: Int) -> SIMD8<Int16> {
                    UnsafeRawPointer(b1 + (16 &* k &+ 8 &* odd &+ d &* pitch)).loadUnaligned(as: SIMD8<Int16>.self)
                }
                @inline(__always) func j(_ odd: Int) -> SIMD8<Int16> {
                    jFromB1(row(-2, odd), row(-1, odd), row(0, odd), row(1, odd), row(2, odd), row(3, odd))
                }
                UnsafeMutableRawPointer(jj + x).storeBytes(of: j(0) | (j(1) &<< 8), as: SIMD8<Int16>.self)
            }
        }
    }

    /// j of 8.4.2.2.1, Clip1((E − 5F + 20G + 20H − 5I + J + 512) >> 10) over six b1 values (each in
    /// −2550...10710), exact in Int16: with a = E + J, b = F + I, c = G + H and T the tap sum,
    /// ⌊T / 16⌋ = ⌊(⌊(a − b) / 4⌋ + (c − b)) / 4⌋ + c (nested floors by positive integers), the inner
    /// quarter taken as two halvings, ⌊(x + d) / 2⌋ = (x & d) + ((x ^ d) >> 1) (as x + d = 2·(x & d) + (x ^ d)), so
    /// that no sum leaves ±16575; then (T + 512) >> 10 = (⌊T / 16⌋ + 32) >> 6, ⌊T / 16⌋ in −13388...29708.
    @inline(__always) static func jFromB1(_ e: SIMD8<Int16>, _ f: SIMD8<Int16>, _ g: SIMD8<Int16>, _ h: SIMD8<Int16>,
                                          _ i: SIMD8<Int16>, _ jj: SIMD8<Int16>) -> SIMD8<Int16> {
        let a = e &+ jj, b = f &+ i, c = g &+ h
        let x = (a &- b) &>> 2, d = c &- b
        let half = (x & d) &+ ((x ^ d) &>> 1)
        return clipToByte((((half &>> 1) &+ c) &+ 32) &>> 6)
    }

    /// Whether a luma block at integer position (x, y) of size w x h can use the half-sample planes.
    @inline(__always) static func fitsFastPath(_ r: ReferencePlanes, x: Int, y: Int, w: Int, h: Int) -> Bool {
        x >= 3 &- r.padding && y >= 3 &- r.padding && x &+ w &+ 5 <= r.width &+ r.padding && y &+ h &+ 5 <= r.height &+ r.padding
    }

    /// The luma prediction of a w x h block whose top-left sample is at quarter position (4x + fx, 4y + fy).
    static func predictLuma(_ r: ReferencePlanes, x: Int, y: Int, fx: Int, fy: Int, w: Int, h: Int,
                            dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        guard fitsFastPath(r, x: x, y: y, w: w, h: h) else {
            predictLumaClamped(r, x: x, y: y, fx: fx, fy: fy, w: w, h: h, dst: dst, dstStride: dstStride)
            return
        }
        let (a, b) = sources(r, x: x, y: y, fx: fx, fy: fy)
        if let b {
            if w == 16 {
                for row in 0..<h {
                    let va = UnsafeRawPointer(a + row &* r.full.stride).loadUnaligned(as: SIMD16<UInt8>.self)
                    let vb = UnsafeRawPointer(b + row &* r.full.stride).loadUnaligned(as: SIMD16<UInt8>.self)
                    UnsafeMutableRawPointer(dst + row &* dstStride).storeBytes(of: roundedAverage(va, vb), as: SIMD16<UInt8>.self)
                }
                return
            }
            for row in 0..<h {
                let pa = a + row &* r.full.stride, pb = b + row &* r.full.stride, d = dst + row &* dstStride
                for col in 0..<w { d[col] = UInt8((UInt16(pa[col]) &+ UInt16(pb[col]) &+ 1) >> 1) }
            }
        } else {
            for row in 0..<h {
                let pa = a + row &* r.full.stride, d = dst + row &* dstStride
                if w == 16 {
                    UnsafeMutableRawPointer(d).storeBytes(of: UnsafeRawPointer(pa).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
                } else {
                    d.update(from: pa, count: w)
                }
            }
        }
    }

    /// The one or two planes whose average is the sample at quarter offset (fx, fy) (Table 8-12).
    @inline(__always) static func sources(_ r: ReferencePlanes, x: Int, y: Int, fx: Int, fy: Int)
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>?) {
        let G = r.full.at(x, y), B = r.halfH.at(x, y), H = r.halfV.at(x, y), J = r.halfHV.at(x, y)
        let s = r.full.stride
        // One integer fx + 4 · fy (a jump table; a switch over the pair compares its cases one by one)
        switch fx | fy << 2 {
        case 0: return (G, nil)  // (0, 0)
        case 2: return (B, nil)  // (2, 0)
        case 8: return (H, nil)  // (0, 2)
        case 10: return (J, nil)  // (2, 2)
        case 1: return (G, B)  // (1, 0)
        case 3: return (G + 1, B)  // (3, 0)
        case 4: return (G, H)  // (0, 1)
        case 12: return (G + s, H)  // (0, 3)
        case 5: return (B, H)  // (1, 1)
        case 7: return (B, H + 1)  // (3, 1)
        case 13: return (H, B + s)  // (1, 3)
        case 15: return (H + 1, B + s)  // (3, 3)
        case 6: return (B, J)  // (2, 1)
        case 14: return (J, B + s)  // (2, 3)
        case 9: return (H, J)  // (1, 2)
        default: return (J, H + 1)  // 11: (3, 2)
        }
    }

    /// The same prediction for blocks reaching past the padding: samples at clamped coordinates (8.4.2.2.1).
    static func predictLumaClamped(_ r: ReferencePlanes, x: Int, y: Int, fx: Int, fy: Int, w: Int, h: Int,
                                   dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func G(_ gx: Int, _ gy: Int) -> Int32 {
            Int32(r.full.at(min(max(gx, 0), r.width - 1), min(max(gy, 0), r.height - 1)).pointee)
        }
        @inline(__always) func b1(_ gx: Int, _ gy: Int) -> Int32 {
            G(gx - 2, gy) - 5 * G(gx - 1, gy) + 20 * G(gx, gy) + 20 * G(gx + 1, gy) - 5 * G(gx + 2, gy) + G(gx + 3, gy)
        }
        @inline(__always) func h1(_ gx: Int, _ gy: Int) -> Int32 {
            G(gx, gy - 2) - 5 * G(gx, gy - 1) + 20 * G(gx, gy) + 20 * G(gx, gy + 1) - 5 * G(gx, gy + 2) + G(gx, gy + 3)
        }
        @inline(__always) func bS(_ gx: Int, _ gy: Int) -> Int32 { Int32(clip((b1(gx, gy) + 16) >> 5)) }
        @inline(__always) func hS(_ gx: Int, _ gy: Int) -> Int32 { Int32(clip((h1(gx, gy) + 16) >> 5)) }
        @inline(__always) func jS(_ gx: Int, _ gy: Int) -> Int32 {
            let v = b1(gx, gy - 2) - 5 * b1(gx, gy - 1) + 20 * b1(gx, gy) + 20 * b1(gx, gy + 1) - 5 * b1(gx, gy + 2) + b1(gx, gy + 3)
            return Int32(clip((v + 512) >> 10))
        }
        for row in 0..<h {
            for col in 0..<w {
                let gx = x + col, gy = y + row
                let v: Int32
                switch (fx, fy) {
                case (0, 0): v = G(gx, gy)
                case (2, 0): v = bS(gx, gy)
                case (0, 2): v = hS(gx, gy)
                case (2, 2): v = jS(gx, gy)
                case (1, 0): v = (G(gx, gy) + bS(gx, gy) + 1) >> 1
                case (3, 0): v = (G(gx + 1, gy) + bS(gx, gy) + 1) >> 1
                case (0, 1): v = (G(gx, gy) + hS(gx, gy) + 1) >> 1
                case (0, 3): v = (G(gx, gy + 1) + hS(gx, gy) + 1) >> 1
                case (1, 1): v = (bS(gx, gy) + hS(gx, gy) + 1) >> 1
                case (3, 1): v = (bS(gx, gy) + hS(gx + 1, gy) + 1) >> 1
                case (1, 3): v = (hS(gx, gy) + bS(gx, gy + 1) + 1) >> 1
                case (3, 3): v = (hS(gx + 1, gy) + bS(gx, gy + 1) + 1) >> 1
                case (2, 1): v = (bS(gx, gy) + jS(gx, gy) + 1) >> 1
                case (2, 3): v = (jS(gx, gy) + bS(gx, gy + 1) + 1) >> 1
                case (1, 2): v = (hS(gx, gy) + jS(gx, gy) + 1) >> 1
                default: v = (jS(gx, gy) + hS(gx + 1, gy) + 1) >> 1
                }
                dst[row * dstStride + col] = UInt8(v)
            }
        }
    }

    /// Chroma prediction of a w x h block at eighth position (8x + fx, 8y + fy) (8.4.2.2.2).
    static func predictChroma(_ plane: PlanePointer, width: Int, height: Int, padding: Int, x: Int, y: Int, fx: Int, fy: Int,
                              w: Int, h: Int, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        let wA = Int32((8 - fx) * (8 - fy)), wB = Int32(fx * (8 - fy)), wC = Int32((8 - fx) * fy), wD = Int32(fx * fy)
        if x >= -padding && y >= -padding && x + w + 1 <= width + padding && y + h + 1 <= height + padding {
            if w == 8 && fx == 0 && fy == 0 {  // (64 · A + 32) >> 6 = A: the samples themselves
                for row in 0..<h {
                    UnsafeMutableRawPointer(dst + row * dstStride).storeBytes(of: UnsafeRawPointer(plane.at(x, y + row)).loadUnaligned(as: UInt64.self),
                                                                           as: UInt64.self)
                }
                return
            }
            if w == 8 || w == 4 {  // 4 wide (8x16 partitions): the same lanes, half of them loaded and stored
                // The weights of 8.4.2.2.2 are products, (8 − xFracC)(8 − yFracC) and so on: the sum is (8 − yFracC)·R(row) +
                // yFracC·R(row + 1), R the row's (8 − xFracC)·A + xFracC·B (≤ 2040), each row's R computed once for the two
                // output rows it serves.
                let left = SIMD8<UInt16>(repeating: UInt16(8 - fx)), right = SIMD8<UInt16>(repeating: UInt16(fx))
                let upper = SIMD8<UInt16>(repeating: UInt16(8 - fy)), lower = SIMD8<UInt16>(repeating: UInt16(fy))
                @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
                    let bytes = w == 8 ? UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) : UInt64(UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
                    return SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(bytes, to: SIMD8<UInt8>.self))
                }
                @inline(__always) func horizontal(_ row: Int) -> SIMD8<UInt16> {
                    let p = UnsafePointer(plane.at(x, y &+ row))
                    return left &* load(p) &+ right &* load(p + 1)
                }
                // row −1 only loads R(0) (in the loop, where the widening is inlined; not always outside it)
                var above = SIMD8<UInt16>.zero
                for row in -1..<h {
                    let below = horizontal(row &+ 1)
                    defer { above = below }
                    guard row >= 0 else { continue }
                    let v = (upper &* above &+ lower &* below &+ 32) &>> 6
                    let out = unsafeBitCast(SIMD8<UInt8>(truncatingIfNeeded: v), to: UInt64.self), o = UnsafeMutableRawPointer(dst + row &* dstStride)
                    if w == 8 { o.storeBytes(of: out, as: UInt64.self) } else { o.storeBytes(of: UInt32(truncatingIfNeeded: out), as: UInt32.self) }
                }
                return
            }
            for row in 0..<h {
                let p = plane.at(x, y + row), q = p + plane.stride, d = dst + row * dstStride
                for col in 0..<w {
                    d[col] = UInt8((wA * Int32(p[col]) + wB * Int32(p[col + 1]) + wC * Int32(q[col]) + wD * Int32(q[col + 1]) + 32) >> 6)
                }
            }
            return
        }
        @inline(__always) func S(_ sx: Int, _ sy: Int) -> Int32 {
            Int32(plane.at(min(max(sx, 0), width - 1), min(max(sy, 0), height - 1)).pointee)
        }
        for row in 0..<h {
            for col in 0..<w {
                let sx = x + col, sy = y + row
                dst[row * dstStride + col] = UInt8((wA * S(sx, sy) + wB * S(sx + 1, sy) + wC * S(sx, sy + 1) + wD * S(sx + 1, sy + 1) + 32) >> 6)
            }
        }
    }

    /// (a + b + 1) >> 1 per lane without widening: (a | b) − ((a ^ b) >> 1).
    @inline(__always) static func roundedAverage(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
        (a | b) &- ((a ^ b) &>> 1)
    }

    /// Default weighted sample prediction of a bi-predicted block: (a + b + 1) >> 1, into `a`.
    static func average(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) {
        var i = 0
        while i &+ 16 <= count {
            let va = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD16<UInt8>.self)
            let vb = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(a + i).storeBytes(of: roundedAverage(va, vb), as: SIMD16<UInt8>.self)
            i &+= 16
        }
        while i < count { a[i] = UInt8((UInt16(a[i]) + UInt16(b[i]) + 1) >> 1); i += 1 }
    }
}
