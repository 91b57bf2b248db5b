/// Coding units of P and B slices: the decision between skip, merge, AMVP with a motion search, and intra;
/// motion compensation; and the syntax of inter CUs (7.3.8.5, 7.3.8.6).
extension H265PictureCoder {
    /// A candidate prediction for a CU: its motion, how it is signalled, and its SATD + rate cost.
    struct InterChoice {
        var motion: H265Motion
        var mergeIndex: Int?
        /// AMVP: the predictor index per list.
        var mvpIndex = (0, 0)
        var cost: Double
    }

    var lambda: Double { 0.85 * Self.twoToTheSixth(sliceQP - 12) }

    mutating func codeInterSliceCU(_ x0: Int, _ y0: Int, log2: Int, depth: Int) {
        let n = 1 << log2
        let lambda = self.lambda
        // Merge candidates.
        var best: InterChoice?
        let merge = mergeCandidates(x0, y0, size: n)
        // Ranked by a bilinear SAD estimate (bi-predicted ones by their real prediction, unless both lists name
        // the same picture with the same vector, which predicts as one list does); the best two costed exactly.
        var ranked: [(index: Int, estimate: Double)] = []
        ranked.reserveCapacity(merge.count)
        for (i, candidate) in merge.enumerated() where !merge[..<i].contains(where: { $0.sameMotion(candidate) }) {
            let estimate: Double
            if candidate.interDir == 3 && !isRepeatedList(candidate) {
                estimate = Double(bilinearBiSAD(x0, y0, n: n, motion: candidate) ?? lumaCost(x0, y0, n: n, motion: candidate))
            } else {
                let list = candidate.predL0 ? 0 : 1
                let mv = list == 0 ? (candidate.mv0x, candidate.mv0y) : (candidate.mv1x, candidate.mv1y)
                let refIdx = Int(list == 0 ? candidate.refIdx0 : candidate.refIdx1)
                estimate = Double(bilinearSAD(x0, y0, n: n, mv: mv, reference: references[list][refIdx].picture.luma))
            }
            ranked.append((i, estimate + lambda * Double(i + 1)))
        }
        for entry in ranked.sorted(by: { $0.estimate < $1.estimate }).prefix(2) {
            let candidate = merge[entry.index]
            let cost = Double(lumaCost(x0, y0, n: n, motion: candidate)) + lambda * Double(entry.index + 1)
            if cost < (best?.cost ?? .infinity) { best = InterChoice(motion: candidate, mergeIndex: entry.index, cost: cost) }
        }
        // A merge candidate that leaves only noise is taken without searching further.
        if let merged = best, merged.cost < Double(n * n) * 2.5 {
            codeInterCU(x0, y0, log2: log2, depth: depth, choice: merged, skipCtx: skipContext(x0, y0))
            return
        }
        // AMVP with a motion search in each list, and their average in B slices.
        var uni: [InterChoice?] = [nil, nil]
        // The vectors found in list 0 by reference POC, with their SATD: a list-1 entry naming the same
        // picture (low-delay B, where L1 repeats L0) takes the vector instead of searching again.
        var found: [(poc: Int, mv: (Int32, Int32), satd: Int)] = []
        for list in 0..<(sliceType == .b ? 2 : 1) {
            for refIdx in 0..<numRefIdxActive[list] {
                let predictors = amvpCandidates(x0, y0, size: n, list: list, refIdx: refIdx)
                let poc = refPocs[list][refIdx]
                let known = list == 1 ? found.first(where: { $0.poc == poc }) : nil
                let mv = known?.mv ?? searchMotion(x0, y0, n: n, list: list, refIdx: refIdx, predictors: predictors)
                var m = H265Motion()
                if list == 0 { m.interDir = 1; m.mv0x = mv.0; m.mv0y = mv.1; m.refIdx0 = Int8(refIdx) } else {
                    m.interDir = 2; m.mv1x = mv.0; m.mv1y = mv.1; m.refIdx1 = Int8(refIdx)
                }
                // The chosen vector's real prediction, costed as the other candidates are.
                let satd = known?.satd ?? lumaCost(x0, y0, n: n, motion: m)
                if list == 0 { found.append((poc, mv, satd)) }
                let cost = Double(satd) + lambda * Self.mvdBits(mv, predictors: predictors)
                let mvp = Self.closest(predictors, to: mv)
                let total = cost + lambda * Double(refIdx + 1)
                if total < (uni[list]?.cost ?? .infinity) {
                    uni[list] = InterChoice(motion: m, mvpIndex: list == 0 ? (mvp, 0) : (0, mvp), cost: total)
                }
            }
        }
        for case let choice? in uni where choice.cost < (best?.cost ?? .infinity) { best = choice }
        // Bi-prediction, unless both lists name the same picture with the same vector (it would equal either).
        if sliceType == .b, let l0 = uni[0], let l1 = uni[1],
           refPocs[0][Int(l0.motion.refIdx0)] != refPocs[1][Int(l1.motion.refIdx1)]
            || l0.motion.mv0x != l1.motion.mv1x || l0.motion.mv0y != l1.motion.mv1y {
            var m = l0.motion
            m.interDir = 3
            m.mv1x = l1.motion.mv1x; m.mv1y = l1.motion.mv1y; m.refIdx1 = l1.motion.refIdx1
            var mvpIndex = (l0.mvpIndex.0, l1.mvpIndex.1)
            if mvdL1Zero {
                // MvdL1 is zero: the L1 vector is its predictor.
                let predictors = amvpCandidates(x0, y0, size: n, list: 1, refIdx: Int(m.refIdx1))
                m.mv1x = predictors[0].0; m.mv1y = predictors[0].1
                mvpIndex.1 = 0
            }
            let cost = Double(lumaCost(x0, y0, n: n, motion: m)) + lambda * (mvBits(l0) + mvBits(l1) + 2)
            if cost < (best?.cost ?? .infinity) { best = InterChoice(motion: m, mvpIndex: mvpIndex, cost: cost) }
        }
        // Intra, unless inter prediction is already good.
        let skipCtx = skipContext(x0, y0)
        if let inter = best, inter.cost < Double(n * n) * 6 {
            codeInterCU(x0, y0, log2: log2, depth: depth, choice: inter, skipCtx: skipCtx)
            return
        }
        let intraChoice = chooseLumaMode(x0, y0, log2: min(log2, maxTbLog2), candidates: mostProbableModes(x0, y0))
        guard let inter = best, inter.cost < intraChoice.cost + lambda * 4 else {
            writer.cuSkipFlag(false, ctxInc: skipCtx)
            writer.predModeFlag(intra: true)
            markCU(x0, y0, size: n, depth: depth, isIntra: true, isSkip: false)
            chosenIntraMode = intraChoice.mode
            codeIntraCU(x0, y0, log2: log2)
            return
        }
        codeInterCU(x0, y0, log2: log2, depth: depth, choice: inter, skipCtx: skipCtx)
    }

