/// 16x8 and 8x16 partitions (Tables 7-13, 7-14): P_L0_L0_16x8 / 8x16 and B_X_Y_16x8 / 8x16, each partition
/// with its own motion (and, in B, its own prediction: L0, L1 or Bi), chosen on SATD + λ·bits against the
/// best 16x16 choice.
extension MacroblockEncoder {
    /// One partition's choice: its prediction, vectors and reference indices per list, and its cost.
    struct PartitionChoice {
        var prediction = MacroblockSyntax.PartitionPrediction.l0
        var mv = SIMD4<Int16>.zero  // mvL0 x, y, mvL1 x, y
        var mvp = SIMD4<Int16>.zero
        var refIdx = SIMD2<Int8>(0, -1)
        var cost: Int32 = 0
    }

    /// Partitions are tried only without weighted prediction (its weights apply to whole macroblocks here).
    var partitionsAllowed: Bool { weights.mode == .none }

    /// The geometry of partition `part`: (x, y, w, h) in the macroblock.
    @inline(__always) static func partitionRect(wide: Bool, part: Int) -> (Int, Int, Int, Int) {
        wide ? (0, 8 * part, 16, 8) : (8 * part, 0, 8, 16)
    }

    /// How far a P partitioning's whole-sample cost may lie above the 16x16 vector's for its sub-sample stage to run,
    /// as a right shift of the latter: 3 (1/8) without B pictures, 4 (1/16) with them. In streams with B pictures the shapes
    /// refined between 1/16 and 1/8 above cost 17% of the P pictures' refinements for 3% of their cost gains
    /// (callgrind, 12 frames 720p QP 27, B-pyramid: −3.1% instructions; BD-rate against x264 veryfast on the
    /// encoder table's B rows −0.86% → −0.73% VID, −2.41% → −2.36% KristenAndSara; 1/32 saved 5.0% at −0.41% and
    /// −2.27%). Without B pictures any margin below 1/8 lost 0.08 to 0.10 dB V in `make roundtrip` (its chroma follows
    /// vectors the luma cost cannot tell apart), so P-only streams keep 1/8.
    var refinementShift: Int32 { ctx.bPicturesFollow ? 4 : 3 }

