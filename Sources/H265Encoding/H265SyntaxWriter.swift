import CABACCoding

/// The slice data syntax of H.265 (7.3.8) as CABAC bins: each element's binarization (9.3.3) and
/// context selection (9.3.4.2), over the shared arithmetic engine.
struct H265SyntaxWriter {
    var engine = CABACEncoder(reservingCapacity: 1 << 16)

    /// 9.3.2.2: every context from its initValue for the slice's initType and SliceQpY.
    mutating func initialiseContexts(initType: Int, sliceQP: Int) {
        let values = H265Context.initValues[initType]
        let qp = min(max(sliceQP, 0), 51)
        for i in 0..<H265Context.count {
            let v = Int(values[i])
            let m = (v >> 4) * 5 - 45, n = ((v & 15) << 3) - 16
            let pre = min(max(((m * qp) >> 4) + n, 1), 126)
            engine.contexts[i] = pre <= 63 ? UInt8((63 - pre) << 1) : UInt8((pre - 64) << 1 | 1)
        }
        engine.initialise()
    }

    /// While true, bins are kept in ``recorded`` instead of being coded: a slice whose sao() syntax is decided
    /// after its CTBs are coded records them, then ``replay(_:)``s them after each CTB's sao() (the sao
    /// contexts are no other element's, so the other bins code the same either way).
    var recording = false
    /// Recorded bins: bits 0-1 the kind (0 context-coded, 1 bypass, 2 bypass bits, 3 terminate); bit 2 the bin;
    /// context-coded: ctxIdx from bit 3; bypass bits: the count in bits 2-7, the value from bit 8.
    var recorded: [UInt64] = []

    @inline(__always) mutating func bin(_ b: Bool, _ ctx: Int) {
        if recording { recorded.append(UInt64(ctx) << 3 | (b ? 4 : 0)); return }
        engine.encodeDecision(b, ctx)
    }
    @inline(__always) mutating func bypass(_ b: Bool) {
        if recording { recorded.append(b ? 5 : 1); return }
        engine.encodeBypass(b)
    }
    @inline(__always) mutating func bypassBits(_ value: Int, _ count: Int) {
        if recording { recorded.append(UInt64(truncatingIfNeeded: value) << 8 | UInt64(count) << 2 | 2); return }
        engine.encodeBypassBits(UInt32(value), count: count)
    }
    /// A terminate bin: end_of_slice_segment_flag, pcm_flag.
    mutating func terminate(_ b: Bool) {
        if recording { recorded.append(b ? 7 : 3); return }
        engine.encodeTerminate(b)
    }

    /// Codes recorded bins.
    mutating func replay(_ bins: ArraySlice<UInt64>) {
        for e in bins {
            switch e & 3 {
            case 0: engine.encodeDecision(e & 4 != 0, Int(e >> 3))
            case 1: engine.encodeBypass(e & 4 != 0)
            case 2: engine.encodeBypassBits(UInt32(truncatingIfNeeded: e >> 8), count: Int((e >> 2) & 63))
            default: engine.encodeTerminate(e & 4 != 0)
            }
        }
    }

    /// end_of_slice_segment_flag (terminate bin; 1 flushes and ends the arithmetic code).
    mutating func endOfSliceSegment(_ last: Bool) { terminate(last) }

