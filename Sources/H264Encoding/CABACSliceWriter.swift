import CABACCoding
import H264Bitstream

/// slice_data() with CABAC (7.3.4, 9.3): binarization (9.3.2), ctxIdx assignment with the neighbour-based
/// ctxIdxInc of 9.3.3.1.1, and the arithmetic coder of ``CABACEncoder``.
///
/// Neighbour state is kept per macroblock address in arrays sized once per slice; a neighbour is
/// available when it is inside the picture and at or after first_mb_in_slice (6.4.x: one writer codes
/// one slice, in decoding order).
///
/// 8x8 transform blocks are ctxBlockCat 5 with no coded_block_flag (4:2:0, 7.3.5.3.3): it is inferred 1,
/// which neighbouring 4x4 blocks see as their transBlockN's flag (9.3.3.1.1.9).
public struct CABACSliceWriter: SliceDataWriter {
    private var header: BitWriter
    private let slice: SliceCoding
    private var engine: CABACEncoder
    private var mbAddr: Int
    private var written = 0
    /// Whether the previous macroblock in decoding order had a non-zero mb_qp_delta (9.3.3.1.1.5).
    private var previousQPDeltaNonZero = false

    /// Per macroblock address: ``Flags``, CodedBlockPatternLuma | CodedBlockPatternChroma << 4,
    /// coded_block_flag bits (``CodedBlockFlagBit``), Min(absMvdComp, 64) for l0 x, l0 y, l1 x, l1 y of each
    /// 8x8 quadrant (16 per macroblock: 4 per quadrant, raster), and per quadrant q whether predFlagLX = 1 and
    /// refIdxLX > 0 (bit 4 · X + q; 9.3.3.1.1.6).
    private var flags: [UInt16]
    private var cbp: [UInt8]
    private var cbf: [UInt32]
    private var absMvd: [UInt8]
    private var refPositive: [UInt8]

    private struct Flags {
        static let available: UInt16 = 1 << 0
        static let skip: UInt16 = 1 << 1
        static let intra: UInt16 = 1 << 2
        static let pcm: UInt16 = 1 << 3
        static let intra16x16: UInt16 = 1 << 4
        static let intraNxN: UInt16 = 1 << 5
        /// B_Skip or B_Direct_16x16 (9.3.3.1.1.3, ref_idx of direct predictions).
        static let direct: UInt16 = 1 << 6
        static let chromaPredNonZero: UInt16 = 1 << 7
        /// transform_size_8x8_flag = 1 (9.3.3.1.1.10).
        static let transform8x8: UInt16 = 1 << 10
    }

    /// coded_block_flag bit positions: luma 4x4 blocks 0...15 (luma4x4BlkIdx), Intra16x16 DC, chroma DC
    /// Cb and Cr, chroma AC Cb 0...3 then Cr 0...3.
    private enum CodedBlockFlagBit {
        static let lumaDC = 16
        static let chromaDC = 17
        static let chromaAC = 19
    }

    /// ctxIdxOffset per syntax element (Table 9-34).
    private enum Offset {
        static let mbTypeI = 3
        static let mbSkipP = 11
        static let mbTypeP = 14
        static let mbTypePIntra = 17
        static let mbSkipB = 24
        static let mbTypeB = 27
        static let mbTypeBIntra = 32
        static let mvdX = 40
        static let mvdY = 47
        static let refIdx = 54
        static let mbQPDelta = 60
        static let intraChromaPredMode = 64
        static let prevIntra4x4PredModeFlag = 68
        static let remIntra4x4PredMode = 69
        static let cbpLuma = 73
        static let cbpChroma = 77
        static let transformSize8x8Flag = 399
    }

    /// ctxIdxOffset + ctxBlockCatOffset (Tables 9-34, 9-40) of ctxBlockCat 0...4 for coded_block_flag,
    /// significant_coeff_flag, last_significant_coeff_flag and coeff_abs_level_minus1 (frame macroblocks).
    @inline(__always) private static func cbfBase(_ cat: Int) -> Int { 85 + 4 * cat }
    @inline(__always) private static func significantBase(_ cat: Int) -> Int {
        switch cat { case 0: 105; case 1: 120; case 2: 134; case 3: 149; case 4: 152; default: 402 }
    }
    @inline(__always) private static func lastBase(_ cat: Int) -> Int { cat == 5 ? 417 : significantBase(cat) + 61 }
    @inline(__always) private static func absLevelBase(_ cat: Int) -> Int { cat < 4 ? 227 + 10 * cat : (cat == 4 ? 266 : 426) }

