/// Block distortion (SAD, SATD), rate estimates, and the motion search: integer hexagon/square
/// search around the predictors, then half- and quarter-sample refinement with SATD.
enum MotionSearch {
    /// λ for SAD/SATD costs at a QP (≈ 0.92 · 2^((QP − 12) / 6)).
    static let lambda: [Int32] = (0..<52).map { qp in
        var v = 0.92
        for _ in 0..<max(qp - 12, 0) { v *= 1.122462 }  // 2^(1/6)
        return Int32(max(1, (v + 0.5).rounded(.down)))
    }

    /// Length of se(v) (9.1.1), for |v| < 2^30 (any vector difference): wrapping arithmetic, no overflow checks.
    @inline(__always) static func bitsSE(_ v: Int32) -> Int32 {
        let codeNum = UInt32(bitPattern: v > 0 ? 2 &* v &- 1 : 0 &- 2 &* v) &+ 1
        return Int32(truncatingIfNeeded: 2 &* (31 &- codeNum.leadingZeroBitCount) &+ 1)
    }

    /// Length of the two se(v) of the vector difference (x, y) − (px, py), quarter samples.
    @inline(__always) static func bitsMVD(_ x: Int, _ y: Int, _ px: Int32, _ py: Int32) -> Int32 {
        bitsSE(Int32(truncatingIfNeeded: x) &- px) &+ bitsSE(Int32(truncatingIfNeeded: y) &- py)
    }

    @inline(__always) static func bitsUE(_ v: Int) -> Int32 {
        let codeNum = UInt32(v) + 1
        return Int32(2 * (31 - codeNum.leadingZeroBitCount) + 1)
    }

