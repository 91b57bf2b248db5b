/// The edge filters of 8.7.2.3 and 8.7.2.4 on 16 lines of an edge at once (lane i: line i), branch-free,
/// with the samples across the edge as vectors p3...q3. Vertical edges are transposed in and out.
enum DeblockingLanes {
    /// 8 lines at a time in Int16 (16 would not fit the SSE2 registers).
    typealias Lanes = SIMD8<Int16>
    typealias Bytes = SIMD16<UInt8>

    /// The samples across an edge: line i in lane i of each.
    struct Samples {
        var p3, p2, p1, p0, q0, q1, q2, q3: Bytes
    }

    /// Filters `lines` (8 or 16) lines of one edge in place; `start` is q0 of the first line, `across`
    /// steps from p0 to q0, `along` from one line to the next. bS per quarter of the edge (8.7.2.1); tC0 for
    /// bS 1, 2, 3 (Table 8-17), picked per line by ``filter(p3:p2:p1:p0:q0:q1:q2:q3:bS:tc0:alpha:beta:chroma:anyStrong:)``.
    @inline(__always) static func filter(_ start: UnsafeMutablePointer<UInt8>, across: Int, along: Int, lines: Int, bS: SIMD4<Int32>,
                                         alpha: Int32, beta: Int32, tc0: SIMD3<Int32>, chroma: Bool) {
        let strength = perLine(SIMD4(truncatingIfNeeded: bS), lines: lines)
        // Most edges have no bS 4 line (only macroblock edges next to intra): the strong filter is then skipped.
        let anyStrong = (bS[0] | bS[1] | bS[2] | bS[3]) >= 4  // bS is 0...4
        if across == 1 {
            let old = loadColumns(start - 4, stride: along, lines: lines)
            let new = filter(old, bS: strength, tc0: SIMD3(truncatingIfNeeded: tc0), alpha: Int16(alpha), beta: Int16(beta), chroma: chroma, anyStrong: anyStrong)
            storeColumns(new, start - 4, stride: along, lines: lines)
        } else {
            @inline(__always) func row(_ k: Int) -> Bytes {
                let p = UnsafeRawPointer(start + k &* across)
                if lines == 16 { return p.loadUnaligned(as: Bytes.self) }
                return unsafeBitCast(SIMD2<UInt64>(p.loadUnaligned(as: UInt64.self), 0), to: Bytes.self)
            }
            let old = Samples(p3: row(-4), p2: row(-3), p1: row(-2), p0: row(-1), q0: row(0), q1: row(1), q2: row(2), q3: row(3))
            let new = filter(old, bS: strength, tc0: SIMD3(truncatingIfNeeded: tc0), alpha: Int16(alpha), beta: Int16(beta), chroma: chroma, anyStrong: anyStrong)
            @inline(__always) func store(_ v: Bytes, _ k: Int) {
                let p = UnsafeMutableRawPointer(start + k &* across)
                if lines == 16 { p.storeBytes(of: v, as: Bytes.self) } else { p.storeBytes(of: unsafeBitCast(v, to: SIMD2<UInt64>.self)[0], as: UInt64.self) }
            }
            store(new.p2, -3); store(new.p1, -2); store(new.p0, -1); store(new.q0, 0); store(new.q1, 1); store(new.q2, 2)
        }
    }

