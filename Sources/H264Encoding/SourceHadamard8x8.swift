/// The 8x8 Hadamard transform of a source block, as the SA8D (``MotionSearch/sa8d8x8(_:_:_:_:)``,
/// (Σ |8x8 Hadamard of the difference| + 2) >> 2) takes it, for the Intra 8x8 mode decision (8.3.2.2). The transform is
/// linear, H(source − prediction) = H(source) − H(prediction): for the predictions whose transform has one to eight
/// nonzero coefficients, vertical, horizontal and DC (8.3.2.2.2-8.3.2.2.4), only those coefficients change and the
/// predictions are never formed; any other prediction is transformed alone and subtracted (``sa8d(_:stride:)``).
/// (The SA8D's sum of magnitudes is the same in any order of the Hadamard rows: one order is used here.)
struct SourceHadamard8x8 {
    private typealias Block = (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)
    /// Vector i, lane j: the coefficient of horizontal index i and vertical index j (|·| ≤ 64 · 255: exact in Int16).
    private let coefficients: Block
    /// Σ|coefficient| over the whole block, vertical index 0 (the first row) and horizontal index 0 (the first column).
    private let total: Int32, firstRow: Int32, firstColumn: Int32
    /// The first row (horizontal index in the lane) and the first column (vertical index in the lane), widened.
    private let firstRowCoefficients: SIMD8<Int32>, firstColumnCoefficients: SIMD8<Int32>

    /// The eight-point Hadamard transform, in the one order used along both directions (lane-wise for SIMD8 rows).
    @inline(__always) private static func h8<T: WrappingButterfly>(_ x0: T, _ x1: T, _ x2: T, _ x3: T, _ x4: T, _ x5: T, _ x6: T, _ x7: T)
        -> (T, T, T, T, T, T, T, T) {
        @inline(__always) func p(_ a: T, _ b: T) -> T { T.sum(a, b) }
        @inline(__always) func m(_ a: T, _ b: T) -> T { T.difference(a, b) }
        let s0 = p(x0, x1), s1 = m(x0, x1), s2 = p(x2, x3), s3 = m(x2, x3), s4 = p(x4, x5), s5 = m(x4, x5), s6 = p(x6, x7), s7 = m(x6, x7)
        let t0 = p(s0, s2), t1 = p(s1, s3), t2 = m(s0, s2), t3 = m(s1, s3), t4 = p(s4, s6), t5 = p(s5, s7), t6 = m(s4, s6), t7 = m(s5, s7)
        return (p(t0, t4), p(t1, t5), p(t2, t6), p(t3, t7), m(t0, t4), m(t1, t5), m(t2, t6), m(t3, t7))
    }

    @inline(__always) private static func h8(_ v: SIMD8<Int32>) -> SIMD8<Int32> {
        let h = h8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
        return SIMD8(h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7)
    }

    @inline(__always) private static func abs8(_ v: SIMD8<Int32>) -> SIMD8<Int32> { let s = v &>> 31; return (v ^ s) &- s }

    @inline(__always) private static func magnitude(_ v: Int32) -> Int32 { v < 0 ? 0 &- v : v }

    /// The 8 samples at `p` as 16-bit lanes.
    @inline(__always) private static func samples(_ p: UnsafePointer<UInt8>) -> Lanes16 {
        Lanes16(v: SIMD8(Int16(p[0]), Int16(p[1]), Int16(p[2]), Int16(p[3]), Int16(p[4]), Int16(p[5]), Int16(p[6]), Int16(p[7])))
    }

    /// The 8x8 Hadamard of 16-bit rows, lane-wise.
    @inline(__always) private static func h8(_ r: (Lanes16, Lanes16, Lanes16, Lanes16, Lanes16, Lanes16, Lanes16, Lanes16)) -> Block {
        let h = h8(r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7)
        return (h.0.v, h.1.v, h.2.v, h.3.v, h.4.v, h.5.v, h.6.v, h.7.v)
    }