    /// The 4x4 luma block left of / above luma4x4BlkIdx `blk` (6.4.11.4), and whether it lies in the
    /// macroblock to the left / above rather than the current one.
    @inline(__always) private static func lumaLeft(_ blk: Int) -> (block: Int, outside: Bool) {
        let x = BlockGeometry.x4(blk), y = BlockGeometry.y4(blk)
        return x == 0 ? (lumaBlockIndex(3, y), true) : (lumaBlockIndex(x - 1, y), false)
    }
    @inline(__always) private static func lumaAbove(_ blk: Int) -> (block: Int, outside: Bool) {
        let x = BlockGeometry.x4(blk), y = BlockGeometry.y4(blk)
        return y == 0 ? (lumaBlockIndex(x, 3), true) : (lumaBlockIndex(x, y - 1), false)
    }
    /// luma4x4BlkIdx of the block at (x, y) in 4x4 block units (6.4.13.1).
    @inline(__always)
    private static func lumaBlockIndex(_ x: Int, _ y: Int) -> Int { (y >> 1) * 8 + (x >> 1) * 4 + (y & 1) * 2 + (x & 1) }

    /// ctxIdxInc of significant_coeff_flag (frame coded) and last_significant_coeff_flag for ctxBlockCat 5
    /// by scanning position (Table 9-43).
    private static let significant8x8: [UInt8] = [
        0, 1, 2, 3, 4, 5, 5, 4, 4, 3, 3, 4, 4, 4, 5, 5, 4, 4, 4, 4, 3, 3, 6, 7, 7, 7, 8, 9, 10, 9, 8, 7,
        7, 6, 11, 12, 13, 11, 6, 7, 8, 9, 14, 10, 9, 8, 6, 11, 12, 13, 11, 6, 9, 14, 10, 9, 11, 12, 13, 11, 14, 10, 12]
    private static let last8x8: [UInt8] = [
        0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8]

    public init(header: BitWriter, slice: SliceCoding) {
        self.header = header
        self.slice = slice
        // cabac_alignment_one_bit (7.3.4)
        while !self.header.isByteAligned { self.header.u(1, 1) }
        let count = max(slice.widthInMbs * slice.heightInMbs, 1)
        engine = CABACEncoder(reservingCapacity: 64 * count)
        engine.initialiseContexts(sliceQP: slice.sliceQP, isIntraSlice: slice.sliceType.isIntra,
                                  cabacInitIdc: slice.cabacInitIdc)
        mbAddr = slice.firstMbInSlice
        flags = [UInt16](repeating: 0, count: count)
        cbp = [UInt8](repeating: 0, count: count)
        cbf = [UInt32](repeating: 0, count: count)
        absMvd = [UInt8](repeating: 0, count: 16 * count)
        refPositive = [UInt8](repeating: 0, count: count)
    }

    // MARK: Macroblocks

    /// Zeroes macroblock `addr`'s 16 Min(absMvdComp, 64) entries: one uniqueness check of the array, not one per entry.
    private mutating func clearAbsMvd(_ addr: Int) {
        absMvd.withUnsafeMutableBufferPointer { m in
            guard let base = m.baseAddress, addr >= 0, 16 * addr + 16 <= m.count else { return }
            (base + 16 * addr).update(repeating: 0, count: 16)
        }
    }

