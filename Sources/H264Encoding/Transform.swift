/// The 4x4 integer transforms, the luma DC (Intra16x16) and chroma DC Hadamards, quantisation with a
/// dead zone and the decoder's scaling (8.5), for flat scaling matrices. Blocks are 16 Int32 in raster order.
enum Transform {
    /// Quantisation multipliers MF for QP % 6, by position class (0: even/even, 1: odd/odd, 2: other).
    private static let mf: [[Int32]] = [[13107, 5243, 8066], [11916, 4660, 7490], [10082, 4194, 6554],
                                        [9362, 3647, 5825], [8192, 3355, 5243], [7282, 2893, 4559]]
    /// normAdjust4x4 v (8.5.9) for QP % 6, by the same position class; LevelScale4x4 = 16 · v (flat).
    private static let v: [[Int32]] = [[10, 16, 13], [11, 18, 14], [13, 20, 16], [14, 23, 18], [16, 25, 20], [18, 29, 23]]
    private static func positionClass(_ i: Int) -> Int {
        let x = i & 3, y = i >> 2
        if x & 1 == 0 && y & 1 == 0 { return 0 }
        return x & 1 == 1 && y & 1 == 1 ? 1 : 2
    }
    /// [qp][raster position] for QP 0...51.
    static let quantMF: [[Int32]] = (0..<52).map { qp in (0..<16).map { mf[qp % 6][positionClass($0)] } }
    /// Dequantisation factor v << (QP / 6) per [qp][raster position] (8.5.12.1 with flat matrices).
    static let dequant: [[Int32]] = (0..<52).map { qp in (0..<16).map { v[qp % 6][positionClass($0)] << (qp / 6) } }
    /// LevelScale4x4(qP % 6, 0, 0) = 16 · v(0,0), for the DC scaling of 8.5.10 / 8.5.11.
    static func levelScaleDC(_ qp: Int) -> Int32 { 16 * v[qp % 6][0] }
    static func mfDC(_ qp: Int) -> Int32 { mf[qp % 6][0] }

    /// QPc for qPI (Table 8-15).
    static func chromaQP(lumaQP: Int, offset: Int) -> Int {
        let qPI = min(max(lumaQP + offset, 0), 51)
        if qPI < 30 { return qPI }
        return [29, 30, 31, 32, 32, 33, 34, 34, 35, 35, 36, 36, 37, 37, 37, 38, 38, 38, 39, 39, 39, 39][qPI - 30]
    }

    /// Forward core transform (the inverse of 8.5.12.2 up to scaling), in place: rows, then columns, each
    /// pass one butterfly over four vectors with the block transposed before it (as ``inverse4x4(_:)``).
    @inline(__always) static func forward4x4(_ b: UnsafeMutablePointer<Int32>) {
        @inline(__always) func row(_ r: Int) -> SIMD4<Int32> { UnsafeRawPointer(b + 4 &* r).loadUnaligned(as: SIMD4<Int32>.self) }
        @inline(__always) func butterfly(_ v: Rows4x4) -> Rows4x4 {
            let s03 = v.0 &+ v.3, s12 = v.1 &+ v.2, d03 = v.0 &- v.3, d12 = v.1 &- v.2
            return (s03 &+ s12, 2 &* d03 &+ d12, s03 &- s12, d03 &- 2 &* d12)
        }
        let horizontal = butterfly(transposed((row(0), row(1), row(2), row(3))))  // vector k: column k
        let vertical = butterfly(transposed(horizontal))  // vector k: row k
        @inline(__always) func store(_ r: Int, _ v: SIMD4<Int32>) { UnsafeMutableRawPointer(b + 4 &* r).storeBytes(of: v, as: SIMD4<Int32>.self) }
        store(0, vertical.0); store(1, vertical.1); store(2, vertical.2); store(3, vertical.3)
    }

