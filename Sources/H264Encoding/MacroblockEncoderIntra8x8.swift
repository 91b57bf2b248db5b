/// Intra 8x8 (I_NxN with transform_size_8x8_flag = 1, High profile): per 8x8 block the best of the nine
/// modes by SA8D + λ·mode bits, its residual coded and rebuilt at once (the next block predicts from it).
extension MacroblockEncoder {
    /// Codes the luma of the macroblock as Intra 8x8 into `mb` (already reset as `.intra4x4`) and `st`;
    /// returns its cost, or Int32.max once the cost reaches `limit` (the macroblock is then left half coded).
    mutating func codeIntra8x8(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState, _ n: IntraPrediction.Neighbours,
                               srcY: UnsafeMutablePointer<UInt8>, recY: UnsafeMutablePointer<UInt8>, limit: Int32) -> Int32 {
        let w = ctx.widthInMbs
        // 8.3.2.1: a neighbouring macroblock's Intra4x4PredMode (or Intra8x8PredMode, kept per 4x4 block)
        // next to the 8x8 block's top-left 4x4 block
        let leftModes: SIMD16<UInt8>? = n.left ? ctx.state[mbAddr - 1].intra4x4Modes : nil
        let topModes: SIMD16<UInt8>? = n.top ? ctx.state[mbAddr - w].intra4x4Modes : nil
        var modes = SIMD4<UInt8>(repeating: 2)
        var total: Int32 = lambda * 4
        var cbp = 0
        var nonZero: UInt16 = 0
        let rs = ctx.reconY.stride, ss = ctx.sourceY.stride
        mb.transformSize8x8Flag = true
        for b8 in 0..<4 {
            let x8 = b8 & 1, y8 = b8 >> 1
            var bn = IntraPrediction.Neighbours()
            bn.left = x8 > 0 || n.left
            bn.top = y8 > 0 || n.top
            bn.topLeft = x8 > 0 && y8 > 0 ? true : (y8 > 0 ? n.left : (x8 > 0 ? n.top : n.topLeft))
            bn.topRight = y8 == 0 ? (x8 == 0 ? n.top : n.topRight) : x8 == 0
            let modeA: UInt8? = x8 > 0 ? modes[b8 - 1] : leftModes.map { $0[3 + 8 * y8] }
            let modeB: UInt8? = y8 > 0 ? modes[b8 - 2] : topModes.map { $0[12 + 2 * x8] }
            var predMode = 2
            if let modeA, let modeB { predMode = Int(min(modeA, modeB)) }
            let rec = recY + 8 * y8 * rs + 8 * x8
            let src = srcY + 8 * y8 * ss + 8 * x8
            let pred = s.predY + 8 * y8 * 16 + 8 * x8
            IntraPrediction.loadEdge8x8(at: rec, stride: rs, bn, into: s.edge8)
            IntraPrediction.filterEdge8x8(s.edge8, into: s.edgeLines)
            var bestCost = Int32.max, bestMode = 2
            // vertical, horizontal and DC costed in the transform domain, formed only when best so far
            let hadamard = SourceHadamard8x8(src, stride: ss)
            let e = s.edge8
            for mode in 0..<9 where IntraPrediction.isAvailable4x4(mode: mode, bn) {
                let sa8d: Int32
                switch mode {
                case 0: sa8d = hadamard.sa8dVertical(SIMD8(e[9], e[10], e[11], e[12], e[13], e[14], e[15], e[16]))
                case 1: sa8d = hadamard.sa8dHorizontal(SIMD8(e[7], e[6], e[5], e[4], e[3], e[2], e[1], e[0]))
                case 2: sa8d = hadamard.sa8dFlat(IntraPrediction.dc8x8(edge: e, bn))
                default:
                    IntraPrediction.predict8x8(mode: mode, edge: e, lines: s.edgeLines, bn, dst: s.candY, dstStride: 16)
                    sa8d = hadamard.sa8d(s.candY, stride: 16)
                }
                let cost = sa8d + lambda * (mode == predMode ? 1 : 4)
                if cost < bestCost {
                    bestCost = cost; bestMode = mode
                    if mode <= 2 {
                        IntraPrediction.predict8x8(mode: mode, edge: e, lines: s.edgeLines, bn, dst: pred, dstStride: 16)
                    } else {
                        for r in 0..<8 { (pred + 16 * r).update(from: s.candY + 16 * r, count: 8) }
                    }
                }
            }
            total += bestCost
            if total >= limit { return Int32.max }
            modes[b8] = UInt8(bestMode)
            mb.prevIntra4x4PredModeFlag[b8] = bestMode == predMode
            mb.remIntra4x4PredMode[b8] = UInt8(bestMode <= predMode ? bestMode : bestMode - 1)
            let coef = s.coef8 + 64 * b8, levels = s.levels8 + 64 * b8
            Transform8x8.forward(src: src, srcStride: ss, pred: pred, predStride: 16, coef: coef)
            let count = Transform8x8.quantize(coef, levels: levels, qp: qp, deadZone: Self.intraDeadZone)
            if count > 0 {
                cbp |= 1 << b8
                nonZero |= UInt16(0x33) << UInt16(2 * x8 + 8 * y8)
                Self.scan8x8(levels, into: &mb.luma, at: 64 * b8)
            }
            Transform8x8.reconstruct(levels: levels, count: count, qp: qp, d: coef, pred: pred, predStride: 16, dst: rec, dstStride: rs)
        }
        mb.codedBlockPatternLuma = cbp
        st.nonZero = nonZero
        var perBlock = SIMD16<UInt8>(repeating: 2)
        for r in 0..<16 { perBlock[r] = modes[((r >> 3) << 1) | ((r & 3) >> 1)] }
        st.intra4x4Modes = perBlock
        return total
    }