    func mvBits(_ c: InterChoice) -> Double { 6 }

    /// Whether a CU of 2^log2 at (x0, y0) should stay whole: the first merge candidate predicts it to noise level.
    mutating func mergeSuffices(_ x0: Int, _ y0: Int, log2: Int) -> Bool {
        let n = 1 << log2
        guard let first = mergeCandidates(x0, y0, size: n).first else { return false }
        return lumaCost(x0, y0, n: n, motion: first) < n * n
    }

    /// A bi-predicted motion whose lists name the same picture with the same vector: it predicts as list 0 alone.
    func isRepeatedList(_ m: H265Motion) -> Bool {
        m.interDir == 3 && m.mv0x == m.mv1x && m.mv0y == m.mv1y && refPocs[0][Int(m.refIdx0)] == refPocs[1][Int(m.refIdx1)]
    }

    /// An estimate of the bits of the MVD of `mv` from the nearer predictor.
    static func mvdBits(_ mv: (Int32, Int32), predictors: [(Int32, Int32)]) -> Double {
        let p = predictors[closest(predictors, to: mv)]
        func bits(_ d: Int32) -> Double { d == 0 ? 1 : 2 * Double(Int(abs(d)).bitWidth - Int(abs(d)).leadingZeroBitCount) + 2 }
        return bits(mv.0 - p.0) + bits(mv.1 - p.1)
    }

