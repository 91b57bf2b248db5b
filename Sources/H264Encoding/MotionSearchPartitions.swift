/// Motion search of a 16x8 or 8x16 partition: SAD at integer positions (the start vectors, then a small
/// diamond while it improves), then half- and quarter-sample refinement on SATD, costs with λ·(mvd bits).
extension MacroblockEncoder {
    /// SAD of a 16x8 (`w` 16) or 8x16 block, by loops of fixed length (unrolled whole). Once the upper half summed
    /// reaches `limit`, that partial sum (≥ limit): enough for a search that keeps only a cost strictly below its best.
    @inline(__always) static func partitionSAD(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int,
                                               w: Int, stoppingAt limit: Int32) -> Int32 {
        var sum: UInt32 = 0  // ≤ 128 · 255
        if w == 16 {
            for row in 0..<4 { sum &+= MotionSearch.sadRow(a + row &* aStride, b + row &* bStride) }
            if Int32(truncatingIfNeeded: sum) >= limit { return Int32(truncatingIfNeeded: sum) }
            for row in 4..<8 { sum &+= MotionSearch.sadRow(a + row &* aStride, b + row &* bStride) }
        } else {
            for row in 0..<8 { sum &+= MotionSearch.sadRow8(a + row &* aStride, b + row &* bStride) }
            if Int32(truncatingIfNeeded: sum) >= limit { return Int32(truncatingIfNeeded: sum) }
            for row in 8..<16 { sum &+= MotionSearch.sadRow8(a + row &* aStride, b + row &* bStride) }
        }
        return Int32(truncatingIfNeeded: sum)
    }

    /// SATD of a w x h block (sum of its 4x4 SATDs); 16-wide blocks by rows of four 4x4 blocks, 8-wide ones
    /// by 8x8 blocks. Once the part summed so far reaches `limit`, that partial sum (≥ limit): enough for a
    /// search that keeps only a cost strictly below its best.
    @inline(__always) static func partitionSATD(_ a: UnsafePointer<UInt8>, _ aStride: Int, _ b: UnsafePointer<UInt8>, _ bStride: Int,
                                                w: Int, h: Int, stoppingAt limit: Int32 = .max) -> Int32 {
        if w == 16 {
            var acc = SIMD8<Int16>.zero
            var partial: Int32 = 0
            for g in 0..<(h / 4) {
                acc &+= MotionSearch.satdBlockRow(a + 4 * g * aStride, aStride, b + 4 * g * bStride, bStride)
                partial = MotionSearch.pairSum(acc)
                if partial >= limit { break }
            }
            return partial
        }
        if w == 8 && h & 7 == 0 { return MotionSearch.satd8xN(a, aStride, b, bStride, h: h, stoppingAt: limit) }
        return MotionSearch.satd(a, aStride, b, bStride, w: w, h: h)
    }

    /// The luma prediction of the partition at (px, py) (in the macroblock), w x h, with `mv`, into `dst` (stride 16).
    @inline(__always) func predictPartitionLuma(_ ref: ReferencePlanes, mv: SIMD2<Int16>, px: Int, py: Int, w: Int, h: Int,
                                                into dst: UnsafeMutablePointer<UInt8>) {
        let mx = Int(mv.x), my = Int(mv.y)
        InterPrediction.predictLuma(ref, x: 16 * mbx + px + (mx >> 2), y: 16 * mby + py + (my >> 2), fx: mx & 3, fy: my & 3, w: w, h: h,
                                    dst: dst, dstStride: 16)
    }

    /// Searches `ref` for the w x h partition at (px, py): integer SAD from `starts` (quarter-sample vectors)
    /// and the prediction `mvp`, a diamond, then sub-sample SATD refinement. Cost: SATD + λ·(mvd bits).
    func searchPartition(_ ref: ReferencePlanes, px: Int, py: Int, w: Int, h: Int, mvp: SIMD2<Int16>,
                         starts: SIMD4<Int16>) -> SearchResult {
        let found = integerSearchPartition(ref, px: px, py: py, w: w, h: h, mvp: mvp, starts: starts)
        return refinePartition(ref, px: px, py: py, w: w, h: h, mvp: mvp, integer: found.position, start: SIMD2(starts[0], starts[1]))
    }