    /// The best P partitioning (16x8 or 8x16, both partitions on `refIdx`), with its cost including λ·(mb_type
    /// and ref_idx bits); nil when neither is cheaper than `limit`.
    func bestPPartitions(refIdx: Int, start: SIMD2<Int16>, startBits: Int32, limit: Int32)
        -> (wide: Bool, parts: (PartitionChoice, PartitionChoice), cost: Int32)? {
        let ref = ctx.list0[refIdx]
        let n = MotionVectorPrediction.Surroundings(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 0)
        let r = Int8(refIdx)
        let refBits = 2 * Self.refIdxBits(refIdx, count: ctx.list0.count)
        let whole = integerCost16x16(ref, mv: start, bits: startBits)
        // The integer stage of both partitions of both shapes first (partition 1 predicted from partition 0's
        // whole-sample vector); the sub-sample stage for each shape that comes within 2^−`refinementShift` of the 16x16
        // vector's cost there (sub-samples may still win). Refining both shapes in P pictures also helps the B pictures
        // that predict from them (−1% BD-rate on the B row of the 720p clip).
        func integerStage(_ wide: Bool) -> (mvp0: SIMD2<Int16>, i0: (position: SIMD2<Int>, cost: Int32), i1: (position: SIMD2<Int>, cost: Int32), total: Int32) {
            let (x0, y0, w, h) = Self.partitionRect(wide: wide, part: 0), (x1, y1, _, _) = Self.partitionRect(wide: wide, part: 1)
            let mvp0 = n.predict(wide: wide, part: 0, refIdx: r, first: MotionVectorPrediction.Neighbour())
            let i0 = integerSearchPartition(ref, px: x0, py: y0, w: w, h: h, mvp: mvp0, starts: SIMD4(start.x, start.y, start.x, start.y))
            let rough = MotionVectorPrediction.Neighbour(available: true, refIdx: r, mv: SIMD2(Int16(4 * i0.position.x), Int16(4 * i0.position.y)))
            let i1 = integerSearchPartition(ref, px: x1, py: y1, w: w, h: h, mvp: n.predict(wide: wide, part: 1, refIdx: r, first: rough),
                                            starts: SIMD4(start.x, start.y, rough.mv.x, rough.mv.y))
            return (mvp0, i0, i1, i0.cost + i1.cost + lambda * 2)
        }
        let horizontal = integerStage(true), vertical = integerStage(false)
        var best: (wide: Bool, parts: (PartitionChoice, PartitionChoice), cost: Int32)? = nil
        // Without B pictures a shape well behind the other at whole samples is not refined (1/64: 5.5% fewer
        // instructions for P-only streams at +0.1 to +0.3% BD-rate; make roundtrip's pattern kept its PSNR to 1/64, lost 0.12 dB
        // Y when only the lower shape was refined).
        let closer = min(horizontal.total, vertical.total)
        let wholeSample = SIMD2((Int(start.x) + 2) >> 2, (Int(start.y) + 2) >> 2)
        for wide in [true, false] where ctx.bPicturesFollow || (wide ? horizontal : vertical).total <= closer + closer >> 6 {
            let stage = wide ? horizontal : vertical
            guard stage.total < whole + whole >> refinementShift else { continue }
            // A shape whose two partitions both stay at the 16x16 vector's whole-sample position can differ from it
            // only in sub-sample parts: it is refined from that vector alone (`fromStart`), given up when partition 0
            // keeps the vector, and not refined at all below a 16x16 cost of 200λ. On 12 frames of the 720p clip at
            // QP 27, P only, such shapes took 46% of the refinements (16.5k of 36.0k) for 31% of the partitioned
            // macroblocks (1,391 of 4,474) and 23% of the partitions' cost gains, half of those refinements below 200λ
            // for a fifth of those gains; in `make roundtrip`'s pattern 72% of the refinements for 66 of 3,568
            // partitioned macroblocks. Callgrind, those 12 frames: 1,818M → 1,722M instructions P only (−5.3%), 1,529M →
            // 1,515M with B-pyramid; encoder table BD-rate against x264 veryfast +3.84% → +4.28% VID P, −0.84% → −0.45%
            // VID B, +0.18% → +0.34% KristenAndSara P, −2.26% → −2.12% B; `make roundtrip` 430.3 → 430.7 kbit/s, Y 47.29 →
            // 47.27, U 47.09 → 47.14, V 43.21 → 43.22 dB. Without the 200λ floor −4.3% instructions only; skipping these
            // shapes altogether −6.3% but −0.05 dB Y in `make roundtrip`; refining only the better of two such shapes
            // lost 0.05 to 0.09 dB Y there, refining from the vector every partition that stays at its position 0.11 dB Y.
            let sameAsWhole = stage.i0.position == wholeSample && stage.i1.position == wholeSample
            if sameAsWhole && limit < lambda * 200 { continue }
            let (x0, y0, w, h) = Self.partitionRect(wide: wide, part: 0), (x1, y1, _, _) = Self.partitionRect(wide: wide, part: 1)
            let mvp0 = stage.mvp0
            let f0 = refinePartition(ref, px: x0, py: y0, w: w, h: h, mvp: mvp0, integer: stage.i0.position, start: start, fromStart: sameAsWhole)
            if sameAsWhole && f0.mv == start { continue }
            // Partition 1 is refined only when partition 0's cost plus an estimate of its own stays below the bound
            // (x264's early termination of 16x8 / 8x16), the estimate being 3/4 of its whole-sample cost scaled as partition
            // 0's was by refinement (the VID B row lost 0.5% BD-rate with the whole of it, nothing with 3/4).
            let estimate1 = Int32(clamping: Int64(stage.i1.cost) * Int64(f0.cost) * 3 / Int64(4 * max(stage.i0.cost, 1)))
            guard lambda * (3 + refBits) + f0.cost + estimate1 < (best?.cost ?? limit) else { continue }
            let first = MotionVectorPrediction.Neighbour(available: true, refIdx: r, mv: f0.mv)
            let mvp1 = n.predict(wide: wide, part: 1, refIdx: r, first: first)
            let f1 = refinePartition(ref, px: x1, py: y1, w: w, h: h, mvp: mvp1, integer: stage.i1.position, start: start,
                                     fromStart: sameAsWhole)
            let total = lambda * (3 + refBits) + f0.cost + f1.cost
            guard total < (best?.cost ?? limit) else { continue }
            let parts = (PartitionChoice(prediction: .l0, mv: SIMD4(f0.mv.x, f0.mv.y, 0, 0), mvp: SIMD4(mvp0.x, mvp0.y, 0, 0), refIdx: SIMD2(r, -1), cost: f0.cost),
                         PartitionChoice(prediction: .l0, mv: SIMD4(f1.mv.x, f1.mv.y, 0, 0), mvp: SIMD4(mvp1.x, mvp1.y, 0, 0), refIdx: SIMD2(r, -1), cost: f1.cost))
            best = (wide, parts, total)
        }
        return best
    }