    /// The index of the predictor nearest `mv` (fewest MVD bits).
    static func closest(_ predictors: [(Int32, Int32)], to mv: (Int32, Int32)) -> Int {
        func cost(_ p: (Int32, Int32)) -> Int32 { abs(p.0 - mv.0) + abs(p.1 - mv.1) }
        return cost(predictors[1]) < cost(predictors[0]) ? 1 : 0
    }

    mutating func codeInterCU(_ x0: Int, _ y0: Int, log2: Int, depth: Int, choice: InterChoice, skipCtx: Int) {
        let n = 1 << log2
        markCU(x0, y0, size: n, depth: depth, isIntra: false, isSkip: false)
        // Prediction of the whole CU (into the previous CU's arrays), then the residual tree on it.
        interOrigin = (x0, y0, n)
        var planes = interPrediction
        interPrediction = []
        if let kept = predictionCache.find(x0, y0, n: n, motion: choice.motion) {
            planes[0] = kept.luma
        } else {
            predict(x0, y0, w: n, h: n, motion: choice.motion, cIdx: 0, into: &planes[0])
        }
        predict(x0 >> 1, y0 >> 1, w: n >> 1, h: n >> 1, motion: choice.motion, cIdx: 1, into: &planes[1])
        predict(x0 >> 1, y0 >> 1, w: n >> 1, h: n >> 1, motion: choice.motion, cIdx: 2, into: &planes[2])
        interPrediction = planes
        var tree = TransformNode()
        buildTransformTree(&tree, x0, y0, log2: log2, depth: 0, mode: 0, intraCU: false)
        for y in stride(from: y0, to: y0 + n, by: 4) {
            for x in stride(from: x0, to: x0 + n, by: 4) { motion[block(x, y)] = choice.motion }
        }
        let coded = Self.hasCoefficients(tree)
        if choice.motion.interDir == 3 { statistics.biPredictedCUs += 1 }
        if choice.mergeIndex == nil { statistics.amvpCUs += 1 } else if coded { statistics.mergeCUs += 1 } else { statistics.skippedCUs += 1 }
        if let mergeIndex = choice.mergeIndex, !coded {
            writer.cuSkipFlag(true, ctxInc: skipCtx)
            writer.mergeIdx(mergeIndex, maxNumMergeCand: maxNumMergeCand)
            for y in stride(from: y0, to: y0 + n, by: 4) {
                for x in stride(from: x0, to: x0 + n, by: 4) { skip[block(x, y)] = true }
            }
            return
        }
        writer.cuSkipFlag(false, ctxInc: skipCtx)
        writer.predModeFlag(intra: false)
        writer.partModeInter(.p2Nx2N, log2CbSize: log2, minCbLog2: minCbLog2, amp: sps.ampEnabledFlag)
        if let mergeIndex = choice.mergeIndex {
            writer.mergeFlag(true)
            writer.mergeIdx(mergeIndex, maxNumMergeCand: maxNumMergeCand)
        } else {
            writer.mergeFlag(false)
            let m = choice.motion
            if sliceType == .b { writer.interPredIdc(Int(m.interDir) - 1, nPbW: n, nPbH: n, ctDepth: depth) }
            if m.predL0 {
                writer.refIdx(Int(m.refIdx0), numRefIdxActive: numRefIdxActive[0])
                let p = amvpCandidates(x0, y0, size: n, list: 0, refIdx: Int(m.refIdx0))[choice.mvpIndex.0]
                writer.mvd(Int(m.mv0x - p.0), Int(m.mv0y - p.1))
                writer.mvpFlag(choice.mvpIndex.0)
            }
            if m.predL1 {
                writer.refIdx(Int(m.refIdx1), numRefIdxActive: numRefIdxActive[1])
                let p = amvpCandidates(x0, y0, size: n, list: 1, refIdx: Int(m.refIdx1))[choice.mvpIndex.1]
                if !(mvdL1Zero && m.interDir == 3) { writer.mvd(Int(m.mv1x - p.0), Int(m.mv1y - p.1)) }
                writer.mvpFlag(choice.mvpIndex.1)
            }
            writer.rqtRootCbf(coded)
        }
        if coded {
            writeTransformTree(tree, x0, y0, log2: log2, depth: 0, parentCbf: (true, true), intraCU: false, blkIdx: 0, mode: 0)
        }
    }

