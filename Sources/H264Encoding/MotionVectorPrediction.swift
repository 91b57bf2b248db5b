/// Motion vector prediction for 16x16, 16x8 and 8x16 partitions (8.4.1.3) and the P_Skip motion vector (8.4.1.1).
enum MotionVectorPrediction {
    /// A neighbouring partition as 8.4.1.3.2 sees it.
    struct Neighbour {
        var available = false
        var refIdx: Int8 = -1
        var mv: SIMD2<Int16> = .zero
    }

    /// The neighbouring partition covering 8x8 quadrant `quadrant` of the macroblock at `addr` (8.4.1.3.2),
    /// for list `list`; unavailable unless `ok` and the macroblock is coded in the same slice.
    @inline(__always) static func neighbour(_ state: UnsafePointer<MacroblockState>, _ addr: Int, _ ok: Bool, slice: Int32,
                                            list: Int, quadrant: Int) -> Neighbour {
        guard ok, addr >= 0, state[addr].slice == slice, state[addr].kind != .notCoded else { return Neighbour() }
        let s = state[addr]
        if s.kind == .intra { return Neighbour(available: true, refIdx: -1, mv: .zero) }
        let r = s.ref(quadrant, list: list)
        return Neighbour(available: true, refIdx: r, mv: r >= 0 ? s.mv(quadrant, list: list) : .zero)
    }

    /// Neighbours A, B and C (D when C is unavailable) of the macroblock at `mbAddr`, for list `list`.
    @inline(__always) static func neighbours(_ state: UnsafePointer<MacroblockState>, mbAddr: Int, widthInMbs: Int,
                                             slice: Int32, list: Int) -> (Neighbour, Neighbour, Neighbour) {
        let n = Surroundings(state, mbAddr: mbAddr, widthInMbs: widthInMbs, slice: slice, list: list)
        return (n.leftTop, n.aboveLeft, n.aboveRight.available ? n.aboveRight : n.cornerAboveLeft)
    }

    /// The neighbouring partitions of a macroblock that 16x16, 16x8 and 8x16 partitions can see (6.4.11.7):
    /// left quadrants 1 and 3, above quadrants 2 and 3, above-right quadrant 2, above-left quadrant 3.
    struct Surroundings {
        var leftTop = Neighbour(), leftBottom = Neighbour()
        var aboveLeft = Neighbour(), aboveRight0 = Neighbour()
        var aboveRight = Neighbour(), cornerAboveLeft = Neighbour()

        init() {}

        @inline(__always) init(_ state: UnsafePointer<MacroblockState>, mbAddr: Int, widthInMbs: Int, slice: Int32, list: Int) {
            let x = mbAddr % widthInMbs
            leftTop = neighbour(state, mbAddr - 1, x > 0, slice: slice, list: list, quadrant: 1)
            leftBottom = neighbour(state, mbAddr - 1, x > 0, slice: slice, list: list, quadrant: 3)
            aboveLeft = neighbour(state, mbAddr - widthInMbs, true, slice: slice, list: list, quadrant: 2)
            aboveRight0 = neighbour(state, mbAddr - widthInMbs, true, slice: slice, list: list, quadrant: 3)
            aboveRight = neighbour(state, mbAddr - widthInMbs + 1, x < widthInMbs - 1, slice: slice, list: list, quadrant: 2)
            cornerAboveLeft = neighbour(state, mbAddr - widthInMbs - 1, x > 0, slice: slice, list: list, quadrant: 3)
        }

