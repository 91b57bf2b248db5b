/// Fractional sample interpolation (8.5.3.3.3) and default weighted sample prediction (8.5.3.3.4.2).
enum H265MotionCompensation {
    /// fL (Table 8-11) by xFrac 1...3.
    static let lumaFilter: [[Int32]] = [[-1, 4, -10, 58, 17, -5, 1, 0], [-1, 4, -11, 40, 40, -11, 4, -1], [0, 1, -5, 17, 58, -10, 4, -1]]
    /// fC (Table 8-12) by xFrac 1...7.
    static let chromaFilter: [[Int32]] = [[-2, 58, 10, -2], [-4, 54, 16, -2], [-6, 46, 28, -4], [-4, 36, 36, -4],
                                          [-4, 28, 46, -6], [-2, 16, 54, -4], [-2, 10, 58, -2]]

    /// The 8 or 4 taps of one filter phase, held in registers by the loops.
    struct Taps {
        var f0: Int32 = 0, f1: Int32 = 0, f2: Int32 = 0, f3: Int32 = 0, f4: Int32 = 0, f5: Int32 = 0, f6: Int32 = 0, f7: Int32 = 0
        init(_ f: [Int32]) {
            f0 = f[0]; f1 = f[1]; f2 = f[2]; f3 = f[3]
            if f.count == 8 { f4 = f[4]; f5 = f[5]; f6 = f[6]; f7 = f[7] }
        }
        /// Σ f[k] · s[k · step], over 8 taps (luma) or 4.
        @inline(__always) func apply<T: BinaryInteger>(_ s: UnsafePointer<T>, _ step: Int, luma: Bool) -> Int32 {
            // Wrapping operators: the sums fit 32 bits by far, and without overflow checks the loops vectorise.
            var sum = f0 &* Int32(s[0]) &+ f1 &* Int32(s[step]) &+ f2 &* Int32(s[2 * step]) &+ f3 &* Int32(s[3 * step])
            if luma {
                sum &+= f4 &* Int32(s[4 * step]) &+ f5 &* Int32(s[5 * step]) &+ f6 &* Int32(s[6 * step]) &+ f7 &* Int32(s[7 * step])
            }
            return sum
        }

        /// The same sum for eight neighbouring outputs at once.
        @inline(__always) func apply8(_ s: UnsafePointer<UInt16>, _ step: Int, luma: Bool) -> SIMD8<Int32> {
            var sum = widen(s) &* f0 &+ widen(s + step) &* f1 &+ widen(s + 2 * step) &* f2 &+ widen(s + 3 * step) &* f3
            if luma {
                sum &+= widen(s + 4 * step) &* f4 &+ widen(s + 5 * step) &* f5 &+ widen(s + 6 * step) &* f6 &+ widen(s + 7 * step) &* f7
            }
            return sum
        }

        /// The sum of `apply8` on samples, for 8-bit samples, in 16-bit lanes. Such a sum lies within
        /// −6120...22440 for every phase of fL and fC (Tables 8-11, 8-12), so 16-bit wrapping products and sums
        /// (pmullw, paddw) give it exactly, where 32-bit lanes need an emulated multiply on SSE2.
        @inline(__always) func apply8Of8Bit(_ s: UnsafePointer<UInt16>, _ step: Int, luma: Bool) -> SIMD8<Int32> {
            SIMD8<Int32>(truncatingIfNeeded: sum8Of8Bit(s, step, luma: luma))
        }

        /// `apply8Of8Bit` before it is widened: the sums in their 16-bit lanes.
        @inline(__always) func sum8Of8Bit(_ s: UnsafePointer<UInt16>, _ step: Int, luma: Bool) -> SIMD8<Int16> {
            @inline(__always) func tap(_ k: Int, _ f: Int32) -> SIMD8<Int16> {
                SIMD8<Int16>(truncatingIfNeeded: UnsafeRawPointer(s + k * step).loadUnaligned(as: SIMD8<UInt16>.self)) &* Int16(truncatingIfNeeded: f)
            }
            var sum = tap(0, f0) &+ tap(1, f1) &+ tap(2, f2) &+ tap(3, f3)
            if luma { sum &+= tap(4, f4) &+ tap(5, f5) &+ tap(6, f6) &+ tap(7, f7) }
            return sum
        }

        /// The same sum over first-stage sums kept in 16 bits (``sum8Of8Bit``). The shifts change no tap but tell
        /// LLVM that both factors fit 16 bits: each product is pmullw and pmulhw, not SSE2's emulated 32-bit multiply.
        @inline(__always) func apply8(_ s: UnsafePointer<Int16>, _ step: Int, luma: Bool) -> SIMD8<Int32> {
            @inline(__always) func tap(_ k: Int, _ f: Int32) -> SIMD8<Int32> {
                SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(s + k * step).loadUnaligned(as: SIMD8<Int16>.self))
                    &* ((SIMD8<Int32>(repeating: f) &<< 17) &>> 17)
            }
            var sum = tap(0, f0) &+ tap(1, f1) &+ tap(2, f2) &+ tap(3, f3)
            if luma { sum &+= tap(4, f4) &+ tap(5, f5) &+ tap(6, f6) &+ tap(7, f7) }
            return sum
        }

