/// The 4x4 Hadamard transform of a source block, as the SATD (``MotionSearch/satd4x4(_:_:_:_:)``, half the
/// absolute Hadamard coefficients of the difference) takes it, for the Intra4x4 predictions whose transform
/// has one to four nonzero coefficients: vertical, horizontal and DC (8.3.1.2.1-8.3.1.2.3). The transform
/// is linear, so H(source − prediction) = H(source) − H(prediction), and only those coefficients change:
/// the three costs come without forming the predictions or transforming their differences.
struct SourceHadamard4x4 {
    /// Rows k = 0...3 of the transform (lanes: the columns' transform index).
    private let rows: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>)
    /// Σ|coefficient| over the whole block, the first row and the first column.
    private let total: Int32, firstRow: Int32, firstColumn: Int32

    /// The four-point Hadamard transform, in the one order used along both directions.
    @inline(__always) private static func h4(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> SIMD4<Int32> {
        let s = a &+ b, t = a &- b, u = c &+ d, w = c &- d
        return SIMD4(s &+ u, s &- u, t &- w, t &+ w)
    }

    @inline(__always) private static func abs4(_ v: SIMD4<Int32>) -> SIMD4<Int32> { let s = v &>> 31; return (v ^ s) &- s }

    @inline(__always) init(_ p: UnsafePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ y: Int) -> SIMD4<Int32> {
            let q = p + y &* stride
            return Self.h4(Int32(q[0]), Int32(q[1]), Int32(q[2]), Int32(q[3]))
        }
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
        let s01 = r0 &+ r1, t01 = r0 &- r1, s23 = r2 &+ r3, t23 = r2 &- r3
        rows = (s01 &+ s23, s01 &- s23, t01 &- t23, t01 &+ t23)
        let a0 = Self.abs4(rows.0), a1 = Self.abs4(rows.1), a2 = Self.abs4(rows.2), a3 = Self.abs4(rows.3)
        firstRow = a0.wrappedSum()
        total = (a0 &+ a1 &+ a2 &+ a3).wrappedSum()
        firstColumn = a0[0] &+ a1[0] &+ a2[0] &+ a3[0]
    }

    /// SATD against the vertical prediction: every row the top samples t, whose transform is 4·h4(t) in row 0.
    @inline(__always) func satdVertical(_ t0: Int32, _ t1: Int32, _ t2: Int32, _ t3: Int32) -> Int32 {
        let d = Self.abs4(rows.0 &- 4 &* Self.h4(t0, t1, t2, t3))
        return (total &- firstRow &+ d.wrappedSum()) >> 1
    }

    /// SATD against the horizontal prediction: row y the left sample l_y, whose transform is 4·h4(l) in column 0.
    @inline(__always) func satdHorizontal(_ l0: Int32, _ l1: Int32, _ l2: Int32, _ l3: Int32) -> Int32 {
        let p = 4 &* Self.h4(l0, l1, l2, l3)
        let d = Self.abs4(SIMD4(rows.0[0], rows.1[0], rows.2[0], rows.3[0]) &- p)
        return (total &- firstColumn &+ d.wrappedSum()) >> 1
    }

    /// SATD against a flat prediction dc, whose transform is 16·dc at (0, 0).
    @inline(__always) func satdFlat(_ dc: Int32) -> Int32 {
        let c = rows.0[0], d = c &- 16 &* dc
        return (total &- (c < 0 ? -c : c) &+ (d < 0 ? -d : d)) >> 1
    }
}