    static func hasCoefficients(_ node: TransformNode) -> Bool {
        node.luma != nil || node.cb != nil || node.cr != nil || node.children.contains { hasCoefficients($0) }
    }

    // MARK: Motion compensation

    /// The prediction of a w x h block of plane cIdx at (x, y) (that plane's coordinates) with `motion`, into
    /// `first` (its storage reused when it holds w · h samples already).
    func predict(_ x: Int, _ y: Int, w: Int, h: Int, motion m: H265Motion, cIdx: Int, into first: inout [Int32]) {
        if first.count != w * h { first = [Int32](repeating: 0, count: w * h) }
        func interpolate(list: Int, into out: inout [Int32]) {
            let ref = references[list][Int(list == 0 ? m.refIdx0 : m.refIdx1)].picture
            let mvx = Int(list == 0 ? m.mv0x : m.mv1x), mvy = Int(list == 0 ? m.mv0y : m.mv1y)
            if cIdx == 0 {
                H265MotionCompensation.predict(ref.luma, pw: width, ph: height, x: x + (mvx >> 2), y: y + (mvy >> 2), fx: mvx & 3, fy: mvy & 3,
                                               w: w, h: h, luma: true, bitDepth: bitDepth, into: &out)
            } else {
                H265MotionCompensation.predict(cIdx == 1 ? ref.cb : ref.cr, pw: width >> 1, ph: height >> 1, x: x + (mvx >> 3), y: y + (mvy >> 3),
                                               fx: mvx & 7, fy: mvy & 7, w: w, h: h, luma: false, bitDepth: bitDepth, into: &out)
            }
        }
        // The first list used predicts into `first`, a second one (bi-prediction) beside it.
        var second: [Int32]? = nil
        interpolate(list: m.predL0 ? 0 : 1, into: &first)
        if m.predL0 && m.predL1 {
            var other = [Int32](repeating: 0, count: w * h)
            interpolate(list: 1, into: &other)
            second = other
        }
        // The first list's intermediate samples become the result in place.
        H265MotionCompensation.weighted(&first, second, count: w * h, bitDepth: bitDepth)
    }

    /// SATD of the luma prediction with `motion` against the source (kept in ``predictionCache``).
    mutating func lumaCost(_ x0: Int, _ y0: Int, n: Int, motion m: H265Motion) -> Int {
        if let kept = predictionCache.find(x0, y0, n: n, motion: m) { return kept.cost }
        var pred = predictionCache.takeOldestLuma()
        predict(x0, y0, w: n, h: n, motion: m, cIdx: 0, into: &pred)
        let cost = satd(x0, y0, n: n, pred: pred)
        predictionCache.insert(x0, y0, n: n, motion: m, cost: cost, luma: pred)
        return cost
    }

    // MARK: Motion search