    /// The integer stage of ``searchPartition(_:px:py:w:h:mvp:starts:)``: the best position in whole samples
    /// and its cost, SAD + λ·(mvd bits).
    func integerSearchPartition(_ ref: ReferencePlanes, px: Int, py: Int, w: Int, h: Int, mvp: SIMD2<Int16>,
                                starts: SIMD4<Int16>) -> (position: SIMD2<Int>, cost: Int32) {
        let bx = 16 * mbx + px, by = 16 * mby + py
        let src = UnsafePointer(ctx.sourceY.at(bx, by)), ss = ctx.sourceY.stride
        let loX = -ref.padding + 4 - bx, hiX = ref.width + ref.padding - 22 - bx
        let loY = -ref.padding + 4 - by, hiY = ref.height + ref.padding - 22 - by
        let costs = PartitionSADCost(source: src, sourceStride: ss, reference: ref.full.at(bx, by), referenceStride: ref.full.stride,
                                     w: w, lambda: lambda, mvp: SIMD2(Int32(mvp.x), Int32(mvp.y)))
        @inline(__always) func clampedInt(_ v: SIMD2<Int16>) -> (Int, Int) {
            (min(max((Int(v.x) + 2) >> 2, loX), hiX), min(max((Int(v.y) + 2) >> 2, loY), hiY))
        }
        var (bestX, bestY) = clampedInt(mvp)
        var bestCost = costs.cost(bestX, bestY, below: .max)
        let (startX, startY) = clampedInt(SIMD2(starts[0], starts[1]))
        for k in 0..<2 {
            let (x, y) = clampedInt(SIMD2(starts[2 * k], starts[2 * k + 1]))
            // a position costed before (the mvp's or the first start's) cannot win on a strict <
            if (x == bestX && y == bestY) || (k == 1 && x == startX && y == startY) { continue }
            let c = costs.cost(x, y, below: bestCost)
            if c < bestCost { bestCost = c; bestX = x; bestY = y }
        }
        var step = -1
        for _ in 0..<8 {
            let cx = bestX, cy = bestY
            var moved = -1
            for k in 0..<4 where k != step {
                let x = cx &+ (k == 0 ? -1 : (k == 1 ? 1 : 0)), y = cy &+ (k == 2 ? -1 : (k == 3 ? 1 : 0))
                guard x >= loX && x <= hiX && y >= loY && y <= hiY else { continue }
                let c = costs.cost(x, y, below: bestCost)
                if c < bestCost { bestCost = c; bestX = x; bestY = y; moved = k }
            }
            if moved < 0 { break }
            step = moved ^ 1
        }
        return (SIMD2(bestX, bestY), bestCost)
    }

    /// The cost of a partition's whole-sample positions: SAD + λ·(mvd bits). A method of a value rather than a
    /// closure over the search's locals: neither is inlined at its calls, and the closure with the early stop cost 0.9%
    /// more of a P-only encode's instructions (callgrind, 12 frames 720p QP 27).
    struct PartitionSADCost {
        var source: UnsafePointer<UInt8>, sourceStride: Int
        /// The reference plane's sample at the partition's own position (the zero vector).
        var reference: UnsafePointer<UInt8>, referenceStride: Int
        /// 16 (16x8) or 8 (8x16).
        var w: Int, lambda: Int32, mvp: SIMD2<Int32>

        /// The cost at (x, y) in whole samples; a cost at or above `best` never wins (strict <): its SAD may stop there.
        @inline(__always) func cost(_ x: Int, _ y: Int, below best: Int32) -> Int32 {
            let mvCost = lambda &* MotionSearch.bitsMVD(4 &* x, 4 &* y, mvp.x, mvp.y)
            return MacroblockEncoder.partitionSAD(source, sourceStride, reference + (y &* referenceStride &+ x), referenceStride, w: w,
                                                  stoppingAt: best &- mvCost) &+ mvCost
        }
    }

    /// The SAD of the 16x16 macroblock at `mv` rounded to whole samples, plus λ·`bits`: what partitions must beat
    /// at the integer stage before their sub-sample refinement is worth its time.
    func integerCost16x16(_ ref: ReferencePlanes, mv: SIMD2<Int16>, bits: Int32) -> Int32 {
        let bx = 16 * mbx, by = 16 * mby
        let loX = -ref.padding + 4 - bx, hiX = ref.width + ref.padding - 22 - bx
        let loY = -ref.padding + 4 - by, hiY = ref.height + ref.padding - 22 - by
        let x = min(max((Int(mv.x) + 2) >> 2, loX), hiX), y = min(max((Int(mv.y) + 2) >> 2, loY), hiY)
        return MotionSearch.sad16x16(ctx.sourceY.at(bx, by), ctx.sourceY.stride, ref.full.at(bx + x, by + y), ref.full.stride) + lambda * bits
    }

