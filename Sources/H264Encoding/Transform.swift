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

    /// Forward core transform (the inverse of 8.5.12.2 up to scaling).
    @inline(__always) static func forward4x4(_ b: UnsafeMutablePointer<Int32>) {
        for r in 0..<4 {
            let p = b + 4 * r
            let s03 = p[0] &+ p[3], s12 = p[1] &+ p[2], d03 = p[0] &- p[3], d12 = p[1] &- p[2]
            p[0] = s03 &+ s12; p[2] = s03 &- s12; p[1] = 2 &* d03 &+ d12; p[3] = d03 &- 2 &* d12
        }
        for c in 0..<4 {
            let p = b + c
            let s03 = p[0] &+ p[12], s12 = p[4] &+ p[8], d03 = p[0] &- p[12], d12 = p[4] &- p[8]
            p[0] = s03 &+ s12; p[8] = s03 &- s12; p[4] = 2 &* d03 &+ d12; p[12] = d03 &- 2 &* d12
        }
    }

    /// Residual (src − pred) and forward core transform of the sixteen 4x4 blocks of a 16x16 block at
    /// once: block (x4, y4) lands in `coef[16 · (x4 + 4 · y4)...]`, raster, equal to ``forward4x4(_:)`` of
    /// its residual. Rows as even/odd Int16 lanes, lane k of each vector being block k of a block row;
    /// exact in Int16 (|coefficient| ≤ 36 · 255).
    static func forward16x16(src: UnsafePointer<UInt8>, srcStride: Int, pred: UnsafePointer<UInt8>, predStride: Int,
                             coef: UnsafeMutablePointer<Int32>) {
        for g in 0..<4 {
            forwardFourBlocks({ r in MotionSearch.diff16(src + (4 * g + r) * srcStride, pred + (4 * g + r) * predStride) },
                              into: { b in coef + 64 * g + 16 * b })
        }
    }

    /// The same for the 8x8 Cb and Cr blocks of a macroblock (prediction rows 8 apart): block blk (raster
    /// 0...3) of component c (0 Cb, 1 Cr) lands in `coef[16 · (4 · c + blk)...]`.
    static func forwardChroma(srcCb: UnsafePointer<UInt8>, srcCr: UnsafePointer<UInt8>, srcStride: Int,
                              predCb: UnsafePointer<UInt8>, predCr: UnsafePointer<UInt8>, coef: UnsafeMutablePointer<Int32>) {
        @inline(__always) func half(_ p: UnsafePointer<UInt8>) -> SIMD4<Int16> { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Int16>.self) }
        let low = SIMD8<Int16>(repeating: 0xFF)
        for g in 0..<2 {
            // one 16-sample row: the Cb row, then the Cr row
            forwardFourBlocks({ r in
                let y = 4 * g + r
                let s = SIMD8(lowHalf: half(srcCb + y * srcStride), highHalf: half(srcCr + y * srcStride))
                let p = SIMD8(lowHalf: half(predCb + y * 8), highHalf: half(predCr + y * 8))
                return ((s & low) &- (p & low), ((s &>> 8) & low) &- ((p &>> 8) & low))
            }, into: { b in coef + 16 * (4 * (b >> 1) + 2 * g + (b & 1)) })
        }
    }

    /// Forward transform of four horizontally adjacent 4x4 residual blocks given as four rows of 16
    /// differences (even and odd columns); block b into `out(b)`, raster.
    @inline(__always) private static func forwardFourBlocks(_ row: (Int) -> (even: SIMD8<Int16>, odd: SIMD8<Int16>),
                                                            into out: (Int) -> UnsafeMutablePointer<Int32>) {
        typealias V = SIMD4<Int16>
        @inline(__always) func butterfly(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
            let s03 = a &+ d, s12 = b &+ c, d03 = a &- d, d12 = b &- c
            return (s03 &+ s12, 2 &* d03 &+ d12, s03 &- s12, d03 &- 2 &* d12)
        }
        @inline(__always) func rowTransform(_ r: Int) -> (V, V, V, V) {
            let d = row(r)
            return butterfly(d.even.evenHalf, d.odd.evenHalf, d.even.oddHalf, d.odd.oddHalf)
        }
        let r0 = rowTransform(0), r1 = rowTransform(1), r2 = rowTransform(2), r3 = rowTransform(3)
        let c0 = butterfly(r0.0, r1.0, r2.0, r3.0), c1 = butterfly(r0.1, r1.1, r2.1, r3.1)
        let c2 = butterfly(r0.2, r1.2, r2.2, r3.2), c3 = butterfly(r0.3, r1.3, r2.3, r3.3)
        // Row r of block b is lane b of (c0.r, c1.r, c2.r, c3.r): the four vectors widened to Int32 and
        // transposed (unpacks), each block's row stored whole, not lane by lane.
        @inline(__always) func widen(_ v: V) -> SIMD4<Int32> {
            unsafeBitCast(SIMD8<Int16>(0, v[0], 0, v[1], 0, v[2], 0, v[3]), to: SIMD4<Int32>.self) &>> 16
        }
        @inline(__always) func storeRow(_ r: Int, _ a: V, _ b: V, _ c: V, _ d: V) {
            let rows = transposed((widen(a), widen(b), widen(c), widen(d)))
            UnsafeMutableRawPointer(out(0) + 4 * r).storeBytes(of: rows.0, as: SIMD4<Int32>.self)
            UnsafeMutableRawPointer(out(1) + 4 * r).storeBytes(of: rows.1, as: SIMD4<Int32>.self)
            UnsafeMutableRawPointer(out(2) + 4 * r).storeBytes(of: rows.2, as: SIMD4<Int32>.self)
            UnsafeMutableRawPointer(out(3) + 4 * r).storeBytes(of: rows.3, as: SIMD4<Int32>.self)
        }
        storeRow(0, c0.0, c1.0, c2.0, c3.0)
        storeRow(1, c0.1, c1.1, c2.1, c3.1)
        storeRow(2, c0.2, c1.2, c2.2, c3.2)
        storeRow(3, c0.3, c1.3, c2.3, c3.3)
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

        /// The coefficients are the forward transform's, |c| ≤ 36 · 255: with MF < 2^15 the product is one
        /// pmaddwd per four lanes (``pairProduct(_:_:)``).
        @inline(__always) func quantize(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, first: Int = 0) -> Int {
            let c = UnsafeRawPointer(coef).loadUnaligned(as: SIMD16<Int32>.self)
            let sign = c &>> 31  // −1 where negative: (x ^ sign) − sign is |x|, then the sign again
            let magnitude = (c ^ sign) &- sign
            // Every |c| below the least that quantises to non-zero (all of |c| − that negative): all levels 0,
            // found without the multiplies (most inter blocks).
            let below = magnitude &- nonZeroFrom
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

    /// Quantises a DC block of `count` values (luma 16, chroma 4).
    static func quantizeDC(_ coef: UnsafeMutablePointer<Int32>, levels: UnsafeMutablePointer<Int32>, count: Int, qp: Int, deadZone: Int32) -> Int {
        let shift = Int32(16 + qp / 6)
        let f = (Int32(1) << shift) * deadZone / 64
        let m = mfDC(qp)
        var nonZero = 0
        for i in 0..<count {
            let c = coef[i]
            let a = min(Int32((Int64(abs(c)) * Int64(m) + Int64(f)) >> Int64(shift)), maxLevel)
            levels[i] = c < 0 ? -a : a
            if a != 0 { nonZero += 1 }
        }
        return nonZero
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
        b[0] = a + c1 + c2 + d; b[1] = a - c1 + c2 - d; b[2] = a + c1 - c2 - d; b[3] = a - c1 - c2 + d
    }

    /// Levels c → dcC (8.5.11.2, 4:2:0).
    static func inverseChromaDC(_ c: UnsafePointer<Int32>, into dc: UnsafeMutablePointer<Int32>, qp: Int) {
        for i in 0..<4 { dc[i] = c[i] }
        hadamard2x2(dc)
        let ls = levelScaleDC(qp)
        for i in 0..<4 { dc[i] = ((dc[i] * ls) << Int32(qp / 6)) >> 5 }
    }
}