    /// Integer search (a diamond from the best predictor), then half- and quarter-sample refinement.
    /// Returns the vector (quarter samples).
    func searchMotion(_ x0: Int, _ y0: Int, n: Int, list: Int, refIdx: Int, predictors: [(Int32, Int32)]) -> (Int32, Int32) {
        let ref = references[list][refIdx].picture.luma
        let lambda = self.lambda
        let range = 64
        let width = self.width, height = self.height
        // `limit`: once the sum reaches it the vector cannot win, and the partial sum is returned.
        func sad(_ ix: Int, _ iy: Int, limit: Double = .infinity) -> Int {
            let bound: Int32 = limit >= Double(Int32.max - 1) ? .max : Int32(max(limit, 0).rounded(.up)) + 1
            return source.luma.withUnsafeBufferPointer { src in
                ref.withUnsafeBufferPointer { r in
                    var total: Int32 = 0
                    let inside = x0 + ix >= 0 && y0 + iy >= 0 && x0 + ix + n <= width && y0 + iy + n <= height
                    if inside, n % 8 == 0, let s = src.baseAddress, let rb = r.baseAddress {
                        return Int(H265Distortion.sad(s + y0 * width + x0, width, rb + (y0 + iy) * width + x0 + ix, width, w: n, h: n, bound: bound))
                    }
                    for j in 0..<n {
                        let row = (y0 + j) * width + x0
                        if inside {
                            let refRow = (y0 + iy + j) * width + x0 + ix
                            for i in 0..<n { total &+= Self.magnitude(Int32(src[row + i]) &- Int32(r[refRow + i])) }
                        } else {
                            let sy = min(max(y0 + iy + j, 0), height - 1)
                            for i in 0..<n {
                                let sx = min(max(x0 + ix + i, 0), width - 1)
                                total &+= Self.magnitude(Int32(src[row + i]) &- Int32(r[sy * width + sx]))
                            }
                        }
                        if total >= bound { break }
                    }
                    return Int(total)
                }
            }
        }
        func rate(_ mv: (Int32, Int32)) -> Double { Self.mvdBits(mv, predictors: predictors) }
        // Integer start: the better of the predictors (rounded) and zero.
        var bestX = 0, bestY = 0
        var bestCost = Double.infinity
        for p in predictors + [(0, 0)] {
            let ix = Int((p.0 + 2) >> 2), iy = Int((p.1 + 2) >> 2)
            let c = Double(sad(ix, iy)) + lambda * rate((Int32(ix * 4), Int32(iy * 4)))
            if c < bestCost { bestCost = c; bestX = ix; bestY = iy }
        }
        // A start that already costs under 4 per sample is refined by the smallest diamond alone.
        var step = bestCost < Double(n * n) * 4 ? 1 : 8
        while step >= 1 {
            var moved = true
            var rounds = 0
            // The centre of the previous round: costed already and beaten, so it cannot win again.
            var previous: (Int, Int)? = nil
            while moved && rounds < 16 {
                moved = false
                rounds += 1
                let cx = bestX, cy = bestY
                for (dx, dy) in [(step, 0), (-step, 0), (0, step), (0, -step)] {
                    let ix = cx + dx, iy = cy + dy
                    guard abs(ix) <= range, abs(iy) <= range else { continue }
                    if let previous, previous.0 == ix, previous.1 == iy { continue }
                    let r = lambda * rate((Int32(ix * 4), Int32(iy * 4)))
                    let c = Double(sad(ix, iy, limit: bestCost - r)) + r
                    if c < bestCost { bestCost = c; bestX = ix; bestY = iy; moved = true }
                }
                previous = (cx, cy)
            }
            step >>= 1
        }
        // Fractional refinement, costed by SAD against a bilinear estimate of the fractional samples (the
        // coded prediction uses the real filters; the search only ranks vectors).
        func fractionalCost(_ mv: (Int32, Int32), limit: Double = .infinity) -> Double {
            let r = lambda * rate(mv)
            return Double(bilinearSAD(x0, y0, n: n, mv: mv, reference: ref, limit: limit - r)) + r
        }
        var best = (Int32(bestX * 4), Int32(bestY * 4))
        var bestFractional = fractionalCost(best)
        for step: Int32 in [2, 1] {
            let centre = best
            for (dx, dy) in [(step, 0), (-step, 0), (0, step), (0, -step), (step, step), (-step, -step), (step, -step), (-step, step)] {
                let mv = (centre.0 + dx, centre.1 + dy)
                let c = fractionalCost(mv, limit: bestFractional)
                if c < bestFractional { bestFractional = c; best = mv }
            }
        }
        return best
    }