    /// The sub-sample stage: from the whole-sample `integer` position (and `start`, the 16x16 vector, with its
    /// sub-sample part), half then quarter samples on SATD + λ·(mvd bits against `mvp`). `fromStart`: from `start`
    /// alone, one quarter-sample diamond (for a partition whose whole-sample search stayed at `start`'s position).
    func refinePartition(_ ref: ReferencePlanes, px: Int, py: Int, w: Int, h: Int, mvp: SIMD2<Int16>,
                         integer: SIMD2<Int>, start: SIMD2<Int16>, fromStart: Bool = false) -> SearchResult {
        let bx = 16 * mbx + px, by = 16 * mby + py
        let src = UnsafePointer(ctx.sourceY.at(bx, by)), ss = ctx.sourceY.stride
        let loX = -ref.padding + 4 - bx, hiX = ref.width + ref.padding - 22 - bx
        let loY = -ref.padding + 4 - by, hiY = ref.height + ref.padding - 22 - by
        let lam = lambda, pvx = Int32(mvp.x), pvy = Int32(mvp.y)
        let bestX = integer.x, bestY = integer.y
        let split = w == 16 ? MotionSearch.SplitSource(src, ss, h: h, into: s.splitSource)
            : MotionSearch.SplitSource(rowPairsOf: src, ss, h: h, into: s.splitSource)  // w 8, h 16
        // Sub-sample positions straight from the reference planes: full and half samples as they are, quarter
        // samples averaged as they are read.
        // `best`: what a candidate must beat (strictly); its SATD may stop early once it cannot.
        @inline(__always) func subCost(_ x: Int, _ y: Int, below best: Int32) -> (Int32, Int32) {
            let bits = MotionSearch.bitsMVD(x, y, pvx, pvy)
            let mvCost = lam &* bits, limit = best == .max ? .max : best &- mvCost
            let ix = bx &+ (x >> 2), iy = by &+ (y >> 2)
            if InterPrediction.fitsFastPath(ref, x: ix, y: iy, w: 16, h: h) {
                let (a, b) = InterPrediction.sources(ref, x: ix, y: iy, fx: x & 3, fy: y & 3)
                @inline(__always) func satd<P: MotionSearch.PredictionRows & MotionSearch.PredictionRowPairs>(_ p: P) -> Int32 {
                    w == 16 ? MotionSearch.satd16(split, p, h: h, stoppingAt: limit) : MotionSearch.satd8(split, p, h: h, stoppingAt: limit)
                }
                guard let b else { return (satd(MotionSearch.PlanePrediction(a: a, stride: ref.full.stride)) &+ mvCost, bits) }
                return (satd(MotionSearch.AveragedPrediction(a: a, b: b, stride: ref.full.stride)) &+ mvCost, bits)
            } else {
                predictPartitionLuma(ref, mv: SIMD2(Int16(x), Int16(y)), px: px, py: py, w: w, h: h, into: s.candY)
            }
            return (Self.partitionSATD(src, ss, s.candY, 16, w: w, h: h, stoppingAt: limit) + mvCost, bits)
        }
        // the first start (the 16x16 vector) keeps its sub-sample part
        let sx = Int(start.x), sy = Int(start.y)
        var qx = fromStart ? sx : 4 * bestX, qy = fromStart ? sy : 4 * bestY
        var (best, bestBits) = subCost(qx, qy, below: .max)
        if !fromStart && (sx != qx || sy != qy) && (sx >> 2) >= loX && (sx >> 2) <= hiX && (sy >> 2) >= loY && (sy >> 2) <= hiY {
            let (c, bits) = subCost(sx, sy, below: best)
            if c < best { best = c; bestBits = bits; qx = sx; qy = sy }
        }
        // half samples: the 8 neighbours; quarter samples: a diamond, again if it moved
        if !fromStart {
            let cx = qx, cy = qy
            for dy in -1...1 {
                for dx in -1...1 where dx != 0 || dy != 0 {
                    let (c, bits) = subCost(cx &+ 2 &* dx, cy &+ 2 &* dy, below: best)
                    if c < best { best = c; bestBits = bits; qx = cx + 2 * dx; qy = cy + 2 * dy }
                }
            }
        }
        var came = -1
        for _ in 0..<(fromStart ? 1 : 2) {
            let cx = qx, cy = qy
            var moved = -1
            for k in 0..<4 where k != came {
                let dx = k == 0 ? -1 : (k == 1 ? 1 : 0), dy = k == 2 ? -1 : (k == 3 ? 1 : 0)
                let (c, bits) = subCost(cx &+ dx, cy &+ dy, below: best)
                if c < best { best = c; bestBits = bits; qx = cx + dx; qy = cy + dy; moved = k }
            }
            if moved < 0 { break }
            came = moved ^ 1
        }
        return SearchResult(mv: SIMD2(Int16(qx), Int16(qy)), cost: best, bits: bestBits)
    }
}