    @inline(__always) static func sad16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var sum: UInt32 = 0  // ≤ 256 · 255
        for row in 0..<16 { sum &+= sadRow(a + row &* aStride, b + row &* bStride) }
        return Int32(truncatingIfNeeded: sum)
    }

    /// The SAD of a 16x16 block, or, once the rows summed so far reach `limit`, that partial sum
    /// (≥ limit): enough for a search that keeps only a cost strictly below its best.
    @inline(__always) static func sad16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int,
                                           stoppingAt limit: Int32) -> Int32 {
        var sum: UInt32 = 0
        for quarter in 0..<4 {
            for row in (4 &* quarter)..<(4 &* quarter &+ 4) { sum &+= sadRow(a + row &* aStride, b + row &* bStride) }
            if Int32(truncatingIfNeeded: sum) >= limit { break }
        }
        return Int32(truncatingIfNeeded: sum)
    }

    /// Σ |a − b| of 16 samples: |a − b| bytewise as max − min (the byte selects compile to pmaxub/pminub),
    /// then a sum of the 16 bytes widened, which LLVM matches as a whole to one psadbw (SSE2).
    @inline(__always) static func sadRow(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> UInt32 {
        let va = UnsafeRawPointer(a).loadUnaligned(as: SIMD16<UInt8>.self), vb = UnsafeRawPointer(b).loadUnaligned(as: SIMD16<UInt8>.self)
        let greater = va .> vb
        let d = vb.replacing(with: va, where: greater) &- va.replacing(with: vb, where: greater)
        var sum: UInt32 = 0
        for i in 0..<16 { sum &+= UInt32(d[i]) }
        return sum
    }

    /// Σ |a − b| of 8 samples, as ``sadRow(_:_:)``.
    @inline(__always) static func sadRow8(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> UInt32 {
        let va = UnsafeRawPointer(a).loadUnaligned(as: SIMD8<UInt8>.self), vb = UnsafeRawPointer(b).loadUnaligned(as: SIMD8<UInt8>.self)
        let greater = va .> vb
        let d = vb.replacing(with: va, where: greater) &- va.replacing(with: vb, where: greater)
        var sum: UInt32 = 0
        for i in 0..<8 { sum &+= UInt32(d[i]) }
        return sum
    }

    /// The differences a − b of 16 samples, even and odd columns apart, read as 8 little-endian 16-bit
    /// lanes and split by masks: no widening conversion (the generic SIMD init is not always inlined).
    @inline(__always) static func diff16(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) {
        diff(UnsafeRawPointer(a).loadUnaligned(as: SIMD8<Int16>.self), UnsafeRawPointer(b).loadUnaligned(as: SIMD8<Int16>.self))
    }

    /// ``diff16(_:_:)`` of 16 samples already loaded (as 8 little-endian 16-bit lanes).
    @inline(__always) static func diff(_ va: SIMD8<Int16>, _ vb: SIMD8<Int16>) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) {
        let low = SIMD8<Int16>(repeating: 0xFF)
        return ((va & low) &- (vb & low), ((va &>> 8) & low) &- ((vb &>> 8) & low))
    }

    /// Branch-free lane arithmetic (the generic pointwiseMax/Min are not always inlined and then cost a
    /// call per vector).
    @inline(__always) static func abs8(_ v: SIMD8<Int16>) -> SIMD8<Int16> { let s = v &>> 15; return (v ^ s) &- s }

    /// Per 4-lane group of a row of vertically transformed differences: the horizontal Hadamard stages,
    /// the last one as |a + b| + |a − b| = 2·max(|a|, |b|), which halves the sum; each group's sum in
    /// both lanes of a pair (``horizontal8(_:_:)``), so the lanes add up to twice the SATD.
    @inline(__always) static func horizontal16(_ v: SIMD16<Int16>) -> SIMD8<Int16> {
        horizontal8(v.evenHalf, v.oddHalf)
    }

    @inline(__always) static func row4(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(a).loadUnaligned(as: SIMD4<UInt8>.self))
            &- SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(b).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    /// SATD of a 16x16 block (sum over its 4x4 blocks of half the absolute Hadamard coefficients): the
    /// vertical transform lane-wise on the even and odd columns, the first horizontal stage as even ± odd.
    @inline(__always) static func satd16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var acc = SIMD8<Int16>.zero  // lanes 2k, 2k + 1: the four 4x4 blocks of columns 4k...4k+3, each ≤ 8160: ≤ 32640
        for g in 0..<4 { acc &+= satdBlockRow(a + 4 * g * aStride, aStride, b + 4 * g * bStride, bStride) }
        return pairSum(acc)
    }

    /// The sum of lanes 0, 2, 4, 6 (each lane pair holds one value twice).
    @inline(__always) static func pairSum(_ v: SIMD8<Int16>) -> Int32 { Int32(v[0]) + Int32(v[2]) + Int32(v[4]) + Int32(v[6]) }

    /// The SATD of a 16x16 block, or, once the rows of 4x4 blocks summed so far reach `limit`, that
    /// partial sum (≥ limit): enough for a search that keeps only a cost strictly below its best.
    @inline(__always) static func satd16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int,
                                            stoppingAt limit: Int32) -> Int32 {
        var acc = SIMD8<Int16>.zero
        var partial: Int32 = 0
        for g in 0..<4 {
            acc &+= satdBlockRow(a + 4 * g * aStride, aStride, b + 4 * g * bStride, bStride)
            partial = pairSum(acc)
            if partial >= limit { break }
        }
        return partial
    }

    /// The SATDs of the four 4x4 blocks of a 16x4 row of blocks (lanes 2k and 2k + 1 both: columns
    /// 4k...4k+3): the vertical transform lane-wise on the even and odd columns, the first horizontal
    /// stage as even ± odd.
    @inline(__always) static func satdBlockRow(_ pa: UnsafePointer<UInt8>, _ aStride: Int, _ pb: UnsafePointer<UInt8>, _ bStride: Int) -> SIMD8<Int16> {
        satdRows(diff16(pa, pb), diff16(pa + aStride, pb + bStride), diff16(pa + 2 * aStride, pb + 2 * bStride), diff16(pa + 3 * aStride, pb + 3 * bStride))
    }

    /// The SATDs of the four 4x4 blocks of an 8x8 block (lanes 0...3: the top two, 4...7: the bottom two):
    /// each row of the top half packed beside the row four below it, then as ``satdBlockRow(_:_:_:_:)``.
    @inline(__always) static func satdBlock8x8(_ pa: UnsafePointer<UInt8>, _ aStride: Int, _ pb: UnsafePointer<UInt8>, _ bStride: Int) -> SIMD8<Int16> {
        @inline(__always) func diff(_ r: Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) {
            let a = pa + r &* aStride, b = pb + r &* bStride
            return Self.diff(rowPair(a, aStride), rowPair(b, bStride))
        }
        return satdRows(diff(0), diff(1), diff(2), diff(3))
    }

    /// 8 samples of a row beside the 8 of the row four below, as 8 16-bit lanes (``satdBlock8x8(_:_:_:_:)``).
    @inline(__always) static func rowPair(_ p: UnsafePointer<UInt8>, _ stride: Int) -> SIMD8<Int16> {
        unsafeBitCast(Transform.halves(p, p + 4 &* stride), to: SIMD8<Int16>.self)
    }

    /// A luma prediction read where it lies, never written out, 16 samples at a time.
    protocol PredictionRows {
        /// The 16 samples of row `r`, as 8 16-bit lanes.
        func row16(_ r: Int) -> SIMD8<Int16>
    }

    /// A quarter-sample luma prediction: the rounded average of two planes' samples (Table 8-12), rows
    /// `stride` apart in both.
    struct AveragedPrediction: PredictionRows, PredictionRowPairs {
        var a: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, stride: Int

        /// The 16 samples of row `r`, as 8 16-bit lanes.
        @inline(__always) func row16(_ r: Int) -> SIMD8<Int16> {
            let va = UnsafeRawPointer(a + r &* stride).loadUnaligned(as: SIMD16<UInt8>.self)
            let vb = UnsafeRawPointer(b + r &* stride).loadUnaligned(as: SIMD16<UInt8>.self)
            return unsafeBitCast(InterPrediction.roundedAverage(va, vb), to: SIMD8<Int16>.self)
        }

        /// The first 8 samples of row `r` beside those of row `r` + 4 (``rowPair(_:_:)``).
        @inline(__always) func rowPair8(_ r: Int) -> SIMD8<Int16> {
            let va = unsafeBitCast(MotionSearch.rowPair(a + r &* stride, stride), to: SIMD16<UInt8>.self)
            let vb = unsafeBitCast(MotionSearch.rowPair(b + r &* stride, stride), to: SIMD16<UInt8>.self)
            return unsafeBitCast(InterPrediction.roundedAverage(va, vb), to: SIMD8<Int16>.self)
        }
    }

    /// The default bi-prediction (8.4.2.3.1) of a 16x16 block: the rounded average of list 0's and list 1's
    /// samples, one list's at a sample position (`a` = `b`: `a` itself) or a quarter-sample one (as
    /// ``AveragedPrediction``), the other list's written out in `other` (stride 16).
    struct BiPrediction: PredictionRows {
        var single: AveragedPrediction, other: UnsafePointer<UInt8>

        @inline(__always) func row16(_ r: Int) -> SIMD8<Int16> {
            let v = unsafeBitCast(single.row16(r), to: SIMD16<UInt8>.self)
            let o = UnsafeRawPointer(other + 16 &* r).loadUnaligned(as: SIMD16<UInt8>.self)
            return unsafeBitCast(InterPrediction.roundedAverage(v, o), to: SIMD8<Int16>.self)
        }
    }

    /// The SATD of the 16 x h block at `a` (h a multiple of 4) against a prediction read as it lies, as
    /// ``satd16x16(_:_:_:_:stoppingAt:)`` gives it against that prediction written out: the same sums, by the same
    /// groups, the same partial sum (≥ limit) once they reach `limit`.
    @inline(__always) static func satd16<Prediction: PredictionRows>(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ p: Prediction,
                                                                     h: Int, stoppingAt limit: Int32) -> Int32 {
        satd16(h: h, stoppingAt: limit) { r in diff(UnsafeRawPointer(a + r &* aStride).loadUnaligned(as: SIMD8<Int16>.self), p.row16(r)) }
    }

    /// The same against a source block split once (``SplitSource``), whose rows are not split again per prediction.
    @inline(__always) static func satd16<Prediction: PredictionRows>(_ source: SplitSource, _ p: Prediction,
                                                                     h: Int, stoppingAt limit: Int32) -> Int32 {
        satd16(h: h, stoppingAt: limit) { r in source.diff(r, p.row16(r)) }
    }

    /// An 8-wide prediction read where it lies, by rows paired as ``rowPair(_:_:)`` pairs them.
    protocol PredictionRowPairs {
        /// The first 8 samples of row `r` beside those of row `r` + 4.
        func rowPair8(_ r: Int) -> SIMD8<Int16>
    }

    /// A full- or half-sample luma prediction: the plane's samples as they lie, rows `stride` apart.
    struct PlanePrediction: PredictionRows, PredictionRowPairs {
        var a: UnsafePointer<UInt8>, stride: Int

        @inline(__always) func row16(_ r: Int) -> SIMD8<Int16> { UnsafeRawPointer(a + r &* stride).loadUnaligned(as: SIMD8<Int16>.self) }
        @inline(__always) func rowPair8(_ r: Int) -> SIMD8<Int16> { MotionSearch.rowPair(a + r &* stride, stride) }
    }

    /// The SATD of the 8 x h block (h a multiple of 8) of `source` (split by row pairs) against `p`, as
    /// ``satd8xN(_:_:_:_:h:stoppingAt:)`` gives it against that prediction written out.
    @inline(__always) static func satd8<Prediction: PredictionRowPairs>(_ source: SplitSource, _ p: Prediction, h: Int,
                                                                        stoppingAt limit: Int32) -> Int32 {
        var acc = SIMD8<Int16>.zero
        var partial: Int32 = 0
        var y = 0
        while y < h {
            @inline(__always) func d(_ r: Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) { source.diff(y &+ r, p.rowPair8(y &+ r)) }
            acc &+= satdRows(d(0), d(1), d(2), d(3))
            partial = pairSum(acc)
            if partial >= limit { break }
            y &+= 8
        }
        return partial
    }

    /// The 16 rows of a 16-wide source block as even and odd columns (``diff16(_:_:)``'s first operand), split once
    /// for a search that compares the block with many predictions. Row r: vectors 2r (even) and 2r + 1 (odd).
    struct SplitSource {
        static let vectorCount = 32
        let rows: UnsafeMutablePointer<SIMD8<Int16>>

        /// Splits `h` rows of the block at `a` into `rows` (16-byte aligned, ``vectorCount`` vectors).
        @inline(__always) init(_ a: UnsafePointer<UInt8>, _ aStride: Int, h: Int, into rows: UnsafeMutablePointer<SIMD8<Int16>>) {
            self.rows = rows
            let low = SIMD8<Int16>(repeating: 0xFF)
            for r in 0..<h {
                let v = UnsafeRawPointer(a + r &* aStride).loadUnaligned(as: SIMD8<Int16>.self)
                rows[2 &* r] = v & low
                rows[2 &* r &+ 1] = (v &>> 8) & low
            }
        }

        /// Splits the rows of an 8-wide block of height `h` (a multiple of 8) as ``rowPair(_:_:)`` pairs them: row r
        /// (r % 8 < 4) beside row r + 4, in vectors 2r and 2r + 1.
        @inline(__always) init(rowPairsOf a: UnsafePointer<UInt8>, _ aStride: Int, h: Int, into rows: UnsafeMutablePointer<SIMD8<Int16>>) {
            self.rows = rows
            let low = SIMD8<Int16>(repeating: 0xFF)
            for r in 0..<h where r & 4 == 0 {
                let v = rowPair(a + r &* aStride, aStride)
                rows[2 &* r] = v & low
                rows[2 &* r &+ 1] = (v &>> 8) & low
            }
        }

        /// ``diff(_:_:)`` of row `r` and 16 prediction samples (as 8 little-endian 16-bit lanes).
        @inline(__always) func diff(_ r: Int, _ vb: SIMD8<Int16>) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) {
            let low = SIMD8<Int16>(repeating: 0xFF)
            return (rows[2 &* r] &- (vb & low), rows[2 &* r &+ 1] &- ((vb &>> 8) & low))
        }
    }

    /// The SATD of 16 x h differences given row by row (`d`), as ``satd16x16(_:_:_:_:stoppingAt:)``: the same sums by
    /// the same groups, the same partial sum once they reach `limit`.
    @inline(__always) static func satd16(h: Int, stoppingAt limit: Int32,
                                         _ row: (Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>)) -> Int32 {
        var acc = SIMD8<Int16>.zero
        var partial: Int32 = 0
        var y = 0
        while y < h {
            @inline(__always) func d(_ r: Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) { row(y &+ r) }
            acc &+= satdRows(d(0), d(1), d(2), d(3))
            partial = pairSum(acc)
            if partial >= limit { break }
            y &+= 4
        }
        return partial
    }

    /// The SATD of the w x h block at `a` (w 16, or 8 with h a multiple of 8) against a quarter-sample prediction
    /// read as it lies, as ``satd16x16(_:_:_:_:stoppingAt:)`` and ``satd8xN(_:_:_:_:h:stoppingAt:)`` give it against
    /// that prediction written out (``satd16(_:_:_:h:stoppingAt:)`` for 16 wide).
    @inline(__always) static func satd(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ p: AveragedPrediction,
                                       w: Int, h: Int, stoppingAt limit: Int32) -> Int32 {
        if w == 16 { return satd16(a, aStride, p, h: h, stoppingAt: limit) }
        var acc = SIMD8<Int16>.zero
        var partial: Int32 = 0
        var y = 0
        while y < h {
            @inline(__always) func d(_ r: Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>) {
                diff(rowPair(a + (y &+ r) &* aStride, aStride), p.rowPair8(y &+ r))
            }
            acc &+= satdRows(d(0), d(1), d(2), d(3))
            partial = pairSum(acc)
            if partial >= limit { break }
            y &+= 8
        }
        return partial
    }

    /// SATD of an 8-wide block, h a multiple of 8, by ``satdBlock8x8(_:_:_:_:)``; once the 8x8 blocks summed
    /// so far reach `limit`, that partial sum (≥ limit).
    @inline(__always) static func satd8xN(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, h: Int,
                                          stoppingAt limit: Int32 = .max) -> Int32 {
        var acc = SIMD8<Int16>.zero  // each lane: one 4x4 block per 8 rows, ≤ 8160 each: h ≤ 32
        var partial: Int32 = 0
        var y = 0
        while y < h {
            acc &+= satdBlock8x8(a + y &* aStride, aStride, b + y &* bStride, bStride)
            partial = pairSum(acc)
            if partial >= limit { break }
            y &+= 8
        }
        return partial
    }

    /// The vertical and horizontal Hadamard stages of four rows of differences (even and odd columns apart).
    @inline(__always) static func satdRows(_ d0: (even: SIMD8<Int16>, odd: SIMD8<Int16>), _ d1: (even: SIMD8<Int16>, odd: SIMD8<Int16>),
                                           _ d2: (even: SIMD8<Int16>, odd: SIMD8<Int16>), _ d3: (even: SIMD8<Int16>, odd: SIMD8<Int16>)) -> SIMD8<Int16> {
        @inline(__always) func vertical(_ r0: SIMD8<Int16>, _ r1: SIMD8<Int16>, _ r2: SIMD8<Int16>, _ r3: SIMD8<Int16>)
            -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
            let s01 = r0 &+ r1, t01 = r0 &- r1, s23 = r2 &+ r3, t23 = r2 &- r3
            return (s01 &+ s23, s01 &- s23, t01 &- t23, t01 &+ t23)
        }
        let e = vertical(d0.even, d1.even, d2.even, d3.even), o = vertical(d0.odd, d1.odd, d2.odd, d3.odd)
        return horizontal8(e.0, o.0) &+ horizontal8(e.1, o.1) &+ horizontal8(e.2, o.2) &+ horizontal8(e.3, o.3)
    }

    /// ``horizontal16(_:)`` of a row given as its even and odd lanes, in Int16, each group's sum in both
    /// lanes of its pair: fewer shuffles than taking even and odd halves.
    @inline(__always) static func horizontal8(_ e: SIMD8<Int16>, _ o: SIMD8<Int16>) -> SIMD8<Int16> {
        pairMax(e &+ o) &+ pairMax(e &- o)
    }

    /// max(|v[2k]|, |v[2k + 1]|) in lanes 2k and 2k + 1 (one word shuffle swaps the pairs).
    @inline(__always) static func pairMax(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
        let a = abs8(v)
        let swapped = SIMD8(a[1], a[0], a[3], a[2], a[5], a[4], a[7], a[6])
        return a.replacing(with: swapped, where: swapped .> a)  // a compare and a select of two vectors: pmaxsw
    }

    /// SATD of a 4x4 block.
    @inline(__always) static func satd4x4(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        let d0 = row4(a, b), d1 = row4(a + aStride, b + bStride), d2 = row4(a + 2 * aStride, b + 2 * bStride), d3 = row4(a + 3 * aStride, b + 3 * bStride)
        let s01 = d0 &+ d1, t01 = d0 &- d1, s23 = d2 &+ d3, t23 = d2 &- d3
        // four vertical rows packed as 16 lanes: the same horizontal stages as 16-wide rows
        let v = SIMD16<Int16>(lowHalf: SIMD8(lowHalf: s01 &+ s23, highHalf: s01 &- s23), highHalf: SIMD8(lowHalf: t01 &- t23, highHalf: t01 &+ t23))
        return Int32(horizontal16(v).wrappedSum()) >> 1  // ≤ 2 · 8160: exact in Int16
    }

    @inline(__always) static func satd(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int, w: Int, h: Int) -> Int32 {
        if w == 16 && h == 16 { return satd16x16(a, aStride, b, bStride) }
        if w == 8 && h & 7 == 0 { return satd8xN(a, aStride, b, bStride, h: h) }
        var sum: Int32 = 0
        var y = 0
        while y < h {
            var x = 0
            while x < w {
                sum += satd4x4(a + y * aStride + x, aStride, b + y * bStride + x, bStride)
                x += 4
            }
            y += 4
        }
        return sum
    }
}