    public mutating func write(_ mb: borrowing MacroblockSyntax) {
        guard mbAddr < flags.count else { return }
        if written > 0 { engine.encodeTerminate(false) }  // end_of_slice_flag of the previous macroblock
        written += 1
        let addr = mbAddr
        mbAddr += 1
        let width = slice.widthInMbs
        let a = addr % width != 0 && addr - 1 >= slice.firstMbInSlice ? addr - 1 : -1
        let b = addr - width >= slice.firstMbInSlice ? addr - width : -1
        let flagsA = a >= 0 ? flags[a] : 0
        let flagsB = b >= 0 ? flags[b] : 0

        let type = slice.sliceType
        if !type.isIntra {
            // mb_skip_flag (9.3.3.1.1.1)
            let inc = (flagsA & (Flags.available | Flags.skip) == Flags.available ? 1 : 0)
                + (flagsB & (Flags.available | Flags.skip) == Flags.available ? 1 : 0)
            engine.encodeDecision(mb.isSkip, (type == .b ? Offset.mbSkipB : Offset.mbSkipP) + inc)
            if mb.isSkip {
                flags[addr] = Flags.available | Flags.skip | (mb.kind == .bSkip ? Flags.direct : 0)
                cbp[addr] = 0
                cbf[addr] = 0
                clearAbsMvd(addr)
                refPositive[addr] = 0
                previousQPDeltaNonZero = false
                return
            }
        }

        var f = Flags.available
        switch mb.kind {
        case .intra16x16, .intra4x4, .pcm:
            f |= Flags.intra
            writeIntraMbType(mb, type: type, flagsA: flagsA, flagsB: flagsB)
            if mb.kind == .pcm {
                // The terminate bin flushed the engine; pcm_alignment_zero_bits are in place (9.3.1.2).
                engine.appendRaw(mb.pcmSamples)
                engine.initialise()
                flags[addr] = f | Flags.pcm
                cbp[addr] = 0x2F
                cbf[addr] = 0x7FF_FFFF
                clearAbsMvd(addr)
                refPositive[addr] = 0
                previousQPDeltaNonZero = false
                return
            }
        case .pL016x16:
            engine.encodeDecision(false, Offset.mbTypeP)
            engine.encodeDecision(false, Offset.mbTypeP + 1)
            engine.encodeDecision(false, Offset.mbTypeP + 2)
        case .bDirect16x16, .bL016x16, .bL116x16, .bBi16x16:
            writeBInterMbType(mb.kind, flagsA: flagsA, flagsB: flagsB)
            if mb.kind == .bDirect16x16 { f |= Flags.direct }
        case .p16x8, .p8x16:
            // P_L0_L0_16x8 "011", P_L0_L0_8x16 "010" (Table 9-37): bin 2 with ctxIdx 17 after a 1
            engine.encodeDecision(false, Offset.mbTypeP)
            engine.encodeDecision(true, Offset.mbTypeP + 1)
            engine.encodeDecision(mb.kind == .p16x8, Offset.mbTypeP + 3)
        case .b16x8, .b8x16:
            // after "1 1": 4 bits (mb_type − 3) for 4...10, "1110" for 11, 5 bits (mb_type + 4) for 12...21
            let t = mb.bPartitionMbType
            if t <= 10 {
                writeBPrefixBins(0b11 << 4 | (t - 3), count: 6, flagsA: flagsA, flagsB: flagsB)
            } else if t == 11 {
                writeBPrefixBins(0b111110, count: 6, flagsA: flagsA, flagsB: flagsB)
            } else {
                writeBPrefixBins(0b11 << 5 | (t + 4), count: 7, flagsA: flagsA, flagsB: flagsB)
            }
        case .pSkip, .bSkip:
            break  // skips in I slices cannot be coded; isSkip was handled above
        }

        // mb_pred (7.3.5.1)
        if mb.kind == .intra4x4 {
            if slice.transform8x8Mode { writeTransformSize8x8Flag(mb.transformSize8x8Flag, flagsA: flagsA, flagsB: flagsB) }
            if mb.transformSize8x8Flag { f |= Flags.transform8x8 }
            // prev_intra8x8_pred_mode_flag / rem_intra8x8_pred_mode share the 4x4 contexts (Table 9-34)
            for blk in 0..<(mb.transformSize8x8Flag ? 4 : 16) {
                let prev = mb.prevIntra4x4PredModeFlag[blk]
                engine.encodeDecision(prev, Offset.prevIntra4x4PredModeFlag)
                if !prev {
                    let rem = Int(mb.remIntra4x4PredMode[blk])
                    for bit in 0..<3 { engine.encodeDecision(rem >> bit & 1 != 0, Offset.remIntra4x4PredMode) }
                }
            }
        }
        if mb.kind == .intra4x4 || mb.kind == .intra16x16 {
            writeIntraChromaPredMode(mb.intraChromaPredMode, flagsA: flagsA, flagsB: flagsB)
            if mb.intraChromaPredMode != 0 { f |= Flags.chromaPredNonZero }
            f |= mb.kind == .intra4x4 ? Flags.intraNxN : Flags.intra16x16
        }
        // Per quadrant of this macroblock, what its partitions' neighbours see: refIdx > 0 and Min(|mvd|, 64)
        // (the ctxIdxInc of partition 1 reads partition 0's, 9.3.3.1.1.6-7).
        let parts = mb.partitionCount
        var positive: UInt8 = 0
        clearAbsMvd(addr)
        for part in 0..<parts {
            let quadrants = Self.quadrants(part: part, of: parts, wide: mb.partitionsAreWide)
            let pred = mb.prediction(part)
            for list in 0..<2 where list == 0 ? pred.usesL0 : pred.usesL1 {
                let d = mb.mvd(list: list, part: part)
                let positiveRef = mb.refIdx(list: list, part: part) > 0
                for q in 0..<4 where quadrants >> q & 1 != 0 {
                    if positiveRef { positive |= 1 << UInt8(4 * list + q) }
                    absMvd[16 * addr + 4 * q + 2 * list] = UInt8(min(abs(Int(d.x)), 64))
                    absMvd[16 * addr + 4 * q + 2 * list + 1] = UInt8(min(abs(Int(d.y)), 64))
                }
            }
        }
        refPositive[addr] = positive
        for list in 0..<2 {
            let active = list == 0 ? slice.numRefIdxL0ActiveMinus1 : slice.numRefIdxL1ActiveMinus1
            guard active > 0 else { continue }
            for part in 0..<parts where list == 0 ? mb.prediction(part).usesL0 : mb.prediction(part).usesL1 {
                let (na, qa, nb, qb) = partitionNeighbours(part: part, of: parts, wide: mb.partitionsAreWide, addr: addr, a: a, b: b)
                let inc = (na >= 0 && refPositive[na] >> UInt8(4 * list + qa) & 1 != 0 ? 1 : 0)
                    + (nb >= 0 && refPositive[nb] >> UInt8(4 * list + qb) & 1 != 0 ? 2 : 0)
                writeRefIdx(mb.refIdx(list: list, part: part), inc: inc)
            }
        }
        for list in 0..<2 {
            for part in 0..<parts where list == 0 ? mb.prediction(part).usesL0 : mb.prediction(part).usesL1 {
                let (na, qa, nb, qb) = partitionNeighbours(part: part, of: parts, wide: mb.partitionsAreWide, addr: addr, a: a, b: b)
                let d = mb.mvd(list: list, part: part)
                for comp in 0..<2 {
                    let k = 2 * list + comp
                    let sum = (na >= 0 ? Int(absMvd[16 * na + 4 * qa + k]) : 0) + (nb >= 0 ? Int(absMvd[16 * nb + 4 * qb + k]) : 0)
                    writeMvd(Int(comp == 0 ? d.x : d.y), component: k, sum: sum)
                }
            }
        }

        // coded_block_pattern, transform_size_8x8_flag (7.3.5)
        let cbpLuma = mb.kind == .intra16x16 ? (mb.codedBlockPatternLuma != 0 ? 15 : 0) : mb.codedBlockPatternLuma & 15
        let cbpChroma = min(max(mb.codedBlockPatternChroma, 0), 2)
        if mb.kind != .intra16x16 {
            writeCodedBlockPattern(luma: cbpLuma, chroma: cbpChroma, a: a, b: b)
            if cbpLuma > 0 && slice.transform8x8Mode && mb.kind != .intra4x4
                && (mb.kind != .bDirect16x16 || slice.direct8x8Inference) {
                writeTransformSize8x8Flag(mb.transformSize8x8Flag, flagsA: flagsA, flagsB: flagsB)
                if mb.transformSize8x8Flag { f |= Flags.transform8x8 }
            }
        }
        flags[addr] = f
        cbp[addr] = UInt8(cbpLuma | cbpChroma << 4)
        cbf[addr] = 0

        guard cbpLuma > 0 || cbpChroma > 0 || mb.kind == .intra16x16 else {
            previousQPDeltaNonZero = false
            return
        }
        writeQPDelta(mb.mbQPDelta)
        writeResidual(mb, addr: addr, a: a, b: b, cbpLuma: cbpLuma, cbpChroma: cbpChroma)
    }