    /// Values per quarter of the edge (bS) spread over its lines (built whole: a vector written lane
    /// by lane costs a store-forwarding stall).
    @inline(__always) static func perLine(_ v: SIMD4<Int16>, lines: Int) -> SIMD16<Int16> {
        let a = v[0], b = v[1], c = v[2], d = v[3]
        if lines == 16 { return SIMD16(a, a, a, a, b, b, b, b, c, c, c, c, d, d, d, d) }
        return SIMD16(a, a, b, b, c, c, d, d, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    // MARK: Lane arithmetic (Int16, no overflow for 8-bit samples)

    @inline(__always) static func abs(_ v: Lanes) -> Lanes { let s = v &>> 15; return (v ^ s) &- s }
    /// All ones where a < b.
    @inline(__always) static func less(_ a: Lanes, _ b: Lanes) -> Lanes { (a &- b) &>> 15 }
    @inline(__always) static func min(_ a: Lanes, _ b: Lanes) -> Lanes { let d = b &- a; return a &+ (d & (d &>> 15)) }
    @inline(__always) static func max(_ a: Lanes, _ b: Lanes) -> Lanes { let d = b &- a; return b &- (d & (d &>> 15)) }
    @inline(__always) static func clip3(_ low: Lanes, _ high: Lanes, _ v: Lanes) -> Lanes { min(max(v, low), high) }
    @inline(__always) static func select(_ mask: Lanes, _ a: Lanes, _ b: Lanes) -> Lanes { (a & mask) | (b & ~mask) }

    /// The filtered samples of up to 16 lines, 8 at a time (chroma edges have 8).
    @inline(__always) static func filter(_ s: Samples, bS: SIMD16<Int16>, tc0: SIMD3<Int16>, alpha: Int16, beta: Int16, chroma: Bool,
                                         anyStrong: Bool) -> Samples {
        @inline(__always) func half(_ high: Bool) -> Samples {
            @inline(__always) func lanes(_ v: Bytes) -> Lanes { high ? widen(v).high : widen(v).low }
            return filter(p3: lanes(s.p3), p2: lanes(s.p2), p1: lanes(s.p1), p0: lanes(s.p0), q0: lanes(s.q0), q1: lanes(s.q1),
                          q2: lanes(s.q2), q3: lanes(s.q3), bS: high ? bS.highHalf : bS.lowHalf, tc0: tc0,
                          alpha: alpha, beta: beta, chroma: chroma, anyStrong: anyStrong)
        }
        let low = half(false)
        if chroma { return low }  // lines 8...15 absent
        let high = half(true)
        @inline(__always) func join(_ a: Bytes, _ b: Bytes) -> Bytes { Bytes(lowHalf: a.lowHalf, highHalf: b.lowHalf) }
        return Samples(p3: s.p3, p2: join(low.p2, high.p2), p1: join(low.p1, high.p1), p0: join(low.p0, high.p0),
                       q0: join(low.q0, high.q0), q1: join(low.q1, high.q1), q2: join(low.q2, high.q2), q3: s.q3)
    }

    /// 8.7.2.3 (bS < 4) and 8.7.2.4 (bS 4) on 8 lines, each lane keeping the result its bS and
    /// filterSamplesFlag choose; the new samples in the low halves of the result. `anyStrong`: whether any
    /// lane has bS 4 (when none, the bS 4 filter is not computed).
    @inline(__always) static func filter(p3: Lanes, p2: Lanes, p1: Lanes, p0: Lanes, q0: Lanes, q1: Lanes, q2: Lanes, q3: Lanes,
                                         bS: Lanes, tc0 table: SIMD3<Int16>, alpha: Int16, beta: Int16, chroma: Bool, anyStrong: Bool) -> Samples {
        let a = Lanes(repeating: alpha), b = Lanes(repeating: beta)
        // tC0 of each line's bS, from `table` (bS 1, 2, 3; lines of bS 0 or 4 do not use it)
        let tc0 = Lanes(repeating: table[0]) &+ (less(Lanes(repeating: 1), bS) & Lanes(repeating: table[1] &- table[0]))
            &+ (less(Lanes(repeating: 2), bS) & Lanes(repeating: table[2] &- table[1]))
        let filtered = less(.zero, bS) & less(abs(p0 &- q0), a) & less(abs(p1 &- p0), b) & less(abs(q1 &- q0), b)
        let strong = less(Lanes(repeating: 3), bS)
        let byte = Lanes(repeating: 255)
        var out = Samples(p3: narrow(p3), p2: narrow(p2), p1: narrow(p1), p0: narrow(p0), q0: narrow(q0), q1: narrow(q1), q2: narrow(q2), q3: narrow(q3))
        if chroma {
            let tc = tc0 &+ 1
            let delta = clip3(0 &- tc, tc, (((q0 &- p0) &<< 2) &+ (p1 &- q1) &+ 4) &>> 3)
            let p0n = select(strong, (2 &* p1 &+ p0 &+ q1 &+ 2) &>> 2, clip3(.zero, byte, p0 &+ delta))
            let q0n = select(strong, (2 &* q1 &+ q0 &+ p1 &+ 2) &>> 2, clip3(.zero, byte, q0 &- delta))
            out.p0 = narrow(select(filtered, p0n, p0))
            out.q0 = narrow(select(filtered, q0n, q0))
            return out
        }
        let apLess = less(abs(p2 &- p0), b), aqLess = less(abs(q2 &- q0), b)
        // bS < 4
        let tc = tc0 &- apLess &- aqLess
        let delta = clip3(0 &- tc, tc, (((q0 &- p0) &<< 2) &+ (p1 &- q1) &+ 4) &>> 3)
        let average = (p0 &+ q0 &+ 1) &>> 1
        let p0n = clip3(.zero, byte, p0 &+ delta), q0n = clip3(.zero, byte, q0 &- delta)
        let p1n = select(apLess, p1 &+ clip3(0 &- tc0, tc0, (p2 &+ average &- (p1 &<< 1)) &>> 1), p1)
        let q1n = select(aqLess, q1 &+ clip3(0 &- tc0, tc0, (q2 &+ average &- (q1 &<< 1)) &>> 1), q1)
        if !anyStrong {  // strong is 0 in every lane: p2 and q2 stay
            out.p1 = narrow(select(filtered, p1n, p1))
            out.p0 = narrow(select(filtered, p0n, p0))
            out.q0 = narrow(select(filtered, q0n, q0))
            out.q1 = narrow(select(filtered, q1n, q1))
            return out
        }
        // bS 4
        let near = less(abs(p0 &- q0), (a &>> 2) &+ 2)
        let pStrong = apLess & near, qStrong = aqLess & near
        let p0s = select(pStrong, (p2 &+ 2 &* p1 &+ 2 &* p0 &+ 2 &* q0 &+ q1 &+ 4) &>> 3, (2 &* p1 &+ p0 &+ q1 &+ 2) &>> 2)
        let p1s = select(pStrong, (p2 &+ p1 &+ p0 &+ q0 &+ 2) &>> 2, p1)
        let p2s = select(pStrong, (2 &* p3 &+ 3 &* p2 &+ p1 &+ p0 &+ q0 &+ 4) &>> 3, p2)
        let q0s = select(qStrong, (p1 &+ 2 &* p0 &+ 2 &* q0 &+ 2 &* q1 &+ q2 &+ 4) &>> 3, (2 &* q1 &+ q0 &+ p1 &+ 2) &>> 2)
        let q1s = select(qStrong, (p0 &+ q0 &+ q1 &+ q2 &+ 2) &>> 2, q1)
        let q2s = select(qStrong, (2 &* q3 &+ 3 &* q2 &+ q1 &+ q0 &+ p0 &+ 4) &>> 3, q2)
        out.p2 = narrow(select(filtered & strong, p2s, p2))
        out.p1 = narrow(select(filtered, select(strong, p1s, p1n), p1))
        out.p0 = narrow(select(filtered, select(strong, p0s, p0n), p0))
        out.q0 = narrow(select(filtered, select(strong, q0s, q0n), q0))
        out.q1 = narrow(select(filtered, select(strong, q1s, q1n), q1))
        out.q2 = narrow(select(filtered & strong, q2s, q2))
        return out
    }

    // MARK: Widening, narrowing, transposing (interleaves the compiler turns into unpack instructions)

    @inline(__always) static func widen(_ v: Bytes) -> (low: Lanes, high: Lanes) {
        let z = zip(v, .zero)
        return (unsafeBitCast(z.low, to: Lanes.self), unsafeBitCast(z.high, to: Lanes.self))
    }

    /// 8 samples 0...255 into the low half of 16 bytes.
    /// The low bytes picked lane by lane (pand, packuswb): the generic truncating init is not always inlined.
    @inline(__always) static func narrow(_ v: Lanes) -> Bytes {
        let b = unsafeBitCast(v, to: Bytes.self)
        return Bytes(b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14], 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Lanes 0...7 of a and b interleaved, then lanes 8...15.
    @inline(__always) static func zip(_ a: Bytes, _ b: Bytes) -> (low: Bytes, high: Bytes) {
        (Bytes(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]),
         Bytes(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15]))
    }

    /// The same interleave of 16-, 32- and 64-bit units of the 16 bytes.
    @inline(__always) static func zip16(_ a: Bytes, _ b: Bytes) -> (low: Bytes, high: Bytes) {
        let x = unsafeBitCast(a, to: SIMD8<UInt16>.self), y = unsafeBitCast(b, to: SIMD8<UInt16>.self)
        return (unsafeBitCast(SIMD8(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3]), to: Bytes.self),
                unsafeBitCast(SIMD8(x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7]), to: Bytes.self))
    }

    @inline(__always) static func zip32(_ a: Bytes, _ b: Bytes) -> (low: Bytes, high: Bytes) {
        let x = unsafeBitCast(a, to: SIMD4<UInt32>.self), y = unsafeBitCast(b, to: SIMD4<UInt32>.self)
        return (unsafeBitCast(SIMD4(x[0], y[0], x[1], y[1]), to: Bytes.self), unsafeBitCast(SIMD4(x[2], y[2], x[3], y[3]), to: Bytes.self))
    }

    @inline(__always) static func zip64(_ a: Bytes, _ b: Bytes) -> (low: Bytes, high: Bytes) {
        let x = unsafeBitCast(a, to: SIMD2<UInt64>.self), y = unsafeBitCast(b, to: SIMD2<UInt64>.self)
        return (unsafeBitCast(SIMD2(x[0], y[0]), to: Bytes.self), unsafeBitCast(SIMD2(x[1], y[1]), to: Bytes.self))
    }

    /// Rows of 8 samples p3...q3 (`lines` of them, from `first`) as the 8 vectors across the edge.
    @inline(__always) static func loadColumns(_ first: UnsafeMutablePointer<UInt8>, stride: Int, lines: Int) -> Samples {
        @inline(__always) func row(_ i: Int) -> Bytes {
            guard i < lines else { return .zero }
            return unsafeBitCast(SIMD2<UInt64>(UnsafeRawPointer(first + i &* stride).loadUnaligned(as: UInt64.self), 0), to: Bytes.self)
        }
        // rows 2k, 2k + 1 byte-interleaved: 16-bit unit j is column j of both
        let r01 = zip(row(0), row(1)).low, r23 = zip(row(2), row(3)).low, r45 = zip(row(4), row(5)).low, r67 = zip(row(6), row(7)).low
        let r89 = zip(row(8), row(9)).low, rAB = zip(row(10), row(11)).low, rCD = zip(row(12), row(13)).low, rEF = zip(row(14), row(15)).low
        // 32-bit unit j: column j (low: 0...3, high: 4...7) of four rows
        let a0 = zip16(r01, r23), a1 = zip16(r45, r67), a2 = zip16(r89, rAB), a3 = zip16(rCD, rEF)
        // 64-bit unit: a column of eight rows
        let b01 = zip32(a0.low, a1.low), b23 = zip32(a0.high, a1.high), c01 = zip32(a2.low, a3.low), c23 = zip32(a2.high, a3.high)
        let col01 = zip64(b01.low, c01.low), col23 = zip64(b01.high, c01.high)
        let col45 = zip64(b23.low, c23.low), col67 = zip64(b23.high, c23.high)
        return Samples(p3: col01.low, p2: col01.high, p1: col23.low, p0: col23.high, q0: col45.low, q1: col45.high, q2: col67.low, q3: col67.high)
    }

    /// The inverse of ``loadColumns(_:stride:lines:)``: the 8 vectors back into `lines` rows.
    @inline(__always) static func storeColumns(_ s: Samples, _ first: UnsafeMutablePointer<UInt8>, stride: Int, lines: Int) {
        // 16-bit unit i: columns (0, 1), (2, 3)... of row i (low: rows 0...7, high: 8...15)
        let c01 = zip(s.p3, s.p2), c23 = zip(s.p1, s.p0), c45 = zip(s.q0, s.q1), c67 = zip(s.q2, s.q3)
        // 32-bit unit: columns 0...3 or 4...7 of a row
        let lowRows = (zip16(c01.low, c23.low), zip16(c45.low, c67.low))
        let highRows = (zip16(c01.high, c23.high), zip16(c45.high, c67.high))
        @inline(__always) func store(_ v: Bytes, rows i: Int) {  // two rows, as 64-bit units
            let units = unsafeBitCast(v, to: SIMD2<UInt64>.self)
            UnsafeMutableRawPointer(first + i &* stride).storeBytes(of: units[0], as: UInt64.self)
            UnsafeMutableRawPointer(first + (i &+ 1) &* stride).storeBytes(of: units[1], as: UInt64.self)
        }
        @inline(__always) func storeEight(_ rows: (left: (low: Bytes, high: Bytes), right: (low: Bytes, high: Bytes)), from i: Int) {
            let r0 = zip32(rows.left.low, rows.right.low), r1 = zip32(rows.left.high, rows.right.high)
            store(r0.low, rows: i); store(r0.high, rows: i + 2); store(r1.low, rows: i + 4); store(r1.high, rows: i + 6)
        }
        storeEight(lowRows, from: 0)
        if lines > 8 { storeEight(highRows, from: 8) }
    }
}
