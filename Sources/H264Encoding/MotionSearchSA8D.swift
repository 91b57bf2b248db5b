extension MotionSearch {
    /// SA8D of a 16x16 block: per 8x8 quarter, (Σ |8x8 Hadamard of a − b| + 2) >> 2, summed. On the
    /// scale of ``satd16x16(_:_:_:_:)``: comparing the two says which transform size suits the residual.
    static func sa8d16x16(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        var total: Int32 = 0
        for q in 0..<4 {
            let off = 8 * (q >> 1), x = 8 * (q & 1)
            total += sa8d8x8(a + off * aStride + x, aStride, b + off * bStride + x, bStride)
        }
        return total
    }

    @inline(__always) static func sa8d8x8(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int) -> Int32 {
        typealias V = SIMD8<Int16>
        @inline(__always) func row(_ r: Int) -> V {
            let pa = a + r * aStride, pb = b + r * bStride
            return V(Int16(pa[0]), Int16(pa[1]), Int16(pa[2]), Int16(pa[3]), Int16(pa[4]), Int16(pa[5]), Int16(pa[6]), Int16(pa[7]))
                &- V(Int16(pb[0]), Int16(pb[1]), Int16(pb[2]), Int16(pb[3]), Int16(pb[4]), Int16(pb[5]), Int16(pb[6]), Int16(pb[7]))
        }
        // vertical Hadamard across the 8 rows (|value| ≤ 8 · 255)
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3), r4 = row(4), r5 = row(5), r6 = row(6), r7 = row(7)
        let s0 = r0 &+ r1, s1 = r0 &- r1, s2 = r2 &+ r3, s3 = r2 &- r3, s4 = r4 &+ r5, s5 = r4 &- r5, s6 = r6 &+ r7, s7 = r6 &- r7
        let t0 = s0 &+ s2, t1 = s1 &+ s3, t2 = s0 &- s2, t3 = s1 &- s3, t4 = s4 &+ s6, t5 = s5 &+ s7, t6 = s4 &- s6, t7 = s5 &- s7
        // horizontal: the sum of |·| is the same in any lane order, so pairs are split even / odd
        var sum = SIMD4<Int32>.zero
        @inline(__always) func horizontal(_ v: V) {
            let p = v.evenHalf &+ v.oddHalf, m = v.evenHalf &- v.oddHalf
            let pe = SIMD4(lowHalf: p.evenHalf &+ p.oddHalf, highHalf: p.evenHalf &- p.oddHalf)
            let me = SIMD4(lowHalf: m.evenHalf &+ m.oddHalf, highHalf: m.evenHalf &- m.oddHalf)
            let h = V(lowHalf: SIMD4(lowHalf: pe.evenHalf &+ pe.oddHalf, highHalf: pe.evenHalf &- pe.oddHalf),
                      highHalf: SIMD4(lowHalf: me.evenHalf &+ me.oddHalf, highHalf: me.evenHalf &- me.oddHalf))
            // |h| ≤ 64 · 255: exact in Int16, and non-negative, so each 32-bit pair of lanes splits into its two
            // values by a mask and a shift (the generic widening init is not always inlined)
            let pairs = unsafeBitCast(abs8(h), to: SIMD4<Int32>.self)
            sum &+= (pairs & 0xFFFF) &+ (pairs &>> 16)
        }
        horizontal(t0 &+ t4); horizontal(t1 &+ t5); horizontal(t2 &+ t6); horizontal(t3 &+ t7)
        horizontal(t0 &- t4); horizontal(t1 &- t5); horizontal(t2 &- t6); horizontal(t3 &- t7)
        return (sum.wrappedSum() + 2) >> 2
    }
}