    public mutating func finish() -> [UInt8] {
        if written > 0 {
            engine.encodeTerminate(true)  // end_of_slice_flag = 1: flush, rbsp_stop_one_bit, alignment
            engine.appendCABACZeroWords(macroblocks: written, otherBytes: header.bytes.count)
            header.append(bytes: engine.bytes)
        } else {
            header.rbspTrailingBits()
        }
        return header.bytes
    }

    // MARK: mb_type (9.3.2.5, Tables 9-36, 9-37, 9-39)

    private mutating func writeIntraMbType(_ mb: borrowing MacroblockSyntax, type: SliceType, flagsA: UInt16, flagsB: UInt16) {
        let base: Int
        let suffix: Bool
        switch type {
        case .i, .si:
            base = Offset.mbTypeI
            suffix = false
            // 9.3.3.1.1.3: condTermFlagN = 0 when N is unavailable or I_NxN.
            let inc = (flagsA & (Flags.available | Flags.intraNxN) == Flags.available ? 1 : 0)
                + (flagsB & (Flags.available | Flags.intraNxN) == Flags.available ? 1 : 0)
            engine.encodeDecision(mb.kind != .intra4x4, base + inc)
        case .p, .sp:
            engine.encodeDecision(true, Offset.mbTypeP)  // prefix 1: intra
            base = Offset.mbTypePIntra
            suffix = true
            engine.encodeDecision(mb.kind != .intra4x4, base)
        case .b:
            // prefix 111101
            writeBPrefixBins(0b111101, count: 6, flagsA: flagsA, flagsB: flagsB)
            base = Offset.mbTypeBIntra
            suffix = true
            engine.encodeDecision(mb.kind != .intra4x4, base)
        }
        guard mb.kind != .intra4x4 else { return }
        engine.encodeTerminate(mb.kind == .pcm)
        guard mb.kind == .intra16x16 else { return }
        let chroma = min(max(mb.codedBlockPatternChroma, 0), 2)
        let mode = mb.intra16x16PredMode & 3
        engine.encodeDecision(mb.codedBlockPatternLuma != 0, base + (suffix ? 1 : 3))
        engine.encodeDecision(chroma != 0, base + (suffix ? 2 : 4))
        if chroma != 0 { engine.encodeDecision(chroma == 2, base + (suffix ? 2 : 5)) }
        engine.encodeDecision(mode >> 1 != 0, base + (suffix ? 3 : 6))
        engine.encodeDecision(mode & 1 != 0, base + (suffix ? 3 : 7))
    }