    /// The best B partitioning (16x8 or 8x16; per partition L0, L1 or the average of both, on refIdx 0), its
    /// cost including λ·(mb_type bits); nil when neither is cheaper than `limit`.
    func bestBPartitions(start0: SearchResult, start1: SearchResult, limit: Int32)
        -> (wide: Bool, parts: (PartitionChoice, PartitionChoice), cost: Int32)? {
        let ref0 = ctx.list0[0], ref1 = ctx.list1[0]
        let n0 = MotionVectorPrediction.Surroundings(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 0)
        let n1 = MotionVectorPrediction.Surroundings(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 1)
        var best: (wide: Bool, parts: (PartitionChoice, PartitionChoice), cost: Int32)? = nil
        let whole = min(integerCost16x16(ref0, mv: start0.mv, bits: start0.bits), integerCost16x16(ref1, mv: start1.mv, bits: start1.bits) + lambda)
        let s0 = SIMD4(start0.mv.x, start0.mv.y, start0.mv.x, start0.mv.y), s1 = SIMD4(start1.mv.x, start1.mv.y, start1.mv.x, start1.mv.y)
        // The integer stage of both shapes first (both lists), then the rest for the better shape, when it comes
        // within 1/8 of the 16x16 vectors there (refining both gains nothing measurable in B pictures).
        typealias Found = (position: SIMD2<Int>, cost: Int32)
        func integerStage(_ wide: Bool) -> (a0: Found, a1: Found, b0: Found, b1: Found, total: Int32) {
            let (x0, y0, w0, h0) = Self.partitionRect(wide: wide, part: 0), (x1, y1, _, _) = Self.partitionRect(wide: wide, part: 1)
            let none = MotionVectorPrediction.Neighbour()
            let a0 = integerSearchPartition(ref0, px: x0, py: y0, w: w0, h: h0, mvp: n0.predict(wide: wide, part: 0, refIdx: 0, first: none), starts: s0)
            let a1 = integerSearchPartition(ref1, px: x0, py: y0, w: w0, h: h0, mvp: n1.predict(wide: wide, part: 0, refIdx: 0, first: none), starts: s1)
            let rough0 = MotionVectorPrediction.Neighbour(available: true, refIdx: 0, mv: SIMD2(Int16(4 * a0.position.x), Int16(4 * a0.position.y)))
            let rough1 = MotionVectorPrediction.Neighbour(available: true, refIdx: 0, mv: SIMD2(Int16(4 * a1.position.x), Int16(4 * a1.position.y)))
            let b0 = integerSearchPartition(ref0, px: x1, py: y1, w: w0, h: h0, mvp: n0.predict(wide: wide, part: 1, refIdx: 0, first: rough0), starts: s0)
            let b1 = integerSearchPartition(ref1, px: x1, py: y1, w: w0, h: h0, mvp: n1.predict(wide: wide, part: 1, refIdx: 0, first: rough1), starts: s1)
            return (a0, a1, b0, b1, min(a0.cost, a1.cost + lambda) + min(b0.cost, b1.cost + lambda) + lambda * 4)
        }
        let horizontal = integerStage(true), vertical = integerStage(false)
        let better = horizontal.total <= vertical.total
        for wide in [better] {
            let stage = wide ? horizontal : vertical
            guard stage.total < whole + whole >> 3 else { continue }
            let (a0, a1, b0, b1) = (stage.a0, stage.a1, stage.b0, stage.b1)
            var parts = (PartitionChoice(), PartitionChoice())
            var total: Int32 = 0
            var first0 = MotionVectorPrediction.Neighbour(), first1 = MotionVectorPrediction.Neighbour()
            for part in 0..<2 {
                // every choice costs at least nothing: partition 1 cannot save a shape partition 0 has lost
                if part == 1 && total + lambda * 6 >= (best?.cost ?? limit) { break }
                let (px, py, w, h) = Self.partitionRect(wide: wide, part: part)
                let src = ctx.sourceY.at(16 * mbx + px, 16 * mby + py), ss = ctx.sourceY.stride
                let mvp0 = n0.predict(wide: wide, part: part, refIdx: 0, first: first0)
                let mvp1 = n1.predict(wide: wide, part: part, refIdx: 0, first: first1)
                let f0 = refinePartition(ref0, px: px, py: py, w: w, h: h, mvp: mvp0, integer: part == 0 ? a0.position : b0.position, start: start0.mv)
                let f1 = refinePartition(ref1, px: px, py: py, w: w, h: h, mvp: mvp1, integer: part == 0 ? a1.position : b1.position, start: start1.mv)
                // Bi: the two single-list vectors, averaged
                predictPartitionLuma(ref0, mv: f0.mv, px: px, py: py, w: w, h: h, into: s.candY)
                predictPartitionLuma(ref1, mv: f1.mv, px: px, py: py, w: w, h: h, into: s.tmpY)
                for row in 0..<h { InterPrediction.average(s.candY + 16 * row, s.tmpY + 16 * row, count: w) }
                let biCost = Self.partitionSATD(src, ss, s.candY, 16, w: w, h: h) + lambda * (f0.bits + f1.bits)
                var choice = PartitionChoice(mv: SIMD4(f0.mv.x, f0.mv.y, f1.mv.x, f1.mv.y), mvp: SIMD4(mvp0.x, mvp0.y, mvp1.x, mvp1.y))
                // about one bit of mb_type per partition's choice beyond L0
                if biCost + lambda * 2 < min(f0.cost, f1.cost + lambda) {
                    choice.prediction = .bi; choice.refIdx = SIMD2(0, 0); choice.cost = biCost + lambda * 2
                } else if f1.cost + lambda < f0.cost {
                    choice.prediction = .l1; choice.refIdx = SIMD2(-1, 0); choice.cost = f1.cost + lambda
                } else {
                    choice.prediction = .l0; choice.refIdx = SIMD2(0, -1); choice.cost = f0.cost
                }
                if part == 0 { parts.0 = choice } else { parts.1 = choice }
                total += choice.cost
                first0 = choice.prediction.usesL0 ? MotionVectorPrediction.Neighbour(available: true, refIdx: 0, mv: f0.mv)
                    : MotionVectorPrediction.Neighbour(available: true, refIdx: -1, mv: .zero)
                first1 = choice.prediction.usesL1 ? MotionVectorPrediction.Neighbour(available: true, refIdx: 0, mv: f1.mv)
                    : MotionVectorPrediction.Neighbour(available: true, refIdx: -1, mv: .zero)
            }
            total += lambda * 6  // mb_type 4...21
            if total < (best?.cost ?? limit) { best = (wide, parts, total) }
        }
        return best
    }

