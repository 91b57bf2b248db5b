/// The 8x8 luma transform of High profile (8.5.13): forward transform, quantisation with a dead zone,
/// the decoder's scaling (LevelScale8x8, flat matrices) and inverse transform. Blocks are 64 Int32 in
/// raster order.
enum Transform8x8 {
    /// normAdjust8x8 v (8.5.13.1, Table 8-16 style classes) for qP % 6, by ``positionClass(_:)``;
    /// LevelScale8x8 = 16 · v with flat weightScale8x8.
    private static let v: [[Int32]] = [[20, 18, 32, 19, 25, 24], [22, 19, 35, 21, 28, 26], [26, 23, 42, 24, 33, 31],
                                       [28, 25, 45, 26, 35, 33], [32, 28, 51, 30, 40, 38], [36, 32, 58, 34, 46, 43]]

    /// The class of normAdjust8x8(m, i, j) (8.5.13.1): 0 both ≡ 0 (mod 4), 1 both odd, 2 both ≡ 2 (mod 4),
    /// 3 one ≡ 0 (mod 4) and the other odd, 4 one ≡ 0 and the other ≡ 2 (mod 4), 5 otherwise.
    static func positionClass(_ raster: Int) -> Int {
        let i = raster >> 3, j = raster & 7
        if i % 4 == 0 && j % 4 == 0 { return 0 }
        if i % 2 == 1 && j % 2 == 1 { return 1 }
        if i % 4 == 2 && j % 4 == 2 { return 2 }
        if (i % 4 == 0 && j % 2 == 1) || (i % 2 == 1 && j % 4 == 0) { return 3 }
        if (i % 4 == 0 && j % 4 == 2) || (i % 4 == 2 && j % 4 == 0) { return 4 }
        return 5
    }

    /// Squared norms of the rows of the forward transform below (equal to the inverse's basis vectors):
    /// 8 for rows 0 and 4, 5 for rows 2 and 6, 289/32 for the odd rows.
    private static let norm: [Double] = [8, 289.0 / 32, 5, 289.0 / 32, 8, 289.0 / 32, 5, 289.0 / 32]

    /// LevelScale8x8(qP % 6, i, j) with flat matrices, per [qP % 6][raster].
    static let levelScale: [[Int32]] = (0..<6).map { m in (0..<64).map { 16 * v[m][positionClass($0)] } }

    /// Quantisation multipliers: level = (|c| · MF + f) >> (16 + qP / 6), MF = 2^24 / (norm_i · norm_j · v),
    /// so that scaling by LevelScale8x8 and the inverse transform give back c's share of the residual.
    static let quantMF: [[Int32]] = (0..<6).map { m in
        (0..<64).map { r in Int32((16_777_216.0 / (norm[r >> 3] * norm[r & 7] * Double(v[m][positionClass(r)]))).rounded()) }
    }

    /// Zig-zag scan of an 8x8 frame block (8.5.7, Table 8-13): raster index per scan position.
    static let zigzag: [Int] = {
        var order: [Int] = []
        for s in 0..<15 {
            let xs = Array(max(0, s - 7)...min(s, 7))
            for x in (s & 1 == 1 ? xs.reversed() : xs) { order.append((s - x) * 8 + x) }
        }
        return order
    }()

    /// Eight vectors of eight lanes: the rows (or columns) of an 8x8 block.
    typealias Block = (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>)

    /// Residual (src − pred) of the 8x8 block and its forward transform (rows then columns: the shifts make
    /// the order matter), raster. The rows are transposed so that one lane-wise pass transforms all eight.
    static func forward(src: UnsafePointer<UInt8>, srcStride: Int, pred: UnsafePointer<UInt8>, predStride: Int,
                        coef: UnsafeMutablePointer<Int32>) {
        @inline(__always) func row(_ r: Int) -> SIMD8<Int32> { widen(samples(src + r * srcStride) &- samples(pred + r * predStride)) }
        let rows: Block = (row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        let out = forward1D(transposed(forward1D(transposed(rows))))
        @inline(__always) func store(_ r: Int, _ v: SIMD8<Int32>) { UnsafeMutableRawPointer(coef + 8 * r).storeBytes(of: v, as: SIMD8<Int32>.self) }
        store(0, out.0); store(1, out.1); store(2, out.2); store(3, out.3); store(4, out.4); store(5, out.5); store(6, out.6); store(7, out.7)
    }

    /// Eight samples in Int16 lanes.
    @inline(__always) private static func samples(_ p: UnsafePointer<UInt8>) -> SIMD8<Int16> {
        DeblockingLanes.widen(unsafeBitCast(SIMD2<UInt64>(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self), 0), to: SIMD16<UInt8>.self)).low
    }

