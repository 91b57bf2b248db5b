/// The six directional Intra4x4 predictions of a block (modes 3...8, 8.3.1.2.4-8.3.1.2.9) formed side by side
/// and their SATDs taken in one pass, as ``MotionSearch/satdBlockRow(_:_:_:_:)`` takes four horizontally adjacent
/// blocks: the mode decision then reads each SATD instead of predicting and transforming the modes one by one.
/// Every mode is formed whatever the neighbours (an unavailable one reads the zeros ``IntraPrediction/loadEdge4x4(at:stride:_:into:)`` leaves there, never used): the
/// caller skips it as before. The SATDs equal ``MotionSearch/satd4x4(_:_:_:_:)`` of each prediction (both are
/// half the sum of the absolute Hadamard coefficients, exactly).
enum IntraDirectionalSATD4x4 {
    /// Where mode `mode` (3...8) lies in the 16x8 layout of ``predict(edge:lines:_:into:)`` (rows 16 bytes apart):
    /// modes 3...6 at columns 0, 4, 8, 12 of rows 0...3, modes 7 and 8 at columns 0 and 4 of rows 4...7.
    @inline(__always) static func offset(mode: Int) -> Int { mode < 7 ? 4 &* (mode &- 3) : 64 &+ 4 &* (mode &- 7) }

    /// Forms the six predictions into `dst` (16x8 bytes, ``offset(mode:)``) from the edge and its lines
    /// (``IntraPrediction/filterEdge4x4(_:into:)``).
    @inline(__always) static func predict(edge e: UnsafePointer<Int32>, lines: UnsafePointer<UInt8>, _ n: IntraPrediction.Neighbours,
                                          into dst: UnsafeMutablePointer<UInt8>) {
        for mode in 3...8 { IntraPrediction.predict4x4(mode: mode, edge: e, lines: lines, n, dst: dst + offset(mode: mode), dstStride: 16) }
    }

    /// The SATDs of the 4x4 source block at `src` against the six predictions at `predictions`
    /// (``predict(edge:lines:_:into:)``), mode m's in lanes 2(m − 3) and 2(m − 3) + 1 (lanes 12...15 meaningless):
    /// read with ``satd(_:mode:)``.
    @inline(__always) static func satds(_ src: UnsafePointer<UInt8>, stride: Int, predictions: UnsafePointer<UInt8>) -> SIMD16<Int16> {
        // the source row repeated across the four blocks of a 16-sample row
        @inline(__always) func source(_ r: Int) -> SIMD8<Int16> {
            unsafeBitCast(SIMD4(repeating: UnsafeRawPointer(src + r &* stride).loadUnaligned(as: UInt32.self)), to: SIMD8<Int16>.self)
        }
        let s0 = source(0), s1 = source(1), s2 = source(2), s3 = source(3)
        @inline(__always) func blockRow(_ p: UnsafePointer<UInt8>) -> SIMD8<Int16> {  // lanes 2k, 2k + 1: block k's SATD
            @inline(__always) func row(_ r: Int) -> SIMD8<Int16> { UnsafeRawPointer(p + 16 &* r).loadUnaligned(as: SIMD8<Int16>.self) }
            return MotionSearch.satdRows(MotionSearch.diff(s0, row(0)), MotionSearch.diff(s1, row(1)), MotionSearch.diff(s2, row(2)),
                                         MotionSearch.diff(s3, row(3)))
        }
        return SIMD16(lowHalf: blockRow(predictions), highHalf: blockRow(predictions + 64))
    }

    /// Mode `mode`'s (3...8) SATD in ``satds(_:stride:predictions:)``.
    @inline(__always) static func satd(_ satds: SIMD16<Int16>, mode: Int) -> Int32 { Int32(satds[2 &* (mode &- 3)]) }
}