    private mutating func writeBInterMbType(_ kind: MacroblockSyntax.Kind, flagsA: UInt16, flagsB: UInt16) {
        switch kind {
        case .bDirect16x16: writeBPrefixBins(0b0, count: 1, flagsA: flagsA, flagsB: flagsB)
        case .bL016x16: writeBPrefixBins(0b100, count: 3, flagsA: flagsA, flagsB: flagsB)
        case .bL116x16: writeBPrefixBins(0b101, count: 3, flagsA: flagsA, flagsB: flagsB)
        default: writeBPrefixBins(0b110000, count: 6, flagsA: flagsA, flagsB: flagsB)  // B_Bi_16x16
        }
    }

    /// The bins of mb_type in a B slice (ctxIdxOffset 27), most significant first.
    private mutating func writeBPrefixBins(_ bins: Int, count: Int, flagsA: UInt16, flagsB: UInt16) {
        // 9.3.3.1.1.3: condTermFlagN = 0 when N is unavailable, B_Skip or B_Direct_16x16.
        let inc = (flagsA & (Flags.available | Flags.direct) == Flags.available ? 1 : 0)
            + (flagsB & (Flags.available | Flags.direct) == Flags.available ? 1 : 0)
        var b1 = false
        for binIdx in 0..<count {
            let bin = bins >> (count - 1 - binIdx) & 1 != 0
            let ctxInc: Int
            switch binIdx {
            case 0: ctxInc = inc
            case 1: ctxInc = 3; b1 = bin
            case 2: ctxInc = b1 ? 4 : 5
            default: ctxInc = 5
            }
            engine.encodeDecision(bin, Offset.mbTypeB + ctxInc)
        }
    }

    // MARK: mb_pred

    /// transform_size_8x8_flag; ctxIdxInc counts the available neighbours with the flag set (9.3.3.1.1.10).
    private mutating func writeTransformSize8x8Flag(_ flag: Bool, flagsA: UInt16, flagsB: UInt16) {
        let inc = (flagsA & Flags.transform8x8 != 0 ? 1 : 0) + (flagsB & Flags.transform8x8 != 0 ? 1 : 0)
        engine.encodeDecision(flag, Offset.transformSize8x8Flag + inc)
    }

    /// intra_chroma_pred_mode: TU with cMax 3 (9.3.3.1.1.8).
    private mutating func writeIntraChromaPredMode(_ mode: Int, flagsA: UInt16, flagsB: UInt16) {
        let inc = (flagsA & Flags.chromaPredNonZero != 0 ? 1 : 0) + (flagsB & Flags.chromaPredNonZero != 0 ? 1 : 0)
        let value = min(max(mode, 0), 3)
        engine.encodeDecision(value > 0, Offset.intraChromaPredMode + inc)
        if value > 0 {
            engine.encodeDecision(value > 1, Offset.intraChromaPredMode + 3)
            if value > 1 { engine.encodeDecision(value > 2, Offset.intraChromaPredMode + 3) }
        }
    }

    /// ref_idx_lX: unary (9.3.3.1.1.6); `inc` is condTermFlagA + 2 · condTermFlagB.
    private mutating func writeRefIdx(_ refIdx: Int, inc: Int) {
        var remaining = max(refIdx, 0)
        var ctxIdx = Offset.refIdx + inc
        while remaining > 0 {
            engine.encodeDecision(true, ctxIdx)
            ctxIdx = ctxIdx < Offset.refIdx + 4 ? Offset.refIdx + 4 : Offset.refIdx + 5
            remaining -= 1
        }
        engine.encodeDecision(false, ctxIdx)
    }

    /// The 8x8 quadrants (raster) that partition `part` of `count` covers, as a mask (16x16: all; 16x8 `wide`; 8x16).
    @inline(__always) private static func quadrants(part: Int, of count: Int, wide: Bool) -> Int {
        if count == 1 { return 0b1111 }
        return wide ? (part == 0 ? 0b0011 : 0b1100) : (part == 0 ? 0b0101 : 0b1010)
    }

