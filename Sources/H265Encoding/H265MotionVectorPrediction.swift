/// Merge candidates (8.5.3.2.2–8.5.3.2.5), AMVP candidates (8.5.3.2.6, 8.5.3.2.7) and temporal motion
/// vector prediction (8.5.3.2.8) of 2Nx2N prediction blocks, from the motion coded so far.
extension H265PictureCoder {
    /// 6.4.2 for a 2Nx2N block: the neighbour is available and inter.
    func neighbourMotion(_ x: Int, _ y: Int, pb: (x: Int, y: Int), parallelMerge: Bool) -> H265Motion? {
        guard available(x, y) else { return nil }
        if parallelMerge {
            let level = pps.log2ParallelMergeLevelMinus2 + 2
            if (pb.x >> level) == (x >> level) && (pb.y >> level) == (y >> level) { return nil }
        }
        let m = motion[block(x, y)]
        return m.interDir == 0 ? nil : m
    }

    /// (8-183ff) the scaling of a vector by POC distances.
    static func scaled(_ mv: Int32, td tdIn: Int, tb tbIn: Int) -> Int32 {
        let td = min(max(tdIn, -128), 127), tb = min(max(tbIn, -128), 127)
        let tx = (16384 + (abs(td) >> 1)) / td
        let factor = min(max((tb * tx + 32) >> 6, -4096), 4095)
        let product = factor * Int(mv)
        let magnitude = (abs(product) + 127) >> 8
        return Int32(min(max(product < 0 ? -magnitude : magnitude, -32768), 32767))
    }

    /// 8.5.3.2.8: the temporal vector for list `x` and reference index `refIdx`, or nil.
    func temporalVector(_ xPb: Int, _ yPb: Int, _ w: Int, _ h: Int, refIdx: Int, list x: Int) -> (Int32, Int32)? {
        guard sliceTMVP, let field = colMotion else { return nil }
        func colEntry(_ cx: Int, _ cy: Int) -> H265MotionField.Entry? {
            let mx = (cx >> 4) << 4, my = (cy >> 4) << 4
            let e = field.entries[(my >> 2) * field.width4 + (mx >> 2)]
            return e.motion.interDir == 0 ? nil : e
        }
        var entry: H265MotionField.Entry?
        let xBr = xPb + w, yBr = yPb + h
        if (yPb >> log2Ctb) == (yBr >> log2Ctb) && yBr < height && xBr < width { entry = colEntry(xBr, yBr) }
        if entry == nil { entry = colEntry(xPb + (w >> 1), yPb + (h >> 1)) }
        guard let e = entry else { return nil }
        // Which of the col block's vectors (8.5.3.2.9).
        let useL1: Bool
        if !e.motion.predL0 { useL1 = true }
        else if !e.motion.predL1 { useL1 = false }
        else if noBackwardPred { useL1 = x == 1 }
        else { useL1 = collocatedFromL0 }  // mvLNCol with N = collocated_from_l0_flag
        let mv = useL1 ? (e.motion.mv1x, e.motion.mv1y) : (e.motion.mv0x, e.motion.mv0y)
        let colRefPoc = Int(useL1 ? e.refPoc1 : e.refPoc0)
        let colLongTerm = useL1 ? e.longTerm1 : e.longTerm0
        let targetLongTerm = refLongTerm[x][refIdx]
        guard colLongTerm == targetLongTerm else { return nil }
        let colPocDiff = colPoc - colRefPoc
        let currPocDiff = currentPoc - refPocs[x][refIdx]
        if targetLongTerm || colPocDiff == currPocDiff || colPocDiff == 0 { return mv }
        return (Self.scaled(mv.0, td: colPocDiff, tb: currPocDiff), Self.scaled(mv.1, td: colPocDiff, tb: currPocDiff))
    }

