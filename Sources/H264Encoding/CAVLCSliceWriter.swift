import H264Bitstream

/// slice_data() with CAVLC (7.3.4, 7.3.5, 9.2): mb_skip_run, the macroblock layer, and residual blocks
/// with coeff_token / level / total_zeros / run_before, nC taken from the neighbours' TotalCoeff.
public struct CAVLCSliceWriter: SliceDataWriter {
    private var bits: BitWriter
    private let slice: SliceCoding
    private var mbAddr: Int
    private var skipRun = 0
    /// TotalCoeff per 4x4 block of each macroblock: 16 luma (raster), 4 Cb, 4 Cr.
    private var totalCoeff: [UInt8]
    /// One 4x4 block of an 8x8 transform block, gathered from its interleaved levels.
    private var interleaved = [Int32](repeating: 0, count: 16)

    public init(header: BitWriter, slice: SliceCoding) {
        bits = header
        self.slice = slice
        mbAddr = slice.firstMbInSlice
        totalCoeff = [UInt8](repeating: 0, count: max(1, slice.widthInMbs * slice.heightInMbs) * 24)
    }

    public mutating func write(_ mb: borrowing MacroblockSyntax) {
        defer { mbAddr += 1 }
        let base = mbAddr * 24
        if slice.sliceType != .i {
            if mb.isSkip {
                skipRun += 1
                for i in 0..<24 { totalCoeff[base + i] = 0 }
                return
            }
            bits.ue(skipRun)
            skipRun = 0
        }
        let intraOffset = slice.sliceType == .p ? 5 : (slice.sliceType == .b ? 23 : 0)
        switch mb.kind {
        case .intra16x16:
            bits.ue(intraOffset + 1 + mb.intra16x16PredMode + 4 * mb.codedBlockPatternChroma + (mb.codedBlockPatternLuma != 0 ? 12 : 0))
        case .intra4x4: bits.ue(intraOffset)
        case .pcm: bits.ue(intraOffset + 25)
        case .pL016x16: bits.ue(0)
        case .bDirect16x16: bits.ue(0)
        case .bL016x16: bits.ue(1)
        case .bL116x16: bits.ue(2)
        case .bBi16x16: bits.ue(3)
        case .p16x8: bits.ue(1)
        case .p8x16: bits.ue(2)
        case .b16x8, .b8x16: bits.ue(mb.bPartitionMbType)
        case .pSkip, .bSkip: return  // not reached: skips are counted above (and do not exist in I slices)
        }
        if mb.kind == .pcm {
            bits.alignWithZeros()
            for s in mb.pcmSamples { bits.u(8, UInt32(s)) }
            for i in 0..<24 { totalCoeff[base + i] = 16 }
            return
        }
        if mb.kind == .intra4x4 {
            if slice.transform8x8Mode { bits.flag(mb.transformSize8x8Flag) }
            // prev_intra8x8_pred_mode_flag / rem_intra8x8_pred_mode: the first 4 entries (7.3.5.1)
            for blk in 0..<(mb.transformSize8x8Flag ? 4 : 16) {
                bits.flag(mb.prevIntra4x4PredModeFlag[blk])
                if !mb.prevIntra4x4PredModeFlag[blk] { bits.u(3, UInt32(mb.remIntra4x4PredMode[blk])) }
            }
        }
        if mb.isIntra { bits.ue(mb.intraChromaPredMode) }
        // mb_pred (7.3.5.1): every partition's ref_idx_l0, then ref_idx_l1, mvd_l0, mvd_l1
        let parts = mb.partitionCount
        for part in 0..<parts where mb.prediction(part).usesL0 {
            writeRefIdx(mb.refIdx(list: 0, part: part), range: slice.numRefIdxL0ActiveMinus1)
        }
        for part in 0..<parts where mb.prediction(part).usesL1 {
            writeRefIdx(mb.refIdx(list: 1, part: part), range: slice.numRefIdxL1ActiveMinus1)
        }
        for list in 0..<2 {
            for part in 0..<parts where list == 0 ? mb.prediction(part).usesL0 : mb.prediction(part).usesL1 {
                let d = mb.mvd(list: list, part: part)
                bits.se(d.x); bits.se(d.y)
            }
        }

        let cbpLuma = mb.codedBlockPatternLuma, cbpChroma = mb.codedBlockPatternChroma
        if mb.kind != .intra16x16 {
            let cbp = cbpLuma | (cbpChroma << 4)
            bits.ue(Int(mb.kind == .intra4x4 ? CAVLCTables.intraCBPCodeNum[cbp] : CAVLCTables.interCBPCodeNum[cbp]))
            if cbpLuma > 0 && slice.transform8x8Mode && !mb.isIntra && (mb.kind != .bDirect16x16 || slice.direct8x8Inference) {
                bits.flag(mb.transformSize8x8Flag)
            }
        }
        guard cbpLuma > 0 || cbpChroma > 0 || mb.kind == .intra16x16 else {
            for i in 0..<24 { totalCoeff[base + i] = 0 }
            return
        }
        bits.se(mb.mbQPDelta)
        writeResidual(mb, base: base)
    }