    /// The macroblocks and quadrants of neighbours A and B of partition `part`'s top-left 4x4 block (6.4.11.7);
    /// −1 when unavailable.
    @inline(__always) private func partitionNeighbours(part: Int, of count: Int, wide: Bool, addr: Int, a: Int, b: Int)
        -> (Int, Int, Int, Int) {
        if count == 1 || part == 0 { return (a, 1, b, 2) }
        // 16x8 partition 1 at (0, 8): A is the left macroblock's quadrant 3, B this one's quadrant 0;
        // 8x16 partition 1 at (8, 0): A is this one's quadrant 0, B the above macroblock's quadrant 3.
        return wide ? (a, 3, addr, 0) : (addr, 0, b, 3)
    }

    /// mvd_lX[][][comp]: UEG3, signed, uCoff 9 (9.3.2.3, 9.3.3.1.1.7). `component` is list * 2 + comp.
    /// `sum` is absMvdComp of neighbours A and B.
    private mutating func writeMvd(_ mvd: Int, component: Int, sum: Int) {
        let base = component & 1 == 0 ? Offset.mvdX : Offset.mvdY
        let magnitude = abs(mvd)
        let prefix = min(magnitude, 9)
        engine.encodeDecision(prefix > 0, base + (sum < 3 ? 0 : sum > 32 ? 2 : 1))
        if prefix > 0 {
            var binIdx = 1
            while binIdx < 9 {
                let bin = binIdx < prefix
                engine.encodeDecision(bin, base + min(binIdx + 2, 6))
                if !bin { break }
                binIdx += 1
            }
            if magnitude >= 9 { writeExpGolombBypass(magnitude - 9, k: 3) }
            engine.encodeBypass(mvd < 0)
        }
    }

    /// k-th order Exp-Golomb suffix in bypass bins (9.3.2.3).
    private mutating func writeExpGolombBypass(_ value: Int, k startK: Int) {
        var sufS = value
        var k = startK
        while sufS >= 1 << k {
            engine.encodeBypass(true)
            sufS -= 1 << k
            k += 1
        }
        engine.encodeBypass(false)
        engine.encodeBypassBits(UInt32(sufS), count: k)
    }

    // MARK: coded_block_pattern, mb_qp_delta

    /// Prefix FL of CodedBlockPatternLuma, suffix TU of CodedBlockPatternChroma (9.3.2.6, 9.3.3.1.1.4).
    private mutating func writeCodedBlockPattern(luma: Int, chroma: Int, a: Int, b: Int) {
        let cbpA = a >= 0 ? Int(cbp[a]) : -1
        let cbpB = b >= 0 ? Int(cbp[b]) : -1
        // condTermFlagN = 1 when the neighbouring 8x8 block is available, not I_PCM and has no coefficients.
        func lumaTerm(_ neighbourCbp: Int, _ b8: Int) -> Int { neighbourCbp >= 0 && neighbourCbp >> b8 & 1 == 0 ? 1 : 0 }
        for b8 in 0..<4 {
            let condA = b8 & 1 == 1 ? (luma >> (b8 - 1) & 1 == 0 ? 1 : 0) : lumaTerm(cbpA, b8 + 1)
            let condB = b8 >= 2 ? (luma >> (b8 - 2) & 1 == 0 ? 1 : 0) : lumaTerm(cbpB, b8 + 2)
            engine.encodeDecision(luma >> b8 & 1 != 0, Offset.cbpLuma + condA + 2 * condB)
        }
        let chromaA = cbpA >= 0 ? cbpA >> 4 : 0
        let chromaB = cbpB >= 0 ? cbpB >> 4 : 0
        engine.encodeDecision(chroma != 0, Offset.cbpChroma + (chromaA != 0 ? 1 : 0) + (chromaB != 0 ? 2 : 0))
        if chroma != 0 {
            engine.encodeDecision(chroma == 2, Offset.cbpChroma + 4 + (chromaA == 2 ? 1 : 0) + (chromaB == 2 ? 2 : 0))
        }
    }

    /// mb_qp_delta: mapped as Table 9-3, unary (9.3.3.1.1.5).
    private mutating func writeQPDelta(_ delta: Int) {
        let mapped = delta > 0 ? 2 * delta - 1 : -2 * delta
        var ctxIdx = Offset.mbQPDelta + (previousQPDeltaNonZero ? 1 : 0)
        for _ in 0..<mapped {
            engine.encodeDecision(true, ctxIdx)
            ctxIdx = ctxIdx < Offset.mbQPDelta + 2 ? Offset.mbQPDelta + 2 : Offset.mbQPDelta + 3
        }
        engine.encodeDecision(false, ctxIdx)
        previousQPDeltaNonZero = delta != 0
    }

    // MARK: Residual (7.3.5.3, 7.3.5.3.3)