    /// SAD of the source against the average of the bilinear estimates of a bi-predicted motion's two
    /// references; nil unless both blocks (with one more column and row) lie inside the picture.
    func bilinearBiSAD(_ x0: Int, _ y0: Int, n: Int, motion m: H265Motion) -> Int? {
        let width = self.width, height = self.height
        let x0a = x0 + Int(m.mv0x >> 2), y0a = y0 + Int(m.mv0y >> 2), x1a = x0 + Int(m.mv1x >> 2), y1a = y0 + Int(m.mv1y >> 2)
        guard n % 8 == 0, x0a >= 0, y0a >= 0, x1a >= 0, y1a >= 0, x0a + n + 1 <= width, x1a + n + 1 <= width,
              y0a + n + 1 <= height, y1a + n + 1 <= height else { return nil }
        let ref0 = references[0][Int(m.refIdx0)].picture.luma, ref1 = references[1][Int(m.refIdx1)].picture.luma
        return source.luma.withUnsafeBufferPointer { src in
            ref0.withUnsafeBufferPointer { r0 in
                ref1.withUnsafeBufferPointer { r1 in
                    guard let s = src.baseAddress, let a = r0.baseAddress, let b = r1.baseAddress else { return nil }
                    return Int(H265Distortion.bilinearBiSAD(s + y0 * width + x0, width, a + y0a * width + x0a, fx0: Int(m.mv0x & 3), fy0: Int(m.mv0y & 3),
                                                            b + y1a * width + x1a, fx1: Int(m.mv1x & 3), fy1: Int(m.mv1y & 3), width, w: n, h: n))
                }
            }
        }
    }

    /// SAD of the source against a bilinear estimate of the reference at quarter-sample vector `mv`; a partial
    /// sum above `limit` once it passes it.
    func bilinearSAD(_ x0: Int, _ y0: Int, n: Int, mv: (Int32, Int32), reference ref: [UInt16], limit: Double = .infinity) -> Int {
        let bound: Int32 = limit >= Double(Int32.max - 1) ? .max : Int32(max(limit, 0).rounded(.up)) + 1
        let width = self.width, height = self.height
        let ix = Int(mv.0 >> 2), iy = Int(mv.1 >> 2)
        let fx = Int32(mv.0 & 3), fy = Int32(mv.1 & 3)
        let w00 = (4 - fx) * (4 - fy), w10 = fx * (4 - fy), w01 = (4 - fx) * fy, w11 = fx * fy
        return source.luma.withUnsafeBufferPointer { src in
            ref.withUnsafeBufferPointer { r in
                var total: Int32 = 0
                let inside = x0 + ix >= 0 && y0 + iy >= 0 && x0 + ix + n + 1 <= width && y0 + iy + n + 1 <= height
                if n % 8 == 0, let s = src.baseAddress, let rb = r.baseAddress {
                    if inside {
                        return Int(H265Distortion.bilinearSAD(s + y0 * width + x0, width, rb + (y0 + iy) * width + x0 + ix, width,
                                                              fx: Int(fx), fy: Int(fy), w: n, h: n, bound: bound))
                    }
                    // Partly outside the picture: the (n + 1)² samples it reads, edge-replicated, in a window.
                    let side = n + 1
                    return withUnsafeTemporaryAllocation(of: UInt16.self, capacity: side * side) { window in
                        guard let win = window.baseAddress else { return 0 }
                        H265MotionCompensation.copyEdgeReplicated(rb, pw: width, ph: height, x0: x0 + ix, y0: y0 + iy, w: side, h: side, into: win)
                        return Int(H265Distortion.bilinearSAD(s + y0 * width + x0, width, win, side, fx: Int(fx), fy: Int(fy), w: n, h: n, bound: bound))
                    }
                }
                for j in 0..<n {
                    let row = (y0 + j) * width + x0
                    if inside {
                        let a = (y0 + iy + j) * width + x0 + ix
                        for i in 0..<n {
                            let p = (w00 &* Int32(r[a + i]) &+ w10 &* Int32(r[a + i + 1]) &+ w01 &* Int32(r[a + i + width])
                                     &+ w11 &* Int32(r[a + i + width + 1]) &+ 8) >> 4
                            total &+= Self.magnitude(Int32(src[row + i]) &- p)
                        }
                    } else {
                        let y0c = min(max(y0 + iy + j, 0), height - 1), y1c = min(max(y0 + iy + j + 1, 0), height - 1)
                        for i in 0..<n {
                            let x0c = min(max(x0 + ix + i, 0), width - 1), x1c = min(max(x0 + ix + i + 1, 0), width - 1)
                            let p = (w00 * Int32(r[y0c * width + x0c]) + w10 * Int32(r[y0c * width + x1c]) + w01 * Int32(r[y1c * width + x0c])
                                     + w11 * Int32(r[y1c * width + x1c]) + 8) >> 4
                            total += abs(Int32(src[row + i]) - p)
                        }
                    }
                    if total >= bound { break }
                }
                return Int(total)
            }
        }
    }