    /// Int16 lanes sign-extended to Int32 (``Transform/widen(_:)`` on each half).
    @inline(__always) private static func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8(lowHalf: Transform.widen(v.lowHalf), highHalf: Transform.widen(v.highHalf))
    }

    /// The 8x8 block's transpose, by its four 4x4 quarters (``Transform/transposed(_:)``).
    @inline(__always) static func transposed(_ m: Block) -> Block {
        let topLeft = Transform.transposed((m.0.lowHalf, m.1.lowHalf, m.2.lowHalf, m.3.lowHalf))
        let topRight = Transform.transposed((m.0.highHalf, m.1.highHalf, m.2.highHalf, m.3.highHalf))
        let bottomLeft = Transform.transposed((m.4.lowHalf, m.5.lowHalf, m.6.lowHalf, m.7.lowHalf))
        let bottomRight = Transform.transposed((m.4.highHalf, m.5.highHalf, m.6.highHalf, m.7.highHalf))
        return (SIMD8(lowHalf: topLeft.0, highHalf: bottomLeft.0), SIMD8(lowHalf: topLeft.1, highHalf: bottomLeft.1),
                SIMD8(lowHalf: topLeft.2, highHalf: bottomLeft.2), SIMD8(lowHalf: topLeft.3, highHalf: bottomLeft.3),
                SIMD8(lowHalf: topRight.0, highHalf: bottomRight.0), SIMD8(lowHalf: topRight.1, highHalf: bottomRight.1),
                SIMD8(lowHalf: topRight.2, highHalf: bottomRight.2), SIMD8(lowHalf: topRight.3, highHalf: bottomRight.3))
    }

    /// The 1-D forward transform across the eight vectors, lane by lane.
    @inline(__always) private static func forward1D(_ x: Block) -> Block {
        let (x0, x1, x2, x3, x4, x5, x6, x7) = x
        let s07 = x0 &+ x7, s16 = x1 &+ x6, s25 = x2 &+ x5, s34 = x3 &+ x4
        let a0 = s07 &+ s34, a1 = s16 &+ s25, a2 = s07 &- s34, a3 = s16 &- s25
        let d07 = x0 &- x7, d16 = x1 &- x6, d25 = x2 &- x5, d34 = x3 &- x4
        let a4 = d16 &+ d25 &+ (d07 &+ (d07 &>> 1))
        let a5 = d07 &- d34 &- (d25 &+ (d25 &>> 1))
        let a6 = d07 &+ d34 &- (d16 &+ (d16 &>> 1))
        let a7 = d16 &- d25 &+ (d34 &+ (d34 &>> 1))
        return (a0 &+ a1, a4 &+ (a7 &>> 2), a2 &+ (a3 &>> 1), a5 &+ (a6 &>> 2),
                a0 &- a1, a6 &- (a5 &>> 2), (a2 &>> 1) &- a3, (a4 &>> 2) &- a7)
    }

    /// ``quantMF`` as four vectors of 16 per qP % 6.
    private static let quantMFVectors: [SIMD16<Int32>] = quantMF.flatMap { mf in
        (0..<4).map { q in SIMD16<Int32>(mf[(16 * q)..<(16 * q + 16)]) }
    }

    /// Quantises the 64 coefficients into `levels` (raster), dead zone in 64ths of a step, |level| at
    /// most ``Transform/maxLevel``; returns how many are non-zero. Exact in Int32: |c| ≤ 64 · 255 and
    /// MF ≤ 20972.
    static func quantize(_ coef: UnsafePointer<Int32>, levels: UnsafeMutablePointer<Int32>, qp: Int, deadZone: Int32) -> Int {
        let shift = Int32(16 + qp / 6)
        let f = (Int32(1) << shift) &* deadZone / 64
        var nonZero = SIMD16<Int32>.zero
        let base = 4 * (qp % 6)
        for q in 0..<4 {
            let c = UnsafeRawPointer(coef + 16 * q).loadUnaligned(as: SIMD16<Int32>.self)
            let sign = c &>> 31
            let magnitude = (c ^ sign) &- sign
            var a = (Transform.pairProduct(magnitude, quantMFVectors[base + q]) &+ f) &>> shift
            let excess = a &- Transform.maxLevel
            a &-= excess & ~(excess &>> 31)  // min(a, maxLevel)
            UnsafeMutableRawPointer(levels + 16 * q).storeBytes(of: (a ^ sign) &- sign, as: SIMD16<Int32>.self)
            nonZero &+= (0 &- a) &>> 31  // −1 per non-zero (a ≥ 0)
        }
        return Int(nonZero.wrappedSum().magnitude)
    }

    /// Scaling of the levels (8.5.13.1) into d, raster.
    static func dequantize(_ levels: UnsafePointer<Int32>, into d: UnsafeMutablePointer<Int32>, qp: Int) {
        levelScale[qp % 6].withUnsafeBufferPointer { ls in
            if qp >= 36 {
                let s = Int32(qp / 6 - 6)
                for i in 0..<64 { d[i] = (((levels[i] &<< 17) &>> 17) &* (ls[i] & 0x7FFF)) &<< s }  // pmaddwd, as Transform.pairProduct
            } else {
                let s = Int32(6 - qp / 6), r = Int32(1) << (s - 1)
                for i in 0..<64 { d[i] = (((levels[i] &<< 17) &>> 17) &* (ls[i] & 0x7FFF) &+ r) &>> s }
            }
        }
    }

    /// Inverse transform of the scaled coefficients d (8.5.13.2): rows, then columns, then (x + 32) >> 6 — the
    /// residual rows. Each pass is one lane-wise ``inverse1D(_:)`` across the eight vectors, the block
    /// transposed before each (the shifts make the order matter; the lanes keep it).
    static func inverse(_ d: UnsafePointer<Int32>) -> Block {
        @inline(__always) func row(_ r: Int) -> SIMD8<Int32> { UnsafeRawPointer(d + 8 * r).loadUnaligned(as: SIMD8<Int32>.self) }
        let horizontal = inverse1D(transposed((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))))  // vector k: column k
        let v = inverse1D(transposed(horizontal))  // vector k: row k
        @inline(__always) func rounded(_ x: SIMD8<Int32>) -> SIMD8<Int32> { (x &+ 32) &>> 6 }
        return (rounded(v.0), rounded(v.1), rounded(v.2), rounded(v.3), rounded(v.4), rounded(v.5), rounded(v.6), rounded(v.7))
    }

    /// The 1-D inverse transform (8.5.13.2) across the eight vectors, lane by lane.
    @inline(__always) private static func inverse1D(_ x: Block) -> Block {
        let (d0, d1, d2, d3, d4, d5, d6, d7) = x
        let a0 = d0 &+ d4, a4 = d0 &- d4
        let a2 = (d2 &>> 1) &- d6, a6 = d2 &+ (d6 &>> 1)
        let b0 = a0 &+ a6, b2 = a4 &+ a2, b4 = a4 &- a2, b6 = a0 &- a6
        let a1 = 0 &- d3 &+ d5 &- d7 &- (d7 &>> 1)
        let a3 = d1 &+ d7 &- d3 &- (d3 &>> 1)
        let a5 = 0 &- d1 &+ d7 &+ d5 &+ (d5 &>> 1)
        let a7 = d3 &+ d5 &+ d1 &+ (d1 &>> 1)
        let b1 = a1 &+ (a7 &>> 2), b7 = a7 &- (a1 &>> 2)
        let b3 = a3 &+ (a5 &>> 2), b5 = (a3 &>> 2) &- a5
        return (b0 &+ b7, b2 &+ b5, b4 &+ b3, b6 &+ b1, b6 &- b1, b4 &- b3, b2 &- b5, b0 &- b7)
    }

    /// pred + the inverse transform of the scaled levels, clipped (8.5.14), into dst. `d` is 64 words of scratch.
    static func reconstruct(levels: UnsafePointer<Int32>, count: Int, qp: Int, d: UnsafeMutablePointer<Int32>,
                            pred: UnsafePointer<UInt8>, predStride: Int, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        if count == 0 {
            for r in 0..<8 { (dst + r * dstStride).update(from: pred + r * predStride, count: 8) }
            return
        }
        dequantize(levels, into: d, qp: qp)
        let residual = inverse(d)
        @inline(__always) func add(_ r: Int, _ v: SIMD8<Int32>) {
            let clipped = unsafeBitCast(Transform.clip1(widen(samples(pred + r &* predStride)) &+ v), to: SIMD32<UInt8>.self)
            let bytes = SIMD8<UInt8>(clipped[0], clipped[4], clipped[8], clipped[12], clipped[16], clipped[20], clipped[24], clipped[28])
            UnsafeMutableRawPointer(dst + r &* dstStride).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
        }
        add(0, residual.0); add(1, residual.1); add(2, residual.2); add(3, residual.3)
        add(4, residual.4); add(5, residual.5); add(6, residual.6); add(7, residual.7)
    }
}