    public mutating func finish() -> [UInt8] {
        if skipRun > 0 { bits.ue(skipRun); skipRun = 0 }
        bits.rbspTrailingBits()
        return bits.bytes
    }

    // MARK: Residual (7.3.5.3)

    private mutating func writeResidual(_ mb: borrowing MacroblockSyntax, base: Int) {
        let cbpLuma = mb.codedBlockPatternLuma, cbpChroma = mb.codedBlockPatternChroma
        if mb.kind == .intra16x16 {
            _ = writeBlock(mb.lumaDC, start: 0, maxCoeff: 16, nC: lumaNC(raster: 0, base: base))
        }
        for blk in 0..<16 {
            let r = BlockGeometry.raster(blk)
            var count = 0
            if cbpLuma & (1 << (blk >> 2)) != 0 {
                let nC = lumaNC(raster: r, base: base)
                if mb.kind == .intra16x16 {
                    count = writeBlock(mb.luma, start: blk * 16 + 1, maxCoeff: 15, nC: nC)
                } else if mb.transformSize8x8Flag {
                    // 7.3.5.3.2: the 8x8 block's levels 4 · k + (blk % 4) form 4x4 block blk
                    let base8 = 64 * (blk >> 2) + (blk & 3)
                    for k in 0..<16 { interleaved[k] = mb.luma[base8 + 4 * k] }
                    count = writeBlock(interleaved, start: 0, maxCoeff: 16, nC: nC)
                } else {
                    count = writeBlock(mb.luma, start: blk * 16, maxCoeff: 16, nC: nC)
                }
            }
            totalCoeff[base &+ r] = UInt8(count)
        }
        if cbpChroma & 3 != 0 {
            for c in 0..<2 { _ = writeBlock(mb.chromaDC, start: c * 4, maxCoeff: 4, nC: -1) }
        }
        for c in 0..<2 {
            for blk in 0..<4 {
                var count = 0
                if cbpChroma & 2 != 0 {
                    count = writeBlock(mb.chromaAC, start: (c * 4 + blk) * 16 + 1, maxCoeff: 15,
                                       nC: chromaNC(component: c, blk: blk, base: base))
                }
                totalCoeff[base + 16 + c * 4 + blk] = UInt8(count)
            }
        }
    }

    /// nC of a luma 4x4 block from blocks A (left) and B (above) (9.2.1).
    private func lumaNC(raster r: Int, base: Int) -> Int {
        let x4 = r & 3, y4 = r >> 2
        var nA = -1, nB = -1
        if x4 > 0 { nA = Int(totalCoeff[base + r - 1]) } else if let a = neighbourA() { nA = Int(totalCoeff[a * 24 + r + 3]) }
        if y4 > 0 { nB = Int(totalCoeff[base + r - 4]) } else if let b = neighbourB() { nB = Int(totalCoeff[b * 24 + r + 12]) }
        return Self.combine(nA, nB)
    }

    private func chromaNC(component c: Int, blk: Int, base: Int) -> Int {
        let off = 16 + c * 4
        let x = blk & 1, y = blk >> 1
        var nA = -1, nB = -1
        if x > 0 { nA = Int(totalCoeff[base + off + blk - 1]) } else if let a = neighbourA() { nA = Int(totalCoeff[a * 24 + off + blk + 1]) }
        if y > 0 { nB = Int(totalCoeff[base + off + blk - 2]) } else if let b = neighbourB() { nB = Int(totalCoeff[b * 24 + off + blk + 2]) }
        return Self.combine(nA, nB)
    }

    @inline(__always) private static func combine(_ nA: Int, _ nB: Int) -> Int {
        if nA >= 0 && nB >= 0 { return (nA + nB + 1) >> 1 }
        if nA >= 0 { return nA }
        if nB >= 0 { return nB }
        return 0
    }

    private func neighbourA() -> Int? {
        mbAddr % slice.widthInMbs > 0 && mbAddr - 1 >= slice.firstMbInSlice ? mbAddr - 1 : nil
    }

    private func neighbourB() -> Int? {
        mbAddr - slice.widthInMbs >= slice.firstMbInSlice ? mbAddr - slice.widthInMbs : nil
    }

    private mutating func writeRefIdx(_ value: Int, range: Int) {
        if range == 1 { bits.u(1, 1 - value) } else if range > 1 { bits.ue(value) }  // te(v) (9.1.2)
    }

