import H264Bitstream
import VTKTestSupport
@testable import H264Encoding

/// Random but valid macroblock syntax for one picture: every kind the slice type allows, intra modes
/// that only use available neighbours (8.3.1.1, 8.3.3, 8.3.4, one slice per picture), random residual
/// in the coded blocks, mvds, ref_idx and mb_qp_delta.
struct RandomMacroblocks {
    var rng: SeededRandom
    let widthInMbs: Int
    let heightInMbs: Int

    init(seed: UInt64, widthInMbs: Int, heightInMbs: Int) {
        rng = SeededRandom(seed: seed)
        self.widthInMbs = widthInMbs
        self.heightInMbs = heightInMbs
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    /// A level: mostly ±1, sometimes larger, rarely beyond the prefix of coeff_abs_level_minus1 (UEG0 suffix).
    mutating func level() -> Int32 {
        let magnitude: Int
        switch int(0...99) {
        case 0..<60: magnitude = 1
        case 60..<85: magnitude = int(2...4)
        case 85..<97: magnitude = int(5...40)
        default: magnitude = int(41...600)
        }
        return Int32(chance(50) ? magnitude : -magnitude)
    }

    /// Fills `count` coefficients at `start` of `levels` sparsely (some blocks stay empty).
    mutating func fill(_ levels: inout [Int32], start: Int, count: Int) {
        let density = [0, 5, 20, 50, 90][int(0...4)]
        for i in 0..<count where chance(density) { levels[start + i] = level() }
    }

    mutating func mvd() -> Int32 {
        switch int(0...99) {
        case 0..<30: return 0
        case 30..<80: return Int32(int(-8...8))
        case 80..<97: return Int32(int(-64...64))
        default: return Int32(int(-700...700))
        }
    }

    mutating func qpDelta() -> Int {
        switch int(0...99) {
        case 0..<50: return 0
        case 50..<90: return int(-3...3)
        default: return int(-26...25)
        }
    }

    /// One picture's macroblocks. `numRefL0`/`numRefL1`: active entries (ref_idx ranges).
    /// `partitions`: 16x8 and 8x16 macroblocks too (P_L0_L0_*, every B_X_Y_*), with other random draws.
    mutating func picture(_ type: SliceType, numRefL0: Int = 1, numRefL1: Int = 1, pcmPercent: Int = 6,
                          partitions: Bool = false) -> [MacroblockSyntax] {
        let count = widthInMbs * heightInMbs
        // Intra4x4PredMode per 4x4 block of the picture in raster order; 2 (DC) stands for "not I_NxN".
        var modes = [Int](repeating: 2, count: count * 16)
        let blocksPerRow = widthInMbs * 4
        var out: [MacroblockSyntax] = []
        for addr in 0..<count {
            let mbX = addr % widthInMbs, mbY = addr / widthInMbs
            var mb = MacroblockSyntax()
            let roll = int(0...99)
            let kind: MacroblockSyntax.Kind
            if roll < pcmPercent {
                kind = .pcm
            } else {
                switch type {
                case .i: kind = chance(50) ? .intra16x16 : .intra4x4
                case .p where partitions:
                    kind = [.pSkip, .pL016x16, .p16x8, .p8x16, .p16x8, .p8x16, .intra16x16, .intra4x4][int(0...7)]
                case .p: kind = [.pSkip, .pSkip, .pL016x16, .pL016x16, .pL016x16, .intra16x16, .intra4x4][int(0...6)]
                case _ where partitions:
                    if chance(60) {
                        let predictions: [MacroblockSyntax.PartitionPrediction] = [.l0, .l1, .bi]
                        let a = predictions[int(0...2)], b = predictions[int(0...2)]
                        kind = chance(50) ? .b16x8(a, b) : .b8x16(a, b)
                    } else {
                        kind = [.bSkip, .bDirect16x16, .bL016x16, .bL116x16, .bBi16x16, .intra16x16, .intra4x4][int(0...6)]
                    }
                default:
                    kind = [.bSkip, .bDirect16x16, .bL016x16, .bL116x16, .bBi16x16, .bBi16x16, .intra16x16, .intra4x4][int(0...7)]
                }
            }
            mb.reset(kind: kind)
            for i in 0..<16 { modes[(mbY * 4 + i / 4) * blocksPerRow + mbX * 4 + i % 4] = 2 }
            switch kind {
            case .pcm:
                for i in 0..<384 { mb.pcmSamples[i] = UInt8(int(0...255)) }
                out.append(mb)
                continue
            case .pSkip, .bSkip:
                out.append(mb)
                continue
            case .intra16x16:
                var allowed = [2]
                if mbY > 0 { allowed.append(0) }
                if mbX > 0 { allowed.append(1) }
                if mbX > 0 && mbY > 0 { allowed.append(3) }
                mb.intra16x16PredMode = allowed[int(0...allowed.count - 1)]
            case .intra4x4:
                for blk in 0..<16 {
                    let gx = mbX * 4 + BlockGeometry.x4(blk), gy = mbY * 4 + BlockGeometry.y4(blk)
                    let hasA = gx > 0, hasB = gy > 0
                    var allowed = [2]
                    if hasA { allowed += [1, 8] }
                    if hasB { allowed += [0, 3, 7] }
                    if hasA && hasB { allowed += [4, 5, 6] }
                    let mode = allowed[int(0...allowed.count - 1)]
                    let predicted = hasA && hasB
                        ? min(modes[gy * blocksPerRow + gx - 1], modes[(gy - 1) * blocksPerRow + gx]) : 2
                    mb.prevIntra4x4PredModeFlag[blk] = mode == predicted
                    mb.remIntra4x4PredMode[blk] = UInt8(mode < predicted ? mode : max(mode - 1, 0))
                    modes[gy * blocksPerRow + gx] = mode
                }
            case .pL016x16, .bL016x16, .bBi16x16:
                mb.refIdxL0 = int(0...numRefL0 - 1)
                mb.mvdL0 = (mvd(), mvd())
                if kind == .bBi16x16 {
                    mb.refIdxL1 = int(0...numRefL1 - 1)
                    mb.mvdL1 = (mvd(), mvd())
                }
            case .bL116x16:
                mb.refIdxL1 = int(0...numRefL1 - 1)
                mb.mvdL1 = (mvd(), mvd())
            case .bDirect16x16:
                break
            case .p16x8, .p8x16, .b16x8, .b8x16:
                for part in 0..<2 {
                    let prediction = mb.prediction(part)
                    if prediction.usesL0 {
                        let r = int(0...numRefL0 - 1), d = (mvd(), mvd())
                        if part == 0 { mb.refIdxL0 = r; mb.mvdL0 = d } else { mb.refIdxL0Part1 = r; mb.mvdL0Part1 = d }
                    }
                    if prediction.usesL1 {
                        let r = int(0...numRefL1 - 1), d = (mvd(), mvd())
                        if part == 0 { mb.refIdxL1 = r; mb.mvdL1 = d } else { mb.refIdxL1Part1 = r; mb.mvdL1Part1 = d }
                    }
                }
            }
            if mb.isIntra {
                var allowed = [0]
                if mbX > 0 { allowed.append(1) }
                if mbY > 0 { allowed.append(2) }
                if mbX > 0 && mbY > 0 { allowed.append(3) }
                mb.intraChromaPredMode = allowed[int(0...allowed.count - 1)]
            }
            mb.codedBlockPatternLuma = kind == .intra16x16 ? (chance(50) ? 15 : 0) : int(0...15)
            mb.codedBlockPatternChroma = int(0...2)
            if kind == .intra16x16 { fill(&mb.lumaDC, start: 0, count: 16) }
            for blk in 0..<16 where mb.codedBlockPatternLuma >> (blk >> 2) & 1 != 0 {
                if kind == .intra16x16 { fill(&mb.luma, start: 16 * blk + 1, count: 15) } else { fill(&mb.luma, start: 16 * blk, count: 16) }
            }
            if mb.codedBlockPatternChroma > 0 { fill(&mb.chromaDC, start: 0, count: 8) }
            if mb.codedBlockPatternChroma == 2 {
                for blk in 0..<8 { fill(&mb.chromaAC, start: 16 * blk + 1, count: 15) }
            }
            if mb.codedBlockPatternLuma > 0 || mb.codedBlockPatternChroma > 0 || kind == .intra16x16 { mb.mbQPDelta = qpDelta() }
            out.append(mb)
        }
        return out
    }
}