    /// The 4x4 residual src − pred into `coef` (raster), a row of four bytes at a time.
    @inline(__always) static func residual4x4(src: UnsafePointer<UInt8>, srcStride: Int, pred: UnsafePointer<UInt8>, predStride: Int,
                                              into coef: UnsafeMutablePointer<Int32>) {
        for r in 0..<4 {
            UnsafeMutableRawPointer(coef + 4 &* r).storeBytes(of: fourSamples(src + r &* srcStride) &- fourSamples(pred + r &* predStride),
                                                              as: SIMD4<Int32>.self)
        }
    }

    /// Four 8-bit samples in Int32 lanes, loaded at once.
    @inline(__always) static func fourSamples(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
        SIMD4(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    /// Residual (src − pred) and forward core transform of the sixteen 4x4 blocks of a 16x16 block at
    /// once: block (x4, y4) lands in `coef[16 · (x4 + 4 · y4)...]`, raster, equal to ``forward4x4(_:)`` of
    /// its residual. Exact in Int16 (|coefficient| ≤ 36 · 255). Returns the blocks (bit x4 + 4 · y4) with
    /// some |coefficient| ≥ `threshold` (``Quantizer/nonZeroFrom``): the others quantise to all zeros.
    @discardableResult
    static func forward16x16(src: UnsafePointer<UInt8>, srcStride: Int, pred: UnsafePointer<UInt8>, predStride: Int,
                             coef: UnsafeMutablePointer<Int32>, reaching threshold: Int32 = 0) -> UInt16 {
        @inline(__always) func bytes(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self) }
        let t = lanes(threshold)
        var reaching: UInt16 = 0
        for g in 0..<4 {
            let four = forwardFourBlocks({ r in
                residual(bytes(src + (4 &* g &+ r) &* srcStride), bytes(pred + (4 &* g &+ r) &* predStride))
            }, into: { b in coef + 64 * g + 16 * b }, reaching: (t, t), acOnly: false)
            reaching |= UInt16(four) << UInt16(4 * g)
        }
        return reaching
    }

    /// A threshold t for ``forwardFourBlocks(_:into:reaching:acOnly:)`` as t − 1 in every lane, t at most
    /// 2^14 (above every |coefficient|).
    @inline(__always) private static func lanes(_ threshold: Int32) -> SIMD8<Int16> {
        SIMD8(repeating: Int16(truncatingIfNeeded: min(threshold, 1 << 14) &- 1))
    }

    /// The same for the 8x8 Cb and Cr blocks of a macroblock (prediction rows 8 apart): block blk (raster
    /// 0...3) of component c (0 Cb, 1 Cr) lands in `coef[16 · (4 · c + blk)...]`. Returns the blocks (bit
    /// 4 · c + blk) with some AC |coefficient| ≥ the component's threshold (``Quantizer/nonZeroFrom``).
    static func forwardChroma(srcCb: UnsafePointer<UInt8>, srcCr: UnsafePointer<UInt8>, srcStride: Int,
                              predCb: UnsafePointer<UInt8>, predCr: UnsafePointer<UInt8>, coef: UnsafeMutablePointer<Int32>,
                              reaching thresholds: (cb: Int32, cr: Int32)) -> UInt8 {
        @inline(__always) func row(_ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>) -> SIMD16<UInt8> { halves(cb, cr) }
        let t = (lanes(thresholds.cb), lanes(thresholds.cr))
        var reaching: UInt8 = 0
        for g in 0..<2 {
            // one 16-sample row: the Cb row, then the Cr row
            let four = forwardFourBlocks({ r in
                let y = 4 * g + r
                return residual(row(srcCb + y &* srcStride, srcCr + y &* srcStride), row(predCb + y &* 8, predCr + y &* 8))
            }, into: { b in coef + 16 * (4 * (b >> 1) + 2 * g + (b & 1)) }, reaching: t, acOnly: true)
            reaching |= ((four & 3) | (four & 12) << 2) << UInt8(2 * g)  // block b → bit 4 · (b >> 1) + 2 · g + (b & 1)
        }
        return reaching
    }

    /// src − pred of 16 samples in Int16: samples 0...7, then 8...15.
    @inline(__always) private static func residual(_ src: SIMD16<UInt8>, _ pred: SIMD16<UInt8>) -> (SIMD8<Int16>, SIMD8<Int16>) {
        let s = DeblockingLanes.widen(src), p = DeblockingLanes.widen(pred)
        return (s.low &- p.low, s.high &- p.high)
    }

    /// Forward transform of four horizontally adjacent 4x4 residual blocks given as four rows of 16
    /// differences (samples 0...7, 8...15); block b into `out(b)`, raster. Each vector holds one row (or
    /// column) of two blocks side by side: transposed, the horizontal butterfly, transposed back, the
    /// vertical butterfly (the integer transform is exact in either order). Returns the blocks (bit b) with
    /// some |coefficient| ≥ the threshold of their half (`reaching.0` blocks 0, 1; `.1` blocks 2, 3), the DC
    /// left out when `acOnly`.
    @inline(__always) private static func forwardFourBlocks(_ row: (Int) -> (SIMD8<Int16>, SIMD8<Int16>),
                                                            into out: (Int) -> UnsafeMutablePointer<Int32>,
                                                            reaching thresholds: (SIMD8<Int16>, SIMD8<Int16>), acOnly: Bool) -> UInt8 {  // thresholds as ``lanes(_:)``
        typealias V = SIMD8<Int16>
        @inline(__always) func butterfly(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
            let s03 = a &+ d, s12 = b &+ c, d03 = a &- d, d12 = b &- c
            return (s03 &+ s12, (d03 &<< 1) &+ d12, s03 &- s12, d03 &- (d12 &<< 1))
        }
        /// Blocks A and B as four rows (lanes 0...3: A, 4...7: B) into four columns, or back.
        @inline(__always) func transposed(_ m: (V, V, V, V)) -> (V, V, V, V) {
            @inline(__always) func low16(_ a: V, _ b: V) -> V { V(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]) }
            @inline(__always) func high16(_ a: V, _ b: V) -> V { V(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]) }
            typealias W = SIMD4<Int32>
            @inline(__always) func w(_ v: V) -> W { unsafeBitCast(v, to: W.self) }
            @inline(__always) func v(_ x: W) -> V { unsafeBitCast(x, to: V.self) }
            let a01 = w(low16(m.0, m.1)), a23 = w(low16(m.2, m.3)), b01 = w(high16(m.0, m.1)), b23 = w(high16(m.2, m.3))
            // A's columns 0, 1 and 2, 3; B's likewise
            let a0 = W(a01[0], a23[0], a01[1], a23[1]), a1 = W(a01[2], a23[2], a01[3], a23[3])
            let b0 = W(b01[0], b23[0], b01[1], b23[1]), b1 = W(b01[2], b23[2], b01[3], b23[3])
            @inline(__always) func q(_ x: W) -> SIMD2<UInt64> { unsafeBitCast(x, to: SIMD2<UInt64>.self) }
            @inline(__always) func join(_ x: UInt64, _ y: UInt64) -> V { unsafeBitCast(SIMD2(x, y), to: V.self) }
            return (join(q(a0)[0], q(b0)[0]), join(q(a0)[1], q(b0)[1]), join(q(a1)[0], q(b1)[0]), join(q(a1)[1], q(b1)[1]))
        }
        /// The sign bit set in the lanes of |v| ≥ t: v + t − 1 or t − 1 − v negative (`t1` is t − 1; no
        /// overflow: |v| < 2^14, t ≤ 2^14).
        @inline(__always) func outside(_ v: V, _ t1: V) -> V { (v &+ t1) | (t1 &- v) }
        let kept = acOnly ? V(0, -1, -1, -1, 0, -1, -1, -1) : V(repeating: -1)  // the DC left out of the test
        var reaching: UInt8 = 0
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
        for pair in 0..<2 {  // blocks 0, 1 from the low halves, 2, 3 from the high ones
            let rows = pair == 0 ? (r0.0, r1.0, r2.0, r3.0) : (r0.1, r1.1, r2.1, r3.1)
            let columns = transposed(rows)
            let horizontal = transposed(butterfly(columns.0, columns.1, columns.2, columns.3))  // vector r: row r
            let coefficients = butterfly(horizontal.0, horizontal.1, horizontal.2, horizontal.3)
            let a = out(2 * pair), b = out(2 * pair + 1)
            @inline(__always) func store(_ i: Int, _ v: V) {
                UnsafeMutableRawPointer(a + 4 * i).storeBytes(of: widen(v.lowHalf), as: SIMD4<Int32>.self)
                UnsafeMutableRawPointer(b + 4 * i).storeBytes(of: widen(v.highHalf), as: SIMD4<Int32>.self)
            }
            store(0, coefficients.0); store(1, coefficients.1); store(2, coefficients.2); store(3, coefficients.3)
            let t = pair == 0 ? thresholds.0 : thresholds.1
            let any = outside(coefficients.0 & kept, t) | outside(coefficients.1, t) | outside(coefficients.2, t) | outside(coefficients.3, t)
            let signs = unsafeBitCast(any & V(repeating: Int16.min), to: SIMD2<UInt64>.self)
            @inline(__always) func nonZero(_ x: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: (x | (0 &- x)) >> 63) }  // branch-free
            reaching |= (nonZero(signs[0]) | nonZero(signs[1]) << 1) << UInt8(2 * pair)
        }
        return reaching
    }

    /// Inverse transform of scaled coefficients d (8.5.12.2): rows, then columns, then (x + 32) >> 6; the
    /// residual rows. Each pass is one butterfly over four vectors, the block transposed before each.
    @inline(__always) static func inverse4x4(_ d: UnsafePointer<Int32>) -> Rows4x4 {
        @inline(__always) func row(_ r: Int) -> SIMD4<Int32> { UnsafeRawPointer(d + 4 * r).loadUnaligned(as: SIMD4<Int32>.self) }
        @inline(__always) func butterfly(_ v: Rows4x4) -> Rows4x4 {
            let e0 = v.0 &+ v.2, e1 = v.0 &- v.2, e2 = (v.1 &>> 1) &- v.3, e3 = v.1 &+ (v.3 &>> 1)
            return (e0 &+ e3, e1 &+ e2, e1 &- e2, e0 &- e3)
        }
        let horizontal = butterfly(transposed((row(0), row(1), row(2), row(3))))  // vector k: column k
        let vertical = butterfly(transposed(horizontal))  // vector k: row k
        return ((vertical.0 &+ 32) &>> 6, (vertical.1 &+ 32) &>> 6, (vertical.2 &+ 32) &>> 6, (vertical.3 &+ 32) &>> 6)
    }

    typealias Rows4x4 = (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>)

    @inline(__always) static func transposed(_ m: Rows4x4) -> Rows4x4 {
        (SIMD4(m.0[0], m.1[0], m.2[0], m.3[0]), SIMD4(m.0[1], m.1[1], m.2[1], m.3[1]),
         SIMD4(m.0[2], m.1[2], m.2[2], m.3[2]), SIMD4(m.0[3], m.1[3], m.2[3], m.3[3]))
    }

    static let quantMFVector: [SIMD16<Int32>] = quantMF.map { SIMD16($0) }
    static let dequantVector: [SIMD16<Int32>] = dequant.map { SIMD16($0) }
    /// The largest |level| the engine codes: CAVLC's level_prefix then stays ≤ 15, as Baseline, Main
    /// and Extended require (9.2.2.1); the reconstruction uses the same clamped level.
    static let maxLevel: Int32 = 2063
    private static let acOnly = SIMD16<Int32>(0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)

    /// Per dead zone (64ths, 0...64) and QP: the least |coefficient| that can quantise to a non-zero
    /// level at any position (the largest MF is at position 0).
    static let nonZeroFrom: [[Int32]] = (0...64).map { deadZone in
        (0..<52).map { qp in
            let shift = Int32(15 + qp / 6), f = (Int32(1) << shift) &* Int32(deadZone) / 64, mf = quantMF[qp][0]
            return ((Int32(1) << shift) - f + mf - 1) / mf
        }
    }

    /// Quantises coefficients from position `first` on (0 or 1; below it levels are 0): levels
    /// (raster) into `levels`, dead zone `deadZone` in 64ths of a step. Returns how many are non-zero.
    @inline(__always) static func quantize4x4(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, qp: Int,
                                              deadZone: Int32, first: Int = 0) -> Int {
        Quantizer(qp: qp, deadZone: deadZone).quantize(coef, levels: levels, first: first)
    }

    /// ``quantize4x4(_:levels:qp:deadZone:first:)`` for one QP and dead zone, its tables read once for many blocks.
    struct Quantizer {
        let shift: Int32, f: Int32
        /// The least |coefficient| that can quantise to a non-zero level (``nonZeroFrom``).
        let nonZeroFrom: Int32
        let mf: SIMD16<Int32>

        @inline(__always) init(qp: Int, deadZone: Int32) {
            shift = Int32(15 + qp / 6)
            f = (Int32(1) << shift) &* deadZone / 64
            nonZeroFrom = Transform.nonZeroFrom[Int(deadZone)][qp]
            mf = quantMFVector[qp]
        }

        /// ``quantize(_:levels:first:)`` of a block that ``forward16x16(src:srcStride:pred:predStride:coef:reaching:)``
        /// or ``forwardChroma(srcCb:srcCr:srcStride:predCb:predCr:coef:reaching:)`` found `reaching` or not:
        /// all levels 0 without a look at the coefficients when it is not.
        @inline(__always) func quantize(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, first: Int = 0,
                                        reaching: Bool) -> Int {
            guard reaching else {
                UnsafeMutableRawPointer(levels).storeBytes(of: .zero, as: SIMD16<Int32>.self)
                return 0
            }
            return quantize(coef, levels: levels, first: first)
        }

        /// The coefficients are the forward transform's, |c| ≤ 36 · 255: with MF < 2^15 the product is one
        /// pmaddwd per four lanes (``pairProduct(_:_:)``).
        @inline(__always) func quantize(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, first: Int = 0) -> Int {
            let c = UnsafeRawPointer(coef).loadUnaligned(as: SIMD16<Int32>.self)
            let sign = c &>> 31  // −1 where negative: (x ^ sign) − sign is |x|, then the sign again
            let magnitude = (c ^ sign) &- sign
            // Every |c| below the least that quantises to non-zero (all of |c| − that negative): all levels 0,
            // found without the multiplies (most inter blocks).
            // (From position 1 the DC lane counts as below: its level is 0 whatever it is.)
            let below = (magnitude &- nonZeroFrom) | (first == 1 ? ~acOnly : .zero)
            let both = below.lowHalf & below.highHalf, four = both.lowHalf & both.highHalf
            if (four[0] & four[1] & four[2] & four[3]) < 0 {
                UnsafeMutableRawPointer(levels).storeBytes(of: .zero, as: SIMD16<Int32>.self)
                return 0
            }
            var a = (pairProduct(magnitude, mf) &+ f) &>> shift
            let excess = a &- maxLevel
            a &-= excess & ~(excess &>> 31)  // min(a, maxLevel)
            if first == 1 { a &= acOnly }
            UnsafeMutableRawPointer(levels).storeBytes(of: (a ^ sign) &- sign, as: SIMD16<Int32>.self)
            return Int(((0 &- a) &>> 31).wrappedSum().magnitude)  // −1 per non-zero (a ≥ 0)
        }
    }

    /// a · b lane by lane for |a| < 2^14 and 0 ≤ b < 2^15 (levels ≤ ``maxLevel``, coefficients ≤ 64 · 255,
    /// MF and scales): the masks change no such value but tell LLVM that both fit 16 bits, so the Int32
    /// multiply (pmuludq pairs and shuffles on SSE2) becomes one pmaddwd per four lanes.
    @inline(__always) static func pairProduct(_ a: SIMD16<Int32>, _ b: SIMD16<Int32>) -> SIMD16<Int32> {
        ((a &<< 17) &>> 17) &* (b & 0x7FFF)
    }

    /// Scales levels (raster) into d for the inverse transform (8.5.12.1), from position `first`.
    @inline(__always) static func dequantize4x4(_ levels: UnsafePointer<Int32>, into d: UnsafeMutablePointer<Int32>, qp: Int, first: Int = 0) {
        let dc = d[0]
        let v = pairProduct(UnsafeRawPointer(levels).loadUnaligned(as: SIMD16<Int32>.self), dequantVector[qp])
        UnsafeMutableRawPointer(d).storeBytes(of: v, as: SIMD16<Int32>.self)
        if first == 1 { d[0] = dc }
    }

    /// 8 bytes at `low`, then 8 at `high`, as one vector (two movq and a punpcklqdq; two UInt64 loads put in a SIMD2
    /// compile to a broadcast and a masked blend).
    @inline(__always) static func halves(_ low: UnsafePointer<UInt8>, _ high: UnsafePointer<UInt8>) -> SIMD16<UInt8> {
        SIMD16(lowHalf: UnsafeRawPointer(low).loadUnaligned(as: SIMD8<UInt8>.self), highHalf: UnsafeRawPointer(high).loadUnaligned(as: SIMD8<UInt8>.self))
    }

    /// Int16 lanes sign-extended to Int32 (punpck and an arithmetic shift).
    @inline(__always) static func widen(_ v: SIMD4<Int16>) -> SIMD4<Int32> {
        unsafeBitCast(SIMD8<Int16>(0, v[0], 0, v[1], 0, v[2], 0, v[3]), to: SIMD4<Int32>.self) &>> 16
    }

    /// Clip1Y(pred + r) of 8.5.14 into four rows of dst, r the residual rows of ``inverse4x4(_:)``.
    @inline(__always) static func addResidual4x4(_ residual: Rows4x4, pred: UnsafePointer<UInt8>, predStride: Int,
                                                 dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func samples(_ r: Int) -> SIMD4<Int32> { fourSamples(pred + r &* predStride) }
        @inline(__always) func store(_ r: Int, _ v: SIMD4<Int32>) {
            let q = dst + r &* dstStride
            q[0] = UInt8(truncatingIfNeeded: v[0]); q[1] = UInt8(truncatingIfNeeded: v[1])
            q[2] = UInt8(truncatingIfNeeded: v[2]); q[3] = UInt8(truncatingIfNeeded: v[3])
        }
        let top = clip1(SIMD8(lowHalf: samples(0) &+ residual.0, highHalf: samples(1) &+ residual.1))
        let bottom = clip1(SIMD8(lowHalf: samples(2) &+ residual.2, highHalf: samples(3) &+ residual.3))
        store(0, top.lowHalf); store(1, top.highHalf); store(2, bottom.lowHalf); store(3, bottom.highHalf)
    }

    /// Clip1Y of 8.5.14 for 8-bit samples: x clipped to 0...255, branch-free in Int32 lanes (SSE2 has no
    /// pminsd / pmaxsd).
    @inline(__always) static func clip1(_ x: SIMD8<Int32>) -> SIMD8<Int32> {
        let positive = x & ~(x &>> 31)
        let over = (255 &- positive) &>> 31  // −1 above 255
        return (positive & ~over) | (255 & over)
    }

    /// The residual of a 4x4 block whose only non-zero scaled coefficient is d00 (8.5.12.2): both passes
    /// spread it unchanged, so every sample is (d00 + 32) >> 6.
    @inline(__always) static func inverseDCOnly4x4(_ dc: Int32) -> Rows4x4 {
        let r = SIMD4<Int32>(repeating: (dc &+ 32) &>> 6)
        return (r, r, r, r)
    }

    /// The prediction as the reconstruction of rows without residual (8.5.14 with r = 0: Clip1(pred) = pred),
    /// `width` 8 or 16 samples a row.
    @inline(__always) static func copyPrediction(rows: Int, width: Int, pred: UnsafePointer<UInt8>, predStride: Int,
                                                 dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        for r in 0..<rows {
            let p = UnsafeRawPointer(pred + r &* predStride), q = UnsafeMutableRawPointer(dst + r &* dstStride)
            if width == 16 {
                q.storeBytes(of: p.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            } else {
                q.storeBytes(of: p.loadUnaligned(as: UInt64.self), as: UInt64.self)
            }
        }
    }

    // MARK: Intra16x16 luma DC (8.5.10)

    /// Forward Hadamard of the 16 DC coefficients (raster of blocks), halved with rounding.
    static func forwardLumaDC(_ b: UnsafeMutablePointer<Int32>) {
        hadamard4x4(b)
        for i in 0..<16 { b[i] = (b[i] + (b[i] > 0 ? 1 : 0)) >> 1 }
    }

    static func hadamard4x4(_ b: UnsafeMutablePointer<Int32>) {
        for r in 0..<4 {
            let p = b + 4 * r
            let s01 = p[0] &+ p[1], d01 = p[0] &- p[1], s23 = p[2] &+ p[3], d23 = p[2] &- p[3]
            p[0] = s01 &+ s23; p[1] = s01 &- s23; p[2] = d01 &- d23; p[3] = d01 &+ d23
        }
        for c in 0..<4 {
            let p = b + c
            let s01 = p[0] &+ p[4], d01 = p[0] &- p[4], s23 = p[8] &+ p[12], d23 = p[8] &- p[12]
            p[0] = s01 &+ s23; p[4] = s01 &- s23; p[8] = d01 &- d23; p[12] = d01 &+ d23
        }
    }

    /// Quantises a DC block of `count` values (luma 16, chroma 4), four lanes at a time. Exact in Int32:
    /// |DC| ≤ 16 · 4080 / 2 (luma) or 4 · 4080 (chroma), MF ≤ 13107 and f ≤ 2^24 · 21 / 64 (the
    /// dead zones), so |DC| · MF + f < 2^31.
    static func quantizeDC(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, count: Int, qp: Int, deadZone: Int32) -> Int {
        let shift = Int32(16 + qp / 6)
        let f = ((Int32(1) << shift) &* deadZone) / 64
        let m = mfDC(qp)
        var nonZero = SIMD4<Int32>.zero
        for i in stride(from: 0, to: count, by: 4) {
            let c = UnsafeRawPointer(coef + i).loadUnaligned(as: SIMD4<Int32>.self)
            let sign = c &>> 31
            var a = (((c ^ sign) &- sign) &* m &+ f) &>> shift
            let excess = a &- maxLevel
            a &-= excess & ~(excess &>> 31)  // min(a, maxLevel)
            UnsafeMutableRawPointer(levels + i).storeBytes(of: (a ^ sign) &- sign, as: SIMD4<Int32>.self)
            nonZero &+= (0 &- a) &>> 31  // −1 per non-zero (a ≥ 0)
        }
        return Int(nonZero.wrappedSum().magnitude)
    }

    /// Levels c (raster) → dcY (raster), 8.5.10.
    static func inverseLumaDC(_ c: UnsafePointer<Int32>, into dc: UnsafeMutablePointer<Int32>, qp: Int) {
        for i in 0..<16 { dc[i] = c[i] }
        hadamard4x4(dc)
        let ls = levelScaleDC(qp)
        if qp >= 36 {
            let s = Int32(qp / 6 - 6)
            for i in 0..<16 { dc[i] = (dc[i] * ls) << s }
        } else {
            let s = Int32(6 - qp / 6), r = Int32(1) << (s - 1)
            for i in 0..<16 { dc[i] = (dc[i] * ls + r) >> s }
        }
    }

    // MARK: Chroma DC 2x2 (8.5.11)

    static func hadamard2x2(_ b: UnsafeMutablePointer<Int32>) {
        let a = b[0], c1 = b[1], c2 = b[2], d = b[3]
        b[0] = a &+ c1 &+ c2 &+ d; b[1] = a &- c1 &+ c2 &- d; b[2] = a &+ c1 &- c2 &- d; b[3] = a &- c1 &- c2 &+ d
    }

    /// Levels c → dcC (8.5.11.2, 4:2:0).
    static func inverseChromaDC(_ c: UnsafePointer<Int32>, into dc: UnsafeMutablePointer<Int32>, qp: Int) {
        for i in 0..<4 { dc[i] = c[i] }
        hadamard2x2(dc)
        let ls = levelScaleDC(qp)
        for i in 0..<4 { dc[i] = ((dc[i] &* ls) << Int32(qp / 6)) >> 5 }
    }
}