    /// residual_block_cavlc() (7.3.5.3.2, 9.2): returns TotalCoeff.
    private mutating func writeBlock(_ coeffs: [Int32], start: Int, maxCoeff: Int, nC: Int) -> Int {
        // The block's non-zero levels in increasing frequency and the zeros before each, in registers rather than
        // arrays of the writer (no uniqueness or bounds checks per coefficient); the coefficients read through
        // one buffer pointer.
        var levels = SIMD16<Int32>(), runs = SIMD16<Int32>()
        var total = 0
        var lastNonZero = -1
        coeffs.withUnsafeBufferPointer { buffer in
            guard let c = buffer.baseAddress, start >= 0, start + maxCoeff <= buffer.count, maxCoeff <= 16 else {
                preconditionFailure("residual block outside its coefficients")
            }
            var zerosBefore: Int32 = 0  // zeros since the previous non-zero level, from low to high frequency
            for i in 0..<maxCoeff {
                let v = c[start &+ i]
                if v != 0 {
                    levels[total] = v
                    runs[total] = zerosBefore
                    total &+= 1
                    zerosBefore = 0
                    lastNonZero = i
                } else {
                    zerosBefore &+= 1
                }
            }
        }
        let totalZeros = lastNonZero + 1 - total
        // levels[0..<total] are in increasing frequency; the syntax runs from the highest down.
        var trailingOnes = 0
        var k = total - 1
        while k >= 0 && trailingOnes < 3 && (levels[k] == 1 || levels[k] == -1) { trailingOnes += 1; k -= 1 }

        let token = total * 4 + trailingOnes
        if nC == -1 {
            bits.u(Int(CAVLCTables.chromaDCCoeffTokenLength[token]), UInt32(CAVLCTables.chromaDCCoeffTokenCode[token]))
        } else {
            let table = nC < 2 ? 0 : (nC < 4 ? 1 : (nC < 8 ? 2 : 3))
            if table == 3 && total > 0 {
                bits.u(6, UInt32(((total - 1) << 2) | trailingOnes))
            } else {
                bits.u(Int(CAVLCTables.coeffTokenLength[table][token]), UInt32(CAVLCTables.coeffTokenCode[table][token]))
            }
        }
        guard total > 0 else { return 0 }
        for i in 0..<trailingOnes { bits.u(1, levels[total - 1 - i] < 0 ? 1 : 0) }
        var suffixLength = total > 10 && trailingOnes < 3 ? 1 : 0
        var i = total - 1 - trailingOnes
        var first = true
        while i >= 0 {
            let level = Int(levels[i])
            var levelCode = level > 0 ? 2 * level - 2 : -2 * level - 1
            if first && trailingOnes < 3 { levelCode -= 2 }
            first = false
            writeLevel(levelCode, suffixLength: suffixLength)
            if suffixLength == 0 { suffixLength = 1 }
            if abs(level) > (3 << (suffixLength - 1)) && suffixLength < 6 { suffixLength += 1 }
            i -= 1
        }
        if total < maxCoeff {
            if nC == -1 {
                bits.u(Int(CAVLCTables.chromaDCTotalZerosLength[total - 1][totalZeros]),
                       UInt32(CAVLCTables.chromaDCTotalZerosCode[total - 1][totalZeros]))
            } else {
                bits.u(Int(CAVLCTables.totalZerosLength[total - 1][totalZeros]), UInt32(CAVLCTables.totalZerosCode[total - 1][totalZeros]))
            }
        }
        var zerosLeft = totalZeros
        i = total - 1
        while i > 0 && zerosLeft > 0 {
            let run = Int(runs[i])
            let row = min(zerosLeft, 7) - 1
            bits.u(Int(CAVLCTables.runBeforeLength[row][run]), UInt32(CAVLCTables.runBeforeCode[row][run]))
            zerosLeft -= run
            i -= 1
        }
        return total
    }

    /// level_prefix and level_suffix for one levelCode (9.2.2.1), escapes included.
    private mutating func writeLevel(_ levelCode: Int, suffixLength: Int) {
        if suffixLength == 0 {
            if levelCode < 14 { writePrefix(levelCode); return }
            if levelCode < 30 { writePrefix(14); bits.u(4, levelCode - 14); return }
        } else if levelCode < (15 << suffixLength) {
            writePrefix(levelCode >> suffixLength)
            bits.u(suffixLength, levelCode & ((1 << suffixLength) - 1))
            return
        }
        var rest = levelCode - (15 << suffixLength) - (suffixLength == 0 ? 15 : 0)
        var prefix = 15
        while rest >= (1 << (prefix - 3)) {
            prefix += 1
            rest = levelCode - (15 << suffixLength) - (suffixLength == 0 ? 15 : 0) - ((1 << (prefix - 3)) - 4096)
        }
        writePrefix(prefix)
        bits.u(prefix - 3, rest)
    }

    private mutating func writePrefix(_ zeros: Int) {
        if zeros > 0 { bits.u(min(zeros, 32), 0) }
        if zeros > 32 { bits.u(zeros - 32, 0) }
        bits.u(1, 1)
    }
}