    /// mergeCandList of a 2Nx2N block (8.5.3.2.2), MaxNumMergeCand entries.
    func mergeCandidates(_ xPb: Int, _ yPb: Int, size n: Int) -> [H265Motion] {
        let pb = (x: xPb, y: yPb)
        var list: [H265Motion] = []
        list.reserveCapacity(5)  // at most five before MaxNumMergeCand trims it: one allocation, no regrowth
        let a1 = neighbourMotion(xPb - 1, yPb + n - 1, pb: pb, parallelMerge: true)
        let b1 = neighbourMotion(xPb + n - 1, yPb - 1, pb: pb, parallelMerge: true)
        let b0 = neighbourMotion(xPb + n, yPb - 1, pb: pb, parallelMerge: true)
        let a0 = neighbourMotion(xPb - 1, yPb + n, pb: pb, parallelMerge: true)
        let b2 = neighbourMotion(xPb - 1, yPb - 1, pb: pb, parallelMerge: true)
        if let a1 { list.append(a1) }
        let useB1 = b1.map { b in a1.map { !$0.sameMotion(b) } ?? true } ?? false
        if useB1, let b1 { list.append(b1) }
        if let b0, b1.map({ !$0.sameMotion(b0) }) ?? true { list.append(b0) }
        if let a0, a1.map({ !$0.sameMotion(a0) }) ?? true { list.append(a0) }
        if list.count < 4, let b2, a1.map({ !$0.sameMotion(b2) }) ?? true, b1.map({ !$0.sameMotion(b2) }) ?? true { list.append(b2) }
        // Temporal (refIdxLXCol 0).
        if sliceTMVP && list.count < maxNumMergeCand {
            var col = H265Motion()
            if let v = temporalVector(xPb, yPb, n, n, refIdx: 0, list: 0) {
                col.interDir |= 1; col.mv0x = v.0; col.mv0y = v.1; col.refIdx0 = 0
            }
            if sliceType == .b, let v = temporalVector(xPb, yPb, n, n, refIdx: 0, list: 1) {
                col.interDir |= 2; col.mv1x = v.0; col.mv1y = v.1; col.refIdx1 = 0
            }
            if col.interDir != 0 { list.append(col) }
        }
        if list.count > maxNumMergeCand { list.removeLast(list.count - maxNumMergeCand) }
        // Combined bi-predictive candidates (8.5.3.2.4).
        let original = list.count
        if sliceType == .b && original > 1 && original < maxNumMergeCand {
            let order = [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1), (0, 3), (3, 0), (1, 3), (3, 1), (2, 3), (3, 2)]
            var combIdx = 0
            while combIdx < original * (original - 1) && list.count < maxNumMergeCand {
                let l0 = list[order[combIdx].0], l1 = list[order[combIdx].1]
                if l0.predL0 && l1.predL1
                    && (refPocs[0][Int(l0.refIdx0)] != refPocs[1][Int(l1.refIdx1)] || l0.mv0x != l1.mv1x || l0.mv0y != l1.mv1y) {
                    var c = H265Motion()
                    c.interDir = 3
                    c.mv0x = l0.mv0x; c.mv0y = l0.mv0y; c.refIdx0 = l0.refIdx0
                    c.mv1x = l1.mv1x; c.mv1y = l1.mv1y; c.refIdx1 = l1.refIdx1
                    list.append(c)
                }
                combIdx += 1
            }
        }
        // Zero candidates (8.5.3.2.5).
        let numRefIdx = sliceType == .p ? numRefIdxActive[0] : min(numRefIdxActive[0], numRefIdxActive[1])
        var zeroIdx = 0
        while list.count < maxNumMergeCand {
            var c = H265Motion()
            let r = Int8(zeroIdx < numRefIdx ? zeroIdx : 0)
            c.interDir = sliceType == .p ? 1 : 3
            c.refIdx0 = r
            if sliceType == .b { c.refIdx1 = r }
            list.append(c)
            zeroIdx += 1
        }
        return list
    }

    /// mvpListLX of a 2Nx2N block (8.5.3.2.6): two predictors for list `x`, reference `refIdx`.
    func amvpCandidates(_ xPb: Int, _ yPb: Int, size n: Int, list x: Int, refIdx: Int) -> [(Int32, Int32)] {
        let pb = (x: xPb, y: yPb)
        let y = 1 - x
        let targetPoc = refPocs[x][refIdx], targetLT = refLongTerm[x][refIdx]
        func vector(_ m: H265Motion, _ l: Int) -> (Int32, Int32) { l == 0 ? (m.mv0x, m.mv0y) : (m.mv1x, m.mv1y) }
        func uses(_ m: H265Motion, _ l: Int) -> Bool { l == 0 ? m.predL0 : m.predL1 }
        func ref(_ m: H265Motion, _ l: Int) -> Int { Int(l == 0 ? m.refIdx0 : m.refIdx1) }
        /// The neighbour's vector naming the same picture (X first, then Y).
        func samePicture(_ m: H265Motion) -> (Int32, Int32)? {
            if uses(m, x) && refPocs[x][ref(m, x)] == targetPoc && refLongTerm[x][ref(m, x)] == targetLT { return vector(m, x) }
            if uses(m, y) && refPocs[y][ref(m, y)] == targetPoc && refLongTerm[y][ref(m, y)] == targetLT { return vector(m, y) }
            return nil
        }
        /// The neighbour's vector of a picture with the same long-term marking, scaled when both are short-term.
        func scaledCandidate(_ m: H265Motion) -> (Int32, Int32)? {
            for l in [x, y] where uses(m, l) && refLongTerm[l][ref(m, l)] == targetLT {
                let v = vector(m, l)
                if !targetLT {
                    let poc = refPocs[l][ref(m, l)]
                    let td = currentPoc - poc, tb = currentPoc - targetPoc
                    if td == 0 { return v }
                    return (Self.scaled(v.0, td: td, tb: tb), Self.scaled(v.1, td: td, tb: tb))
                }
                return v
            }
            return nil
        }
        let aNeighbours = [neighbourMotion(xPb - 1, yPb + n, pb: pb, parallelMerge: false),
                           neighbourMotion(xPb - 1, yPb + n - 1, pb: pb, parallelMerge: false)]
        let isScaled = aNeighbours.contains { $0 != nil }
        var a: (Int32, Int32)?
        for m in aNeighbours { if a == nil, let m { a = samePicture(m) } }
        if a == nil { for m in aNeighbours { if a == nil, let m { a = scaledCandidate(m) } } }
        let bNeighbours = [neighbourMotion(xPb + n, yPb - 1, pb: pb, parallelMerge: false),
                           neighbourMotion(xPb + n - 1, yPb - 1, pb: pb, parallelMerge: false),
                           neighbourMotion(xPb - 1, yPb - 1, pb: pb, parallelMerge: false)]
        var b: (Int32, Int32)?
        for m in bNeighbours { if b == nil, let m { b = samePicture(m) } }
        if !isScaled, let found = b, a == nil { a = found }
        if !isScaled {
            b = nil
            for m in bNeighbours { if b == nil, let m { b = scaledCandidate(m) } }
        }
        var list: [(Int32, Int32)] = []
        list.reserveCapacity(2)
        if let a { list.append(a) }
        if let b, a.map({ $0 != b }) ?? true { list.append(b) }
        if list.count < 2, let t = temporalVector(xPb, yPb, n, n, refIdx: refIdx, list: x) { list.append(t) }
        while list.count < 2 { list.append((0, 0)) }
        return list
    }
}