    // MARK: Deblocking

    /// bS 1 or 0 of an edge between two inter blocks from their motion (8.7.2.4).
    static func motionStrength(_ p: H265Motion, _ q: H265Motion, refPocs: [[Int]]) -> Int {
        let countP = (p.predL0 ? 1 : 0) + (p.predL1 ? 1 : 0), countQ = (q.predL0 ? 1 : 0) + (q.predL1 ? 1 : 0)
        guard countP == countQ else { return 1 }
        if countP == 1 { return uniStrength(p, q, refPocs: refPocs) }
        let p0 = refPocs[0][Int(p.refIdx0)], p1 = refPocs[1][Int(p.refIdx1)]
        let q0 = refPocs[0][Int(q.refIdx0)], q1 = refPocs[1][Int(q.refIdx1)]
        let pv0 = (p.mv0x, p.mv0y), pv1 = (p.mv1x, p.mv1y), qv0 = (q.mv0x, q.mv0y), qv1 = (q.mv1x, q.mv1y)
        // The same two pictures (as a multiset), or bS 1.
        guard min(p0, p1) == min(q0, q1), max(p0, p1) == max(q0, q1) else { return 1 }
        if p0 != p1 {
            // Two different pictures: compare the vectors of the same picture.
            let m0 = q0 == p0 ? qv0 : qv1
            let m1 = q0 == p0 ? qv1 : qv0
            return farApart(pv0, m0) || farApart(pv1, m1) ? 1 : 0
        }
        // Both vectors of each block name the same picture.
        let straight = farApart(pv0, qv0) || farApart(pv1, qv1)
        let crossed = farApart(pv0, qv1) || farApart(pv1, qv0)
        return straight && crossed ? 1 : 0
    }

    /// bS of two blocks predicted from one picture each (8.7.2.4): 1 for different pictures or vectors far apart.
    private static func uniStrength(_ p: H265Motion, _ q: H265Motion, refPocs: [[Int]]) -> Int {
        let pocP = p.predL0 ? refPocs[0][Int(p.refIdx0)] : refPocs[1][Int(p.refIdx1)]
        let pocQ = q.predL0 ? refPocs[0][Int(q.refIdx0)] : refPocs[1][Int(q.refIdx1)]
        let mvP = p.predL0 ? (p.mv0x, p.mv0y) : (p.mv1x, p.mv1y), mvQ = q.predL0 ? (q.mv0x, q.mv0y) : (q.mv1x, q.mv1y)
        return pocP != pocQ || farApart(mvP, mvQ) ? 1 : 0
    }

    /// Vectors 4 or more quarter samples apart in either component (8.7.2.4).
    private static func farApart(_ a: (Int32, Int32), _ b: (Int32, Int32)) -> Bool { abs(a.0 - b.0) >= 4 || abs(a.1 - b.1) >= 4 }
}