    /// sao() (7.3.8.3): the merge flags where sao() has them, then, unless merged, each enabled component's
    /// SaoTypeIdx (TR cMax 2, first bin context-coded, Cr's taken from Cb), offsets (TR, bypass), signs and
    /// band position, or edge class (9.3.3, 9.3.4.2).
    mutating func sao(_ syntax: H265SAOSyntax, mergeLeftPossible: Bool, mergeUpPossible: Bool, luma: Bool, chroma: Bool, bitDepth: Int) {
        if mergeLeftPossible {
            bin(syntax == .mergeLeft, H265Context.saoMergeFlag)
            if syntax == .mergeLeft { return }
        }
        if mergeUpPossible {
            bin(syntax == .mergeUp, H265Context.saoMergeFlag)
            if syntax == .mergeUp { return }
        }
        guard case .new(let parameters) = syntax else { return }
        let cMax = H265SAOParameters.maxOffset(bitDepth: bitDepth)
        for cIdx in 0..<3 where cIdx == 0 ? luma : chroma {
            let c = parameters.components[cIdx]
            if cIdx < 2 {
                bin(c.kind != .off, H265Context.saoTypeIdx)
                if c.kind != .off { bypass(c.kind == .edge) }
            }
            guard c.kind != .off else { continue }
            for o in c.offsets {
                let a = abs(o)
                for _ in 0..<a { bypass(true) }
                if a < cMax { bypass(false) }
            }
            if c.kind == .band {
                for o in c.offsets where o != 0 { bypass(o < 0) }
                bypassBits(c.bandPosition, 5)
            } else if cIdx < 2 {
                bypassBits(c.eoClass, 2)
            }
        }
    }

    mutating func splitCUFlag(_ split: Bool, ctxInc: Int) { bin(split, H265Context.splitCUFlag + ctxInc) }
    mutating func cuSkipFlag(_ skip: Bool, ctxInc: Int) { bin(skip, H265Context.cuSkipFlag + ctxInc) }
    /// pred_mode_flag: 1 is MODE_INTRA.
    mutating func predModeFlag(intra: Bool) { bin(intra, H265Context.predModeFlag) }
    /// part_mode of an intra CU: bin 1 is PART_2Nx2N, 0 PART_NxN.
    mutating func partModeIntra(nxn: Bool) { bin(!nxn, H265Context.partMode) }

    /// part_mode of an inter CU (9.3.3.7, Table 9-43 contexts).
    mutating func partModeInter(_ mode: H265PartMode, log2CbSize: Int, minCbLog2: Int, amp: Bool) {
        if mode == .p2Nx2N { bin(true, H265Context.partMode); return }
        bin(false, H265Context.partMode)
        if log2CbSize == minCbLog2 {
            if mode == .p2NxN { bin(true, H265Context.partMode + 1); return }
            bin(false, H265Context.partMode + 1)
            if log2CbSize == 3 { return }  // Nx2N
            bin(mode == .pNx2N, H265Context.partMode + 2)
            return
        }
        let horizontal = mode == .p2NxN || mode == .p2NxnU || mode == .p2NxnD
        bin(horizontal, H265Context.partMode + 1)
        guard amp else { return }
        let symmetric = mode == .p2NxN || mode == .pNx2N
        bin(symmetric, H265Context.partMode + 3)
        if !symmetric { bypass(mode == .p2NxnD || mode == .pnRx2N) }
    }

    /// prev_intra_luma_pred_flag, then mpm_idx (TR, cMax 2, bypass) or rem_intra_luma_pred_mode (5 bits).
    mutating func intraLumaMode(mpmIndex: Int?, remainder: Int) {
        if let mpmIndex {
            bin(true, H265Context.prevIntraLumaPredFlag)
            bypass(mpmIndex > 0)
            if mpmIndex > 0 { bypass(mpmIndex > 1) }
        } else {
            bin(false, H265Context.prevIntraLumaPredFlag)
            bypassBits(remainder, 5)
        }
    }

    /// intra_chroma_pred_mode: 4 (DM) is the single bin 0; 0...3 are 1 then two bypass bits.
    mutating func intraChromaPredMode(_ mode: Int) {
        if mode == 4 { bin(false, H265Context.intraChromaPredMode); return }
        bin(true, H265Context.intraChromaPredMode)
        bypassBits(mode, 2)
    }

    mutating func mergeFlag(_ merge: Bool) { bin(merge, H265Context.mergeFlag) }