    /// The 2-D transform of the 8x8 block at `p` (``coefficients``' layout): the columns lane-wise, the block
    /// transposed, the rows lane-wise.
    @inline(__always) private static func transform(_ p: UnsafePointer<UInt8>, stride: Int) -> Block {
        @inline(__always) func row(_ r: Int) -> Lanes16 { samples(p + r &* stride) }
        let v = transposed(h8((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))))  // vector x: column x, vertical index in the lane
        return h8((Lanes16(v: v.0), Lanes16(v: v.1), Lanes16(v: v.2), Lanes16(v: v.3), Lanes16(v: v.4), Lanes16(v: v.5), Lanes16(v: v.6),
                   Lanes16(v: v.7)))
    }

    /// The 8x8 block of 16-bit lanes transposed: three rounds of interleaving 16-, 32- and 64-bit lanes (``DeblockingLanes/zip16(_:_:)``).
    @inline(__always) private static func transposed(_ m: Block) -> Block {
        typealias Z = DeblockingLanes
        @inline(__always) func b(_ v: SIMD8<Int16>) -> Z.Bytes { unsafeBitCast(v, to: Z.Bytes.self) }
        @inline(__always) func v(_ x: Z.Bytes) -> SIMD8<Int16> { unsafeBitCast(x, to: SIMD8<Int16>.self) }
        let a01 = Z.zip16(b(m.0), b(m.1)), a23 = Z.zip16(b(m.2), b(m.3)), a45 = Z.zip16(b(m.4), b(m.5)), a67 = Z.zip16(b(m.6), b(m.7))
        let b03 = Z.zip32(a01.low, a23.low), b47 = Z.zip32(a01.high, a23.high)  // rows 0...3: columns 0, 1 | 2, 3, then 4, 5 | 6, 7
        let c03 = Z.zip32(a45.low, a67.low), c47 = Z.zip32(a45.high, a67.high)  // rows 4...7
        let d01 = Z.zip64(b03.low, c03.low), d23 = Z.zip64(b03.high, c03.high), d45 = Z.zip64(b47.low, c47.low), d67 = Z.zip64(b47.high, c47.high)
        return (v(d01.low), v(d01.high), v(d23.low), v(d23.high), v(d45.low), v(d45.high), v(d67.low), v(d67.high))
    }

    /// Σ|lane| over the block, every |lane| ≤ 32640: two magnitudes add up exactly in a 16-bit lane read unsigned.
    @inline(__always) private static func magnitudeSum(_ d: Block) -> Int32 {
        @inline(__always) func abs(_ v: SIMD8<Int16>) -> SIMD8<UInt16> { let s = v &>> 15; return SIMD8<UInt16>(truncatingIfNeeded: (v ^ s) &- s) }
        @inline(__always) func widened(_ v: SIMD8<UInt16>) -> SIMD4<UInt32> {
            let pairs = unsafeBitCast(v, to: SIMD4<UInt32>.self)
            return (pairs & 0xFFFF) &+ (pairs &>> 16)
        }
        let sum = widened(abs(d.0) &+ abs(d.1)) &+ widened(abs(d.2) &+ abs(d.3)) &+ widened(abs(d.4) &+ abs(d.5)) &+ widened(abs(d.6) &+ abs(d.7))
        return Int32(truncatingIfNeeded: sum.wrappedSum())
    }

    @inline(__always) init(_ p: UnsafePointer<UInt8>, stride: Int) {
        let c = Self.transform(p, stride: stride)
        coefficients = c
        total = Self.magnitudeSum(c)
        firstRowCoefficients = SIMD8(Int32(c.0[0]), Int32(c.1[0]), Int32(c.2[0]), Int32(c.3[0]), Int32(c.4[0]), Int32(c.5[0]), Int32(c.6[0]), Int32(c.7[0]))
        let column = c.0
        firstColumnCoefficients = SIMD8(Int32(column[0]), Int32(column[1]), Int32(column[2]), Int32(column[3]), Int32(column[4]), Int32(column[5]),
                                        Int32(column[6]), Int32(column[7]))
        firstRow = Self.abs8(firstRowCoefficients).wrappedSum()
        firstColumn = Self.abs8(firstColumnCoefficients).wrappedSum()
    }

    /// SA8D against the vertical prediction: every row the top samples t, whose transform is 8·h8(t) in the first row.
    @inline(__always) func sa8dVertical(_ t: SIMD8<Int32>) -> Int32 {
        let d = Self.abs8(firstRowCoefficients &- 8 &* Self.h8(t))
        return (total &- firstRow &+ d.wrappedSum() &+ 2) >> 2
    }

    /// SA8D against the horizontal prediction: row y the left sample l[y], whose transform is 8·h8(l) in the first column.
    @inline(__always) func sa8dHorizontal(_ l: SIMD8<Int32>) -> Int32 {
        let d = Self.abs8(firstColumnCoefficients &- 8 &* Self.h8(l))
        return (total &- firstColumn &+ d.wrappedSum() &+ 2) >> 2
    }

    /// SA8D against a flat prediction dc, whose transform is 64·dc at (0, 0).
    @inline(__always) func sa8dFlat(_ dc: Int32) -> Int32 {
        let c = Int32(coefficients.0[0])
        return (total &- Self.magnitude(c) &+ Self.magnitude(c &- 64 &* dc) &+ 2) >> 2
    }

    /// SA8D against the 8x8 prediction at `p` (rows `stride` apart), equal to ``MotionSearch/sa8d8x8(_:_:_:_:)``
    /// of the source and it: |H(source) − H(prediction)| ≤ 2 · 64 · 255, exact in Int16.
    @inline(__always) func sa8d(_ p: UnsafePointer<UInt8>, stride: Int) -> Int32 {
        let h = Self.transform(p, stride: stride), c = coefficients
        return (Self.magnitudeSum((c.0 &- h.0, c.1 &- h.1, c.2 &- h.2, c.3 &- h.3, c.4 &- h.4, c.5 &- h.5, c.6 &- h.6, c.7 &- h.7)) &+ 2) >> 2
    }
}

/// The wrapping sum and difference the Hadamard butterflies use, on scalars and lane-wise on rows.
protocol WrappingButterfly {
    static func sum(_ a: Self, _ b: Self) -> Self
    static func difference(_ a: Self, _ b: Self) -> Self
}

extension Int32: WrappingButterfly {
    @inline(__always) static func sum(_ a: Int32, _ b: Int32) -> Int32 { a &+ b }
    @inline(__always) static func difference(_ a: Int32, _ b: Int32) -> Int32 { a &- b }
}

extension SIMD8: WrappingButterfly where Scalar == Int32 {
    @inline(__always) static func sum(_ a: Self, _ b: Self) -> Self { a &+ b }
    @inline(__always) static func difference(_ a: Self, _ b: Self) -> Self { a &- b }
}

/// A row of 16-bit lanes for the butterflies (SIMD8 conforms for Int32 lanes; the generic lane arithmetic is not vectorised).
private struct Lanes16: WrappingButterfly {
    var v: SIMD8<Int16>
    @inline(__always) static func sum(_ a: Lanes16, _ b: Lanes16) -> Lanes16 { Lanes16(v: a.v &+ b.v) }
    @inline(__always) static func difference(_ a: Lanes16, _ b: Lanes16) -> Lanes16 { Lanes16(v: a.v &- b.v) }
}
