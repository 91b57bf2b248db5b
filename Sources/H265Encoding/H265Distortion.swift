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

    /// The sum of one row's lanes (at most 4 · 8 differences of 10-bit samples: no lane or sum leaves 16 bits).
    @inline(__always) static func rowSum(_ v: SIMD8<UInt16>) -> Int32 {
        Int32(SIMD8<UInt32>(truncatingIfNeeded: v).wrappedSum())
    }

    /// SAD of the w x h block at `src` against the one at `ref`; once the running sum reaches `bound` the
    /// partial sum is returned (the candidate cannot win).
    static func sad(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref: UnsafePointer<UInt16>, _ refStride: Int,
                    w: Int, h: Int, bound: Int32) -> Int32 {
        var total: Int32 = 0
        for j in 0..<h {
            let s = src + j * srcStride, r = ref + j * refStride
            var acc = SIMD8<UInt16>()
            var i = 0
            while i < w {
                acc &+= difference(load(s + i), load(r + i))
                i += 8
            }
            total &+= rowSum(acc)
            if total >= bound { break }
        }
        return total
    }

    /// SAD of the w x h block at `src` against a bilinear estimate of the reference at quarter-sample
    /// fraction (fx, fy) from `ref` (its integer position; one more column and row are read).
    static func bilinearSAD(_ src: UnsafePointer<UInt16>, _ srcStride: Int, _ ref: UnsafePointer<UInt16>, _ refStride: Int,
                            fx: Int, fy: Int, w: Int, h: Int, bound: Int32) -> Int32 {
        // The four weights sum to 16: no weighted sum of samples below 2^12 leaves 16 bits.
        let w00 = SIMD8<UInt16>(repeating: UInt16((4 - fx) * (4 - fy))), w10 = SIMD8<UInt16>(repeating: UInt16(fx * (4 - fy)))
        let w01 = SIMD8<UInt16>(repeating: UInt16((4 - fx) * fy)), w11 = SIMD8<UInt16>(repeating: UInt16(fx * fy))
        let eight = SIMD8<UInt16>(repeating: 8)
        var total: Int32 = 0
        for j in 0..<h {
            let s = src + j * srcStride, r = ref + j * refStride
            var acc = SIMD8<UInt16>()
            var i = 0
            while i < w {
                let p = (w00 &* load(r + i) &+ w10 &* load(r + i + 1) &+ w01 &* load(r + i + refStride)
                         &+ w11 &* load(r + i + refStride + 1) &+ eight) &>> 4
                acc &+= difference(load(s + i), p)
                i += 8
            }
            total &+= rowSum(acc)
            if total >= bound { break }
        }
        return total
    }
}