    /// Codes a partitioned macroblock: prediction of each partition, residual, reconstruction, syntax and state.
    mutating func codePartitions(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState, wide: Bool,
                                 parts: (PartitionChoice, PartitionChoice), bSlice: Bool) {
        if bSlice {
            mb.reset(kind: wide ? .b16x8(parts.0.prediction, parts.1.prediction) : .b8x16(parts.0.prediction, parts.1.prediction))
        } else {
            mb.reset(kind: wide ? .p16x8 : .p8x16)
        }
        st.kind = .inter
        st.partitioned = true
        st.intra4x4Modes = SIMD16(repeating: 2)
        for part in 0..<2 {
            let c = part == 0 ? parts.0 : parts.1
            let (px, py, w, h) = Self.partitionRect(wide: wide, part: part)
            let pred = c.prediction
            let mv0 = SIMD2(c.mv[0], c.mv[1]), mv1 = SIMD2(c.mv[2], c.mv[3])
            let dy = s.predY + 16 * py + px, dcb = s.predCb + 8 * (py / 2) + px / 2, dcr = s.predCr + 8 * (py / 2) + px / 2
            if pred.usesL0 {
                let ref = ctx.list0[Int(c.refIdx[0])]
                predictPartitionLuma(ref, mv: mv0, px: px, py: py, w: w, h: h, into: dy)
                predictPartitionChroma(ref, mv: mv0, px: px, py: py, w: w, h: h, cb: dcb, cr: dcr)
            }
            if pred.usesL1 {
                let ref = ctx.list1[Int(c.refIdx[1])]
                let ty = pred == .bi ? s.tmpY + 16 * py + px : dy
                let tcb = pred == .bi ? s.tmpCb + 8 * (py / 2) + px / 2 : dcb, tcr = pred == .bi ? s.tmpCr + 8 * (py / 2) + px / 2 : dcr
                predictPartitionLuma(ref, mv: mv1, px: px, py: py, w: w, h: h, into: ty)
                predictPartitionChroma(ref, mv: mv1, px: px, py: py, w: w, h: h, cb: tcb, cr: tcr)
                if pred == .bi {
                    for row in 0..<h { InterPrediction.average(dy + 16 * row, ty + 16 * row, count: w) }
                    for row in 0..<(h / 2) {
                        InterPrediction.average(dcb + 8 * row, tcb + 8 * row, count: w / 2)
                        InterPrediction.average(dcr + 8 * row, tcr + 8 * row, count: w / 2)
                    }
                }
            }
            let d0 = (Int32(mv0.x - c.mvp[0]), Int32(mv0.y - c.mvp[1])), d1 = (Int32(mv1.x - c.mvp[2]), Int32(mv1.y - c.mvp[3]))
            if part == 0 {
                mb.refIdxL0 = max(Int(c.refIdx[0]), 0); mb.refIdxL1 = max(Int(c.refIdx[1]), 0)
                if pred.usesL0 { mb.mvdL0 = d0 }
                if pred.usesL1 { mb.mvdL1 = d1 }
            } else {
                mb.refIdxL0Part1 = max(Int(c.refIdx[0]), 0); mb.refIdxL1Part1 = max(Int(c.refIdx[1]), 0)
                if pred.usesL0 { mb.mvdL0Part1 = d0 }
                if pred.usesL1 { mb.mvdL1Part1 = d1 }
            }
            let stored = SIMD4(pred.usesL0 ? mv0.x : 0, pred.usesL0 ? mv0.y : 0, pred.usesL1 ? mv1.x : 0, pred.usesL1 ? mv1.y : 0)
            let q0 = wide ? 2 * part : part, q1 = wide ? 2 * part + 1 : part + 2
            st.setQuadrant(q0, refIdx: c.refIdx, mv: stored, pictures: pictures(c.refIdx))
            st.setQuadrant(q1, refIdx: c.refIdx, mv: stored, pictures: pictures(c.refIdx))
        }
        let luma = codeLumaInterChoosingTransform(&mb, probedCBP: nil)
        mb.codedBlockPatternLuma = luma.cbp
        mb.codedBlockPatternChroma = codeChroma(&mb, intra: false)
        st.nonZero = luma.nonZero
    }

    /// The chroma prediction of a partition (half its luma size) into `cb`, `cr` (stride 8).
    func predictPartitionChroma(_ ref: ReferencePlanes, mv: SIMD2<Int16>, px: Int, py: Int, w: Int, h: Int,
                                cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) {
        let mx = Int(mv.x), my = Int(mv.y)
        let cx = 8 * mbx + px / 2 + (mx >> 3), cy = 8 * mby + py / 2 + (my >> 3)
        InterPrediction.predictChroma(ref.cb, width: ref.width / 2, height: ref.height / 2, padding: ref.padding / 2, x: cx, y: cy,
                                      fx: mx & 7, fy: my & 7, w: w / 2, h: h / 2, dst: cb, dstStride: 8)
        InterPrediction.predictChroma(ref.cr, width: ref.width / 2, height: ref.height / 2, padding: ref.padding / 2, x: cx, y: cy,
                                      fx: mx & 7, fy: my & 7, w: w / 2, h: h / 2, dst: cr, dstStride: 8)
    }
}