    /// What an Intra4x4 coding left that a later Intra 8x8 trial overwrites (the luma levels and the
    /// reconstruction go to the scratch, coefMB and bestY, which neither trial uses).
    struct SavedIntraNxN {
        var prevFlags: SIMD16<UInt8>, remModes: SIMD16<UInt8>
        var cbp: Int, nonZero: UInt16, modes: SIMD16<UInt8>
    }

    func saveIntraNxN(_ mb: MacroblockSyntax, _ st: MacroblockState, recY: UnsafeMutablePointer<UInt8>) -> SavedIntraNxN {
        var saved = SavedIntraNxN(prevFlags: .zero, remModes: .zero, cbp: mb.codedBlockPatternLuma, nonZero: st.nonZero, modes: st.intra4x4Modes)
        for k in 0..<16 { saved.prevFlags[k] = mb.prevIntra4x4PredModeFlag[k] ? 1 : 0; saved.remModes[k] = mb.remIntra4x4PredMode[k] }
        mb.luma.withUnsafeBufferPointer { l in if let base = l.baseAddress { s.coefMB.update(from: base, count: 256) } }
        let rs = ctx.reconY.stride
        for r in 0..<16 { (s.bestY + 16 * r).update(from: recY + r * rs, count: 16) }
        return saved
    }

    /// Puts back what ``saveIntraNxN(_:_:recY:)`` kept: the same as coding Intra4x4 again.
    func restoreIntraNxN(_ saved: SavedIntraNxN, _ mb: inout MacroblockSyntax, _ st: inout MacroblockState, recY: UnsafeMutablePointer<UInt8>) {
        mb.reset(kind: .intra4x4)
        for k in 0..<16 { mb.prevIntra4x4PredModeFlag[k] = saved.prevFlags[k] != 0; mb.remIntra4x4PredMode[k] = saved.remModes[k] }
        mb.luma.withUnsafeMutableBufferPointer { l in l.baseAddress?.update(from: s.coefMB, count: 256) }
        mb.codedBlockPatternLuma = saved.cbp
        st.nonZero = saved.nonZero
        st.intra4x4Modes = saved.modes
        let rs = ctx.reconY.stride
        for r in 0..<16 { (recY + r * rs).update(from: s.bestY + 16 * r, count: 16) }
    }
}