    private mutating func writeResidual(_ mb: borrowing MacroblockSyntax, addr: Int, a: Int, b: Int, cbpLuma: Int, cbpChroma: Int) {
        let intra = mb.kind == .intra4x4 || mb.kind == .intra16x16
        let flagsA = a >= 0 ? flags[a] : 0
        let flagsB = b >= 0 ? flags[b] : 0
        let cbfA = a >= 0 ? cbf[a] : 0
        let cbfB = b >= 0 ? cbf[b] : 0
        var coded: UInt32 = 0

        @inline(__always) func term(_ flagsN: UInt16, _ hasBlock: Bool, _ cbfN: Bool) -> Int {
            Self.codedBlockFlagTerm(flagsN, intra: intra, hasBlock: hasBlock, cbfN)
        }
        func lumaTerm(_ flagsN: UInt16, _ cbpN: Int, _ cbfN: UInt32, _ blk: Int) -> Int {
            term(flagsN, flagsN & Flags.skip == 0 && cbpN >> (blk >> 2) & 1 != 0, cbfN >> UInt32(blk) & 1 != 0)
        }
        let cbpA = a >= 0 ? Int(cbp[a]) : 0
        let cbpB = b >= 0 ? Int(cbp[b]) : 0

        if mb.kind == .intra16x16 {
            let condA = term(flagsA, flagsA & Flags.intra16x16 != 0, cbfA >> UInt32(CodedBlockFlagBit.lumaDC) & 1 != 0)
            let condB = term(flagsB, flagsB & Flags.intra16x16 != 0, cbfB >> UInt32(CodedBlockFlagBit.lumaDC) & 1 != 0)
            if writeBlock(mb.lumaDC, start: 0, count: 16, category: 0, cbfInc: condA + 2 * condB) {
                coded |= 1 << UInt32(CodedBlockFlagBit.lumaDC)
            }
        }
        if mb.transformSize8x8Flag {
            // ctxBlockCat 5: no coded_block_flag; inferred 1 for every 4x4 block of a coded 8x8 block
            for b8 in 0..<4 where cbpLuma >> b8 & 1 != 0 {
                _ = writeBlock(mb.luma, start: 64 * b8, count: 64, category: 5, cbfInc: 0)
                coded |= 0xF << UInt32(4 * b8)
            }
            writeChromaResidual(mb, a: a, b: b, cbpChroma: cbpChroma, coded: &coded)
            cbf[addr] = coded
            return
        }
        let category = mb.kind == .intra16x16 ? 1 : 2
        for blk in 0..<16 where cbpLuma >> (blk >> 2) & 1 != 0 {
            let left = Self.lumaLeft(blk), above = Self.lumaAbove(blk)
            let condA = left.outside ? lumaTerm(flagsA, cbpA, cbfA, left.block) : Int(coded >> UInt32(left.block) & 1)
            let condB = above.outside ? lumaTerm(flagsB, cbpB, cbfB, above.block) : Int(coded >> UInt32(above.block) & 1)
            let start = 16 * blk + (category == 1 ? 1 : 0)
            if writeBlock(mb.luma, start: start, count: category == 1 ? 15 : 16, category: category, cbfInc: condA + 2 * condB) {
                coded |= 1 << UInt32(blk)
            }
        }
        writeChromaResidual(mb, a: a, b: b, cbpChroma: cbpChroma, coded: &coded)
        cbf[addr] = coded
    }

    private mutating func writeChromaResidual(_ mb: borrowing MacroblockSyntax, a: Int, b: Int, cbpChroma: Int, coded: inout UInt32) {
        let intra = mb.isIntra
        let flagsA = a >= 0 ? flags[a] : 0
        let flagsB = b >= 0 ? flags[b] : 0
        let cbfA = a >= 0 ? cbf[a] : 0
        let cbfB = b >= 0 ? cbf[b] : 0
        let cbpA = a >= 0 ? Int(cbp[a]) : 0
        let cbpB = b >= 0 ? Int(cbp[b]) : 0
        @inline(__always) func term(_ flagsN: UInt16, _ hasBlock: Bool, _ cbfN: Bool) -> Int {
            Self.codedBlockFlagTerm(flagsN, intra: intra, hasBlock: hasBlock, cbfN)
        }
        if cbpChroma != 0 {
            let hasA = flagsA & Flags.skip == 0 && cbpA >> 4 != 0
            let hasB = flagsB & Flags.skip == 0 && cbpB >> 4 != 0
            for c in 0..<2 {
                let bit = UInt32(CodedBlockFlagBit.chromaDC + c)
                let condA = term(flagsA, hasA, cbfA >> bit & 1 != 0)
                let condB = term(flagsB, hasB, cbfB >> bit & 1 != 0)
                if writeBlock(mb.chromaDC, start: 4 * c, count: 4, category: 3, cbfInc: condA + 2 * condB) {
                    coded |= 1 << bit
                }
            }
        }
        if cbpChroma == 2 {
            let hasA = flagsA & Flags.skip == 0 && cbpA >> 4 == 2
            let hasB = flagsB & Flags.skip == 0 && cbpB >> 4 == 2
            for c in 0..<2 {
                for blk in 0..<4 {
                    let base = CodedBlockFlagBit.chromaAC + 4 * c
                    // chroma4x4BlkIdx in raster order of the 2x2 blocks (6.4.11.5).
                    let condA = blk & 1 == 1 ? Int(coded >> UInt32(base + blk - 1) & 1)
                        : term(flagsA, hasA, cbfA >> UInt32(base + blk + 1) & 1 != 0)
                    let condB = blk >= 2 ? Int(coded >> UInt32(base + blk - 2) & 1)
                        : term(flagsB, hasB, cbfB >> UInt32(base + blk + 2) & 1 != 0)
                    if writeBlock(mb.chromaAC, start: 16 * (4 * c + blk) + 1, count: 15, category: 4, cbfInc: condA + 2 * condB) {
                        coded |= 1 << UInt32(base + blk)
                    }
                }
            }
        }
    }