    /// merge_idx: TR with cMax MaxNumMergeCand - 1, the first bin context coded, the rest bypass.
    mutating func mergeIdx(_ index: Int, maxNumMergeCand: Int) {
        guard maxNumMergeCand > 1 else { return }
        for i in 0..<(maxNumMergeCand - 1) {
            let one = i < index
            if i == 0 { bin(one, H265Context.mergeIdx) } else { bypass(one) }
            if !one { break }
        }
    }

    /// inter_pred_idc (9.3.4.2.2): 0 PRED_L0, 1 PRED_L1, 2 PRED_BI.
    mutating func interPredIdc(_ idc: Int, nPbW: Int, nPbH: Int, ctDepth: Int) {
        if nPbW + nPbH != 12 {
            bin(idc == 2, H265Context.interPredIdc + ctDepth)
            if idc == 2 { return }
        }
        bin(idc == 1, H265Context.interPredIdc + 4)
    }

    /// ref_idx_lX: TR with cMax num_ref_idx_active - 1; two context-coded bins, then bypass.
    mutating func refIdx(_ index: Int, numRefIdxActive: Int) {
        let cMax = numRefIdxActive - 1
        guard cMax > 0 else { return }
        for i in 0..<cMax {
            let one = i < index
            if i < 2 { bin(one, H265Context.refIdx + i) } else { bypass(one) }
            if !one { break }
        }
    }

    /// mvd_coding() (7.3.8.9).
    mutating func mvd(_ x: Int, _ y: Int) {
        let ax = abs(x), ay = abs(y)
        bin(ax > 0, H265Context.absMvdGreater0Flag)
        bin(ay > 0, H265Context.absMvdGreater0Flag)
        if ax > 0 { bin(ax > 1, H265Context.absMvdGreater1Flag) }
        if ay > 0 { bin(ay > 1, H265Context.absMvdGreater1Flag) }
        if ax > 0 {
            if ax > 1 { expGolomb(ax - 2, k: 1) }
            bypass(x < 0)
        }
        if ay > 0 {
            if ay > 1 { expGolomb(ay - 2, k: 1) }
            bypass(y < 0)
        }
    }

    mutating func mvpFlag(_ flag: Int) { bin(flag != 0, H265Context.mvpFlag) }
    mutating func rqtRootCbf(_ cbf: Bool) { bin(cbf, H265Context.rqtRootCbf) }

    /// k-th order Exp-Golomb in bypass bins (9.3.3.3).
    mutating func expGolomb(_ value: Int, k: Int) {
        var v = value, k = k
        while v >= (1 << k) {
            bypass(true)
            v -= 1 << k
            k += 1
        }
        bypass(false)
        if k > 0 { bypassBits(v, k) }
    }

    mutating func splitTransformFlag(_ split: Bool, log2TrafoSize: Int) { bin(split, H265Context.splitTransformFlag + 5 - log2TrafoSize) }
    mutating func cbfLuma(_ cbf: Bool, trafoDepth: Int) { bin(cbf, H265Context.cbfLuma + (trafoDepth == 0 ? 1 : 0)) }
    mutating func cbfChroma(_ cbf: Bool, trafoDepth: Int) { bin(cbf, H265Context.cbfChroma + trafoDepth) }

    /// cu_qp_delta_abs (prefix TU cMax 5 with contexts 0, 1, 1, 1, 1; suffix EG0) and its sign.
    mutating func cuQPDelta(_ delta: Int) {
        let a = abs(delta)
        for i in 0..<min(a + 1, 5) {
            bin(i < a, H265Context.cuQPDeltaAbs + (i == 0 ? 0 : 1))
        }
        if a >= 5 { expGolomb(a - 5, k: 0) }
        if a > 0 { bypass(delta < 0) }
    }
}

/// PartMode (Table 7-10).
enum H265PartMode: Int, Sendable {
    case p2Nx2N = 0, p2NxN, pNx2N, pNxN, p2NxnU, p2NxnD, pnLx2N, pnRx2N
}
