/// The 8x8 Hadamard transform of a source block, as the SA8D (``MotionSearch/sa8d8x8(_:_:_:_:)``,
/// (Σ |8x8 Hadamard of the difference| + 2) >> 2) takes it, for the Intra 8x8 predictions whose transform has
/// one to eight nonzero coefficients: vertical, horizontal and DC (8.3.2.2.2-8.3.2.2.4). As for
/// ``SourceHadamard4x4``, H(source − prediction) = H(source) − H(prediction) changes in those coefficients only.
/// (The SA8D's sum of magnitudes is the same in any order of the Hadamard rows: one order is used here.)
struct SourceHadamard8x8 {
    /// Rows k = 0...7 of the transform (lanes: the columns' transform index).
    private let rows: Rows
    /// Σ|coefficient| over the whole block, the first row and the first column.
    private let total: Int32, firstRow: Int32, firstColumn: Int32

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

    @inline(__always) init(_ p: UnsafePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ y: Int) -> SIMD8<Int32> {
            let q = p + y &* stride
            return SIMD8(Int32(q[0]), Int32(q[1]), Int32(q[2]), Int32(q[3]), Int32(q[4]), Int32(q[5]), Int32(q[6]), Int32(q[7]))
        }
        let v = Self.h8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))  // vertical, lane-wise
        rows = (Self.h8(v.0), Self.h8(v.1), Self.h8(v.2), Self.h8(v.3), Self.h8(v.4), Self.h8(v.5), Self.h8(v.6), Self.h8(v.7))
        let a0 = Self.abs8(rows.0)
        firstRow = a0.wrappedSum()
        total = (a0 &+ Self.abs8(rows.1) &+ Self.abs8(rows.2) &+ Self.abs8(rows.3) &+ Self.abs8(rows.4) &+ Self.abs8(rows.5)
                 &+ Self.abs8(rows.6) &+ Self.abs8(rows.7)).wrappedSum()
        firstColumn = Self.abs8(Self.firstColumn(rows)).wrappedSum()
    }

    private typealias Rows = (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>)

    @inline(__always) private static func firstColumn(_ r: Rows) -> SIMD8<Int32> {
        SIMD8(r.0[0], r.1[0], r.2[0], r.3[0], r.4[0], r.5[0], r.6[0], r.7[0])
    }

    /// SA8D against the vertical prediction: every row the top samples t, whose transform is 8·h8(t) in row 0.
    @inline(__always) func sa8dVertical(_ t: SIMD8<Int32>) -> Int32 {
        let d = Self.abs8(rows.0 &- 8 &* Self.h8(t))
        return (total &- firstRow &+ d.wrappedSum() &+ 2) >> 2
    }

    /// SA8D against the horizontal prediction: row y the left sample l[y], whose transform is 8·h8(l) in column 0.
    @inline(__always) func sa8dHorizontal(_ l: SIMD8<Int32>) -> Int32 {
        let d = Self.abs8(Self.firstColumn(rows) &- 8 &* Self.h8(l))
        return (total &- firstColumn &+ d.wrappedSum() &+ 2) >> 2
    }

    /// SA8D against a flat prediction dc, whose transform is 64·dc at (0, 0).
    @inline(__always) func sa8dFlat(_ dc: Int32) -> Int32 {
        let c = rows.0[0]
        return (total &- Self.magnitude(c) &+ Self.magnitude(c &- 64 &* dc) &+ 2) >> 2
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
