/// Distortion kernels of the motion search: sums of absolute differences between source blocks and
/// reference blocks read in place, eight samples at a time. Blocks are w x h with w a multiple of 8.
enum H265Distortion {
    /// |a − b| per lane, without leaving 16 bits.
    @inline(__always) static func difference(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        a.replacing(with: b, where: a .< b) &- b.replacing(with: a, where: a .< b)
    }

    @inline(__always) static func load(_ p: UnsafePointer<UInt16>) -> SIMD8<UInt16> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self)
    }

    /// The sum of the lanes.
    @inline(__always) static func rowSum(_ v: SIMD8<UInt16>) -> Int32 {
        Int32(widened(v).wrappedSum())
    }

    /// The lanes zero-extended to 32 bits: written out so that it inlines (punpcklwd, punpckhwd), where the
    /// generic `SIMD8(truncatingIfNeeded:)` stays a call that spills the caller's vectors.
    @inline(__always) static func widened(_ v: SIMD8<UInt16>) -> SIMD8<UInt32> {
        SIMD8<UInt32>(UInt32(v[0]), UInt32(v[1]), UInt32(v[2]), UInt32(v[3]), UInt32(v[4]), UInt32(v[5]), UInt32(v[6]), UInt32(v[7]))
    }

    /// Rows whose differences share the 16-bit lanes before they are summed and the bound checked: with w ≤ 64, a
    /// lane takes at most 4 · 8 differences of 10-bit samples per group, below 2^15.
    static let rowsPerSum = 4

    /// The sum over rows 0..<h of what `row` adds into 16-bit lanes, summed every ``rowsPerSum`` rows; once the
    /// running sum reaches `bound` the partial sum is returned (the candidate cannot win).
    @inline(__always) static func accumulate(h: Int, bound: Int32, _ row: (Int, inout SIMD8<UInt16>) -> Void) -> Int32 {
        var total: Int32 = 0
        var j = 0
        while j < h {
            var acc = SIMD8<UInt16>()
            for r in j..<min(j + rowsPerSum, h) { row(r, &acc) }
            total &+= rowSum(acc)
            if total >= bound { break }
            j += rowsPerSum
        }
        return total
    }

    /// SAD of the w x h block at `src` against the one at `ref`; once the running sum reaches `bound` the
    /// partial sum is returned (the candidate cannot win).
    static func sad(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref: UnsafePointer<UInt16>, _ refStride: Int,
                    w: Int, h: Int, bound: Int32) -> Int32 {
        accumulate(h: h, bound: bound) { j, acc in
            let s = src + j * srcStride, r = ref + j * refStride
            var i = 0
            while i < w {
                acc &+= difference(load(s + i), load(r + i))
                i &+= 8
            }
        }
    }

    /// SAD of the w x h block at `src` against a bilinear estimate of the reference at quarter-sample
    /// fraction (fx, fy) from `ref` (its integer position; one more column and row are read).
    /// A zero fraction's taps weigh 0: with both zero the estimate is the reference itself (``sad``), with one
    /// zero it is the two-tap ``linearSAD`` along the other; the same sums, without the products by 0.
    static func bilinearSAD(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref: UnsafePointer<UInt16>, _ refStride: Int,
                            fx: Int, fy: Int, w: Int, h: Int, bound: Int32) -> Int32 {
        if fy == 0 {
            if fx == 0 { return sad(src, srcStride, ref, refStride, w: w, h: h, bound: bound) }
            return linearSAD(src, srcStride, ref, refStride, next: 1, fraction: fx, w: w, h: h, bound: bound)
        }
        if fx == 0 { return linearSAD(src, srcStride, ref, refStride, next: refStride, fraction: fy, w: w, h: h, bound: bound) }
        // The four weights sum to 16: no weighted sum of samples below 2^12 leaves 16 bits.
        let w00 = SIMD8<UInt16>(repeating: UInt16((4 - fx) * (4 - fy))), w10 = SIMD8<UInt16>(repeating: UInt16(fx * (4 - fy)))
        let w01 = SIMD8<UInt16>(repeating: UInt16((4 - fx) * fy)), w11 = SIMD8<UInt16>(repeating: UInt16(fx * fy))
        let eight = SIMD8<UInt16>(repeating: 8)
        return accumulate(h: h, bound: bound) { j, acc in
            let s = src + j * srcStride, r = ref + j * refStride
            var i = 0
            while i < w {
                let p = (w00 &* load(r + i) &+ w10 &* load(r + i + 1) &+ w01 &* load(r + i + refStride)
                         &+ w11 &* load(r + i + refStride + 1) &+ eight) &>> 4
                acc &+= difference(load(s + i), p)
                i &+= 8
            }
        }
    }

    /// ``bilinearSAD(_:_:_:_:fx:fy:w:h:bound:)`` with one fraction zero: the estimate from the samples at `ref`
    /// and `next` samples on, weighted 4 · (4 − fraction) and 4 · fraction (the bilinear weights whose
    /// partners weigh 0), rounded by 8 and shifted by 4 as there.
    private static func linearSAD(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref: UnsafePointer<UInt16>, _ refStride: Int,
                                  next: Int, fraction: Int, w: Int, h: Int, bound: Int32) -> Int32 {
        let w0 = SIMD8<UInt16>(repeating: UInt16(4 * (4 - fraction))), w1 = SIMD8<UInt16>(repeating: UInt16(4 * fraction))
        let eight = SIMD8<UInt16>(repeating: 8)
        return accumulate(h: h, bound: bound) { j, acc in
            let s = src + j * srcStride, r = ref + j * refStride
            var i = 0
            while i < w {
                acc &+= difference(load(s + i), (w0 &* load(r + i) &+ w1 &* load(r + i + next) &+ eight) &>> 4)
                i &+= 8
            }
        }
    }

    /// SAD of the w x h block at `src` against the average of two bilinear estimates (see
    /// ``bilinearSAD(_:_:_:_:fx:fy:w:h:bound:)``), at `ref0` with fraction (fx0, fy0) and at `ref1` with (fx1, fy1).
    static func bilinearBiSAD(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref0: UnsafePointer<UInt16>, fx0: Int, fy0: Int,
                              _ ref1: UnsafePointer<UInt16>, fx1: Int, fy1: Int, _ refStride: Int, w: Int, h: Int) -> Int32 {
        @inline(__always) func weights(_ fx: Int, _ fy: Int) -> (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>) {
            (SIMD8(repeating: UInt16((4 - fx) * (4 - fy))), SIMD8(repeating: UInt16(fx * (4 - fy))),
             SIMD8(repeating: UInt16((4 - fx) * fy)), SIMD8(repeating: UInt16(fx * fy)))
        }
        let a = weights(fx0, fy0), b = weights(fx1, fy1)
        let eight = SIMD8<UInt16>(repeating: 8)
        @inline(__always) func estimate(_ r: UnsafePointer<UInt16>, _ k: (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>)) -> SIMD8<UInt16> {
            (k.0 &* load(r) &+ k.1 &* load(r + 1) &+ k.2 &* load(r + refStride) &+ k.3 &* load(r + refStride + 1) &+ eight) &>> 4
        }
        return accumulate(h: h, bound: .max) { j, acc in
            let s = src + j * srcStride, r0 = ref0 + j * refStride, r1 = ref1 + j * refStride
            var i = 0
            while i < w {
                let p = (estimate(r0 + i, a) &+ estimate(r1 + i, b) &+ 1) &>> 1
                acc &+= difference(load(s + i), p)
                i += 8
            }
        }
    }

    /// The sum of the magnitudes of the 4x4 Hadamard-transformed differences between the w x w block at
    /// `src` and the prediction `pred` (raster, stride w; sample values), w a multiple of 8 (SATD is half of
    /// it): two 4x4 blocks side by side per vector.
    /// The vertical butterflies run lane-wise; of the horizontal ones only the first is computed, since the
    /// last stage's |x + y| + |x − y| is 2 · max(|x|, |y|).
    /// At 8 or 10 bits every step fits 16-bit lanes: a difference is within ±1023, a lane after the vertical
    /// butterflies within ±4092, after the horizontal one 0...16368, and a lane's four such (below 2^16, unsigned)
    /// are widened before they are summed; one vector holds what two 32-bit ones would, and pmaxsw is SSE2.
    static func hadamardSum(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ pred: UnsafePointer<Int32>, w: Int) -> Int32 {
        var acc = SIMD8<UInt32>()
        for by in stride(from: 0, to: w, by: 4) {
            for bx in stride(from: 0, to: w, by: 8) {
                @inline(__always) func row(_ j: Int) -> SIMD8<Int16> {
                    SIMD8<Int16>(truncatingIfNeeded: load(src + (by + j) * srcStride + bx)) &- narrowed(pred + (by + j) * w + bx)
                }
                let d0 = row(0), d1 = row(1), d2 = row(2), d3 = row(3)
                let a0 = d0 &+ d3, a1 = d1 &+ d2, a2 = d1 &- d2, a3 = d0 &- d3
                let four = horizontal(a0 &+ a1) &+ horizontal(a3 &+ a2) &+ horizontal(a0 &- a1) &+ horizontal(a3 &- a2)
                acc &+= widened(SIMD8<UInt16>(truncatingIfNeeded: four))
            }
        }
        // The lanes hold every block's sum twice over.
        return Int32(acc.wrappedSum()) / 2
    }

    /// The eight Int32 at `p` truncated to 16 bits, lane by lane: written out so that it inlines (pslld, psrad,
    /// packssdw), where the generic `SIMD8(truncatingIfNeeded:)` stays a call that spills the loop's vectors.
    @inline(__always) static func narrowed(_ p: UnsafePointer<Int32>) -> SIMD8<Int16> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int32>.self)
        return SIMD8<Int16>(Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]), Int16(truncatingIfNeeded: v[2]),
                            Int16(truncatingIfNeeded: v[3]), Int16(truncatingIfNeeded: v[4]), Int16(truncatingIfNeeded: v[5]),
                            Int16(truncatingIfNeeded: v[6]), Int16(truncatingIfNeeded: v[7]))
    }

    /// Per group of 4 lanes v0...v3: |v0 ± v3| and |v1 ± v2|, the larger of each pair in every lane of the group
    /// (the lanes sum to twice the group's transformed magnitudes).
    @inline(__always) static func horizontal(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
        let reversed = SIMD8<Int16>(v[3], v[2], v[1], v[0], v[7], v[6], v[5], v[4])
        let s = magnitude(v &+ reversed), d = magnitude(v &- reversed)
        let sSwapped = SIMD8<Int16>(s[1], s[0], s[3], s[2], s[5], s[4], s[7], s[6])
        let dSwapped = SIMD8<Int16>(d[1], d[0], d[3], d[2], d[5], d[4], d[7], d[6])
        return pointwiseMax(s, sSwapped) &+ pointwiseMax(d, dSwapped)
    }

    @inline(__always) static func magnitude(_ v: SIMD8<Int16>) -> SIMD8<Int16> { (v ^ (v &>> 15)) &- (v &>> 15) }
}