        @inline(__always) func apply8(_ s: UnsafePointer<Int32>, _ step: Int, luma: Bool) -> SIMD8<Int32> {
            var sum = load(s) &* f0 &+ load(s + step) &* f1 &+ load(s + 2 * step) &* f2 &+ load(s + 3 * step) &* f3
            if luma {
                sum &+= load(s + 4 * step) &* f4 &+ load(s + 5 * step) &* f5 &+ load(s + 6 * step) &* f6 &+ load(s + 7 * step) &* f7
            }
            return sum
        }
    }

    @inline(__always) static func widen(_ p: UnsafePointer<UInt16>) -> SIMD8<Int32> {
        SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self))
    }

    @inline(__always) static func load(_ p: UnsafePointer<Int32>) -> SIMD8<Int32> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int32>.self)
    }

    @inline(__always) static func store(_ v: SIMD8<Int32>, _ p: UnsafeMutablePointer<Int32>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Int32>.self)
    }

    /// Copies the w x h samples of a pw x ph plane from (x0, y0) into `window` (stride w), a position outside the plane
    /// taking the nearest edge sample (8-228, 8-229): the samples a filter reads where its block leaves the picture.
    static func copyEdgeReplicated(_ plane: UnsafePointer<UInt16>, pw: Int, ph: Int, x0: Int, y0: Int, w: Int, h: Int,
                                   into window: UnsafeMutablePointer<UInt16>) {
        for j in 0..<h {
            let row = plane + min(max(y0 + j, 0), ph - 1) * pw, windowRow = window + j * w
            for i in 0..<w { windowRow[i] = row[min(max(x0 + i, 0), pw - 1)] }
        }
    }

    /// The intermediate prediction (14-bit) of a w x h block of `plane` (pw x ph) at integer position
    /// (x, y) plus fraction (fx, fy) in units of 1/4 (luma, `taps` 8) or 1/8 (chroma, `taps` 4). Samples
    /// outside the plane are the nearest edge samples (8-228, 8-229).
    static func predict(_ plane: [UInt16], pw: Int, ph: Int, x: Int, y: Int, fx: Int, fy: Int, w: Int, h: Int,
                        luma: Bool, bitDepth: Int, into out: inout [Int32]) {
        let taps = luma ? 8 : 4
        let half = luma ? 3 : 1
        // The block with its filter margins: read in place, or copied edge-replicated where it leaves the plane.
        let bw = w + taps - 1, bh = h + taps - 1
        let x0 = x - half, y0 = y - half
        plane.withUnsafeBufferPointer { p in
            guard let pBase = p.baseAddress else { return }
            out.withUnsafeMutableBufferPointer { o in
                guard let oBase = o.baseAddress else { return }
                if x0 >= 0, y0 >= 0, x0 + bw <= pw, y0 + bh <= ph {
                    interpolate(pBase + y0 * pw + x0, stride: pw, fx: fx, fy: fy, w: w, h: h, luma: luma, bitDepth: bitDepth, into: oBase)
                    return
                }
                withUnsafeTemporaryAllocation(of: UInt16.self, capacity: bw * bh) { window in
                    guard let win = window.baseAddress else { return }
                    copyEdgeReplicated(pBase, pw: pw, ph: ph, x0: x0, y0: y0, w: bw, h: bh, into: win)
                    interpolate(win, stride: bw, fx: fx, fy: fy, w: w, h: h, luma: luma, bitDepth: bitDepth, into: oBase)
                }
            }
        }
    }

    /// 8-228 to 8-230 (luma) and 8-266 to 8-268 (chroma) on the samples at `win`, which start `half`
    /// samples above and left of the block.
    private static func interpolate(_ win: UnsafePointer<UInt16>, stride bw: Int, fx: Int, fy: Int, w: Int, h: Int, luma: Bool,
                                    bitDepth: Int, into o: UnsafeMutablePointer<Int32>) {
        let taps = luma ? 8 : 4
        let half = luma ? 3 : 1
        let bh = h + taps - 1
        let shift1 = Int32(min(4, bitDepth - 8)), shift3 = Int32(max(2, 14 - bitDepth))
        if w % 8 == 0 {
            interpolate8(win, stride: bw, fx: fx, fy: fy, w: w, h: h, luma: luma, shift1: shift1, shift3: shift3, into: o)
            return
        }
        if fx == 0 && fy == 0 {
            for j in 0..<h {
                let row = win + (j + half) * bw + half
                for i in 0..<w { o[j * w + i] = Int32(row[i]) << shift3 }
            }
            return
        }
        let fX = Taps(fx == 0 ? lumaFilter[1] : (luma ? lumaFilter[fx - 1] : chromaFilter[fx - 1]))
        let fY = Taps(fy == 0 ? lumaFilter[1] : (luma ? lumaFilter[fy - 1] : chromaFilter[fy - 1]))
        if fy == 0 {
            for j in 0..<h {
                let row = win + (j + half) * bw
                for i in 0..<w { o[j * w + i] = fX.apply(row + i, 1, luma: luma) >> shift1 }
            }
            return
        }
        if fx == 0 {
            for j in 0..<h {
                let row = win + j * bw + half
                for i in 0..<w { o[j * w + i] = fY.apply(row + i, bw, luma: luma) >> shift1 }
            }
            return
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: bh * w) { temp in
            guard let t = temp.baseAddress else { return }
            for r in 0..<bh {
                let row = win + r * bw
                for i in 0..<w { t[r * w + i] = fX.apply(row + i, 1, luma: luma) >> shift1 }
            }
            for j in 0..<h {
                for i in 0..<w { o[j * w + i] = fY.apply(UnsafePointer(t + j * w + i), w, luma: luma) >> 6 }
            }
        }
    }

    /// ``interpolate(_:stride:fx:fy:w:h:luma:bitDepth:into:)`` eight outputs at a time, for w a multiple of 8.
    private static func interpolate8(_ win: UnsafePointer<UInt16>, stride bw: Int, fx: Int, fy: Int, w: Int, h: Int, luma: Bool,
                                     shift1: Int32, shift3: Int32, into o: UnsafeMutablePointer<Int32>) {
        let half = luma ? 3 : 1
        let bh = h + (luma ? 7 : 3)
        if fx == 0 && fy == 0 {
            for j in 0..<h {
                let row = win + (j + half) * bw + half
                for i in stride(from: 0, to: w, by: 8) { store(widen(row + i) &<< shift3, o + j * w + i) }
            }
            return
        }
        let fX = Taps(fx == 0 ? lumaFilter[1] : (luma ? lumaFilter[fx - 1] : chromaFilter[fx - 1]))
        let fY = Taps(fy == 0 ? lumaFilter[1] : (luma ? lumaFilter[fy - 1] : chromaFilter[fy - 1]))
        // The filters on samples: in 16-bit lanes at 8 bits (shift1 0), else in 32-bit ones.
        let eightBit = shift1 == 0
        @inline(__always) func filtered(_ taps: Taps, _ s: UnsafePointer<UInt16>, _ step: Int) -> SIMD8<Int32> {
            eightBit ? taps.apply8Of8Bit(s, step, luma: luma) : taps.apply8(s, step, luma: luma) &>> shift1
        }
        if fy == 0 {
            for j in 0..<h {
                let row = win + (j + half) * bw
                for i in stride(from: 0, to: w, by: 8) { store(filtered(fX, row + i, 1), o + j * w + i) }
            }
            return
        }
        if fx == 0 {
            for j in 0..<h {
                let row = win + j * bw + half
                for i in stride(from: 0, to: w, by: 8) { store(filtered(fY, row + i, bw), o + j * w + i) }
            }
            return
        }
        if eightBit {
            // The first stage's sums kept in 16 bits for the second stage's 16-bit products.
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: bh * w) { temp in
                guard let t = temp.baseAddress else { return }
                for r in 0..<bh {
                    let row = win + r * bw
                    for i in stride(from: 0, to: w, by: 8) {
                        UnsafeMutableRawPointer(t + r * w + i).storeBytes(of: fX.sum8Of8Bit(row + i, 1, luma: luma), as: SIMD8<Int16>.self)
                    }
                }
                for j in 0..<h {
                    for i in stride(from: 0, to: w, by: 8) { store(fY.apply8(UnsafePointer(t + j * w + i), w, luma: luma) &>> 6, o + j * w + i) }
                }
            }
            return
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: bh * w) { temp in
            guard let t = temp.baseAddress else { return }
            for r in 0..<bh {
                let row = win + r * bw
                for i in stride(from: 0, to: w, by: 8) { store(filtered(fX, row + i, 1), t + r * w + i) }
            }
            for j in 0..<h {
                for i in stride(from: 0, to: w, by: 8) { store(fY.apply8(UnsafePointer(t + j * w + i), w, luma: luma) &>> 6, o + j * w + i) }
            }
        }
    }

    /// Default weighted prediction: one list, or the average of two, back to sample values, in place of `p0`.
    static func weighted(_ p0: inout [Int32], _ p1: [Int32]?, count: Int, bitDepth: Int) {
        let maxValue = Int32((1 << bitDepth) - 1)
        p0.withUnsafeMutableBufferPointer { o in
            if let p1 {
                let shift = Int32(15 - bitDepth), offset = Int32(1) << (shift - 1)
                p1.withUnsafeBufferPointer { b in
                    for i in 0..<count { o[i] = min(max((o[i] &+ b[i] &+ offset) &>> shift, 0), maxValue) }
                }
            } else {
                let shift = Int32(14 - bitDepth), offset = Int32(1) << (shift - 1)
                for i in 0..<count { o[i] = min(max((o[i] &+ offset) &>> shift, 0), maxValue) }
            }
        }
    }
}