    /// condTermFlagN of coded_block_flag (9.3.3.1.1.9) for a block of the neighbouring macroblock N,
    /// given whether transBlockN exists there and its coded_block_flag.
    @inline(__always)
    private static func codedBlockFlagTerm(_ flagsN: UInt16, intra: Bool, hasBlock: Bool, _ cbfN: Bool) -> Int {
        if flagsN & Flags.available == 0 { return intra ? 1 : 0 }
        if flagsN & Flags.pcm != 0 { return 1 }
        return hasBlock && cbfN ? 1 : 0
    }

    /// residual_block_cabac (7.3.5.3.3): coded_block_flag, the significance map, then the levels in reverse
    /// scan order (coeff_abs_level_minus1 as UEG0 with uCoff 14, coeff_sign_flag). Returns coded_block_flag.
    private mutating func writeBlock(_ levels: [Int32], start: Int, count: Int, category: Int, cbfInc: Int) -> Bool {
        // One bounds check for the block, not one per level (the syntax's arrays always hold the block).
        levels.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress, start >= 0, start + count <= all.count else { return false }
            return Self.significant8x8.withUnsafeBufferPointer { sig8 in
                Self.last8x8.withUnsafeBufferPointer { last8 in
                    writeBlock(base + start, count: count, category: category, cbfInc: cbfInc, significant8x8: sig8, last8x8: last8)
                }
            }
        }
    }

    /// ``writeBlock(_:start:count:category:cbfInc:)`` on the block's levels (residual_block_cabac, 7.3.5.3.3).
    @inline(__always)
    private mutating func writeBlock(_ levels: UnsafePointer<Int32>, count: Int, category: Int, cbfInc: Int,
                                     significant8x8: UnsafeBufferPointer<UInt8>, last8x8: UnsafeBufferPointer<UInt8>) -> Bool {
        var last = -1
        for i in stride(from: count - 1, through: 0, by: -1) where levels[i] != 0 {
            last = i
            break
        }
        if category != 5 { engine.encodeDecision(last >= 0, Self.cbfBase(category) + cbfInc) }
        guard last >= 0 else { return false }

        let sigBase = Self.significantBase(category)
        let lastBase = Self.lastBase(category)
        for i in 0..<(count - 1) {
            let significant = levels[i] != 0
            let inc = category == 3 ? min(i, 2) : (category == 5 ? Int(significant8x8[i]) : i)
            engine.encodeDecision(significant, sigBase + inc)
            if significant {
                engine.encodeDecision(i == last, lastBase + (category == 5 ? Int(last8x8[i]) : inc))
                if i == last { break }
            }
        }

        let absBase = Self.absLevelBase(category)
        let gt1Limit = category == 3 ? 3 : 4
        var numEq1 = 0
        var numGt1 = 0
        for i in stride(from: last, through: 0, by: -1) {
            let level = Int(levels[i])
            guard level != 0 else { continue }
            let minus1 = abs(level) - 1
            engine.encodeDecision(minus1 > 0, absBase + (numGt1 != 0 ? 0 : min(4, 1 + numEq1)))
            if minus1 > 0 {
                let ctxIdx = absBase + 5 + min(gt1Limit, numGt1)
                let prefix = min(minus1, 14)
                var binIdx = 1
                while binIdx < 14 {
                    let bin = binIdx < prefix
                    engine.encodeDecision(bin, ctxIdx)
                    if !bin { break }
                    binIdx += 1
                }
                if minus1 >= 14 { writeExpGolombBypass(minus1 - 14, k: 0) }
                numGt1 += 1
            } else {
                numEq1 += 1
            }
            engine.encodeBypass(level < 0)
        }
        return true
    }
}