        /// mvpLX of partition `part` of a 16x8 (`wide`) or 8x16 macroblock partitioning with reference index
        /// `refIdx` (8.4.1.3, the directional rules first); `first` is partition 0's motion for this list
        /// (its refIdx −1 when partition 0 does not use the list), needed by partition 1.
        @inline(__always) func predict(wide: Bool, part: Int, refIdx: Int8, first: Neighbour) -> SIMD2<Int16> {
            let a: Neighbour, b: Neighbour, c: Neighbour
            if wide {
                if part == 0 {
                    a = leftTop; b = aboveLeft; c = aboveRight.available ? aboveRight : cornerAboveLeft
                    if b.refIdx == refIdx { return b.mv }
                } else {
                    // C at (16, 7) is not yet decoded: D at (−1, 7)
                    a = leftBottom; b = first; c = leftTop
                    if a.refIdx == refIdx { return a.mv }
                }
            } else {
                if part == 0 {
                    a = leftTop; b = aboveLeft; c = aboveRight0.available ? aboveRight0 : cornerAboveLeft
                    if a.refIdx == refIdx { return a.mv }
                } else {
                    a = first; b = aboveRight0; c = aboveRight.available ? aboveRight : aboveLeft
                    if c.refIdx == refIdx { return c.mv }
                }
            }
            return MotionVectorPrediction.predict(refIdx: refIdx, a, b, c)
        }
    }

    /// mvpLX for a 16x16 partition with reference index `refIdx` (8.4.1.3).
    @inline(__always) static func predict(refIdx: Int8, _ a: Neighbour, _ b0: Neighbour, _ c0: Neighbour) -> SIMD2<Int16> {
        var b = b0, c = c0
        if !b.available && !c.available && a.available { b = a; c = a }
        let matchA = a.refIdx == refIdx, matchB = b.refIdx == refIdx, matchC = c.refIdx == refIdx
        let matches = (matchA ? 1 : 0) + (matchB ? 1 : 0) + (matchC ? 1 : 0)
        if matches == 1 { return matchA ? a.mv : (matchB ? b.mv : c.mv) }
        return SIMD2(median(a.mv.x, b.mv.x, c.mv.x), median(a.mv.y, b.mv.y, c.mv.y))
    }

    /// The P_Skip motion vector (8.4.1.1).
    @inline(__always) static func pSkip(_ a: Neighbour, _ b: Neighbour, _ c: Neighbour) -> SIMD2<Int16> {
        if !a.available || !b.available { return .zero }
        if a.refIdx == 0 && a.mv == .zero { return .zero }
        if b.refIdx == 0 && b.mv == .zero { return .zero }
        return predict(refIdx: 0, a, b, c)
    }

    @inline(__always) static func median(_ a: Int16, _ b: Int16, _ c: Int16) -> Int16 {
        max(min(a, b), min(max(a, b), c))
    }

    /// Spatial direct prediction (8.4.1.2.2) of a macroblock. `colZero` is colZeroFlag of the colocated
    /// macroblock, nil when unknown: colZeroFlag can only zero the motion of a list whose refIdx is 0, so
    /// without it the result is known only when such motion is already zero, and is nil otherwise (the engine
    /// then does not use B_Skip / B_Direct_16x16 there). Neighbours as 8.4.1.3.2 gives them, per list.
    static func spatialDirect(list0 a0: Neighbour, _ b0: Neighbour, _ c0: Neighbour, list1 a1: Neighbour, _ b1: Neighbour, _ c1: Neighbour,
                              colZero: Bool?) -> (refIdx: SIMD2<Int8>, mvL0: SIMD2<Int16>, mvL1: SIMD2<Int16>)? {
        @inline(__always) func minPositive(_ x: Int8, _ y: Int8) -> Int8 { x >= 0 && y >= 0 ? min(x, y) : max(x, y) }
        let r0 = minPositive(a0.refIdx, minPositive(b0.refIdx, c0.refIdx))
        let r1 = minPositive(a1.refIdx, minPositive(b1.refIdx, c1.refIdx))
        if r0 < 0 && r1 < 0 { return (SIMD2(0, 0), .zero, .zero) }  // directZeroPredictionFlag
        var mv0 = r0 >= 0 ? predict(refIdx: r0, a0, b0, c0) : .zero
        var mv1 = r1 >= 0 ? predict(refIdx: r1, a1, b1, c1) : .zero
        guard let colZero else {
            if (r0 == 0 && mv0 != .zero) || (r1 == 0 && mv1 != .zero) { return nil }
            return (SIMD2(r0, r1), mv0, mv1)
        }
        if colZero && r0 == 0 { mv0 = .zero }
        if colZero && r1 == 0 { mv1 = .zero }
        return (SIMD2(r0, r1), mv0, mv1)
    }
}
