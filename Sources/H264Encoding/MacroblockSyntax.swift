/// One coded macroblock as the entropy coders see it (7.3.5): the decisions are made, the residual is
/// quantised and in scan order; what is left is to write the syntax elements with CAVLC (9.2) or
/// CABAC (9.3). The same value drives both back ends, so a picture coded twice, once with each, must
/// decode to the same pixels.
///
/// One instance is reused for every macroblock of a slice (reset with ``reset(kind:)``): no
/// allocation per macroblock.
public struct MacroblockSyntax: Sendable {
    /// The macroblock types vtksoft's engine codes (Tables 7-11, 7-13, 7-14).
    public enum Kind: Sendable, Equatable {
        /// I_16x16_<predMode>_<cbpChroma>_<cbpLuma>: mb_type derives from the fields below.
        case intra16x16
        /// I_NxN: Intra 4x4, or Intra 8x8 with ``transformSize8x8Flag``.
        case intra4x4
        /// I_PCM: samples verbatim.
        case pcm
        /// P_L0_16x16.
        case pL016x16
        /// P_Skip (mb_skip_run / mb_skip_flag; nothing else is written).
        case pSkip
        /// B_L0_16x16, B_L1_16x16, B_Bi_16x16.
        case bL016x16, bL116x16, bBi16x16
        /// B_Direct_16x16 (mb_type 0) and B_Skip: only with direct prediction implemented exactly.
        case bDirect16x16, bSkip
        /// P_L0_L0_16x8 and P_L0_L0_8x16: two partitions, each with its ref_idx_l0 and mvd_l0.
        case p16x8, p8x16
        /// B_X_Y_16x8 and B_X_Y_8x16 (mb_type 4...21): the prediction of partition 0, then of partition 1.
        case b16x8(PartitionPrediction, PartitionPrediction), b8x16(PartitionPrediction, PartitionPrediction)
    }

    /// MbPartPredMode of a B partition (Table 7-14): Pred_L0, Pred_L1 or BiPred.
    public enum PartitionPrediction: Int, Sendable, Equatable {
        case l0 = 0, l1 = 1, bi = 2
        public var usesL0: Bool { self != .l1 }
        public var usesL1: Bool { self != .l0 }
    }

    public var kind: Kind = .pSkip
    /// Intra16x16PredMode 0...3 (8.3.3), for `.intra16x16`.
    public var intra16x16PredMode = 0
    /// prev_intra4x4_pred_mode_flag and rem_intra4x4_pred_mode per 4x4 block in decoding order
    /// (luma4x4BlkIdx, 6.4.3), for `.intra4x4`: the encoder has already compared each mode with
    /// predIntra4x4PredMode (8.3.1.1). With ``transformSize8x8Flag`` (Intra 8x8), the first four are
    /// prev_intra8x8_pred_mode_flag / rem_intra8x8_pred_mode per 8x8 block (8.3.2.1).
    public var prevIntra4x4PredModeFlag = [Bool](repeating: false, count: 16)
    public var remIntra4x4PredMode = [UInt8](repeating: 0, count: 16)
    /// intra_chroma_pred_mode 0...3 (8.3.4), for intra macroblocks.
    public var intraChromaPredMode = 0
    /// ref_idx_l0 / ref_idx_l1 of the 16x16 partition (written only when the list has more than one
    /// active entry, 7.3.5.1).
    public var refIdxL0 = 0
    public var refIdxL1 = 0
    /// mvd_l0 / mvd_l1 (horizontal, vertical) in quarter samples: mv minus its prediction (8.4.1.3).
    public var mvdL0 = (x: Int32(0), y: Int32(0))
    public var mvdL1 = (x: Int32(0), y: Int32(0))
    /// The same of partition 1 of a 16x8 or 8x16 macroblock (the fields above are then partition 0's).
    public var refIdxL0Part1 = 0
    public var refIdxL1Part1 = 0
    public var mvdL0Part1 = (x: Int32(0), y: Int32(0))
    public var mvdL1Part1 = (x: Int32(0), y: Int32(0))
    /// CodedBlockPatternLuma (bit b set: 8x8 block b has coefficients) and CodedBlockPatternChroma 0...2
    /// (7.4.5). For `.intra16x16` the luma part is 0 or 15 and both go into mb_type.
    public var codedBlockPatternLuma = 0
    public var codedBlockPatternChroma = 0
    /// transform_size_8x8_flag, written whenever the syntax has it (PPS transform_8x8_mode_flag on and
    /// the macroblock qualifies, 7.3.5). When set, ``luma`` holds 8x8 blocks.
    public var transformSize8x8Flag = false
    /// mb_qp_delta, written when the macroblock has it (cbp ≠ 0 or Intra16x16, 7.3.5).
    public var mbQPDelta = 0

    /// Luma coefficient levels in scan order (zig-zag, 8.5.6), 16 per 4x4 block, blocks in
    /// luma4x4BlkIdx order. For `.intra16x16` index 0 of each block is unused (its DC is in
    /// ``lumaDC``) and the AC levels sit at 1...15. With ``transformSize8x8Flag``: 64 per 8x8 block in
    /// 8x8 zig-zag order (8.5.7), blocks in luma8x8BlkIdx order.
    public var luma = [Int32](repeating: 0, count: 256) { didSet { written.insert(.luma) } }
    /// Intra16x16DCLevel in scan order.
    public var lumaDC = [Int32](repeating: 0, count: 16) { didSet { written.insert(.lumaDC) } }
    /// ChromaDCLevel, 4 per component (Cb then Cr), in the order of 8.5.11.1 (raster c[0,0] c[1,0] c[0,1] c[1,1]).
    public var chromaDC = [Int32](repeating: 0, count: 8) { didSet { written.insert(.chromaDC) } }
    /// ChromaACLevel: 16 per 4x4 block (index 0 unused, AC at 1...15), blocks Cb 0...3 then Cr 0...3.
    public var chromaAC = [Int32](repeating: 0, count: 128) { didSet { written.insert(.chromaAC) } }
    /// pcm_sample_luma (256) then pcm_sample_chroma (Cb 64, Cr 64), for `.pcm`.
    public var pcmSamples = [UInt8](repeating: 0, count: 384)

    /// The coefficient arrays changed since the last ``reset(kind:)`` (all are zero when their bit is clear), so
    /// that a reset clears only those: most macroblocks are reset several times while modes are tried, and a
    /// skipped one writes no levels at all. (`didSet` without `oldValue` modifies the array in place.)
    private var written: CoefficientArrays = []

    private struct CoefficientArrays: OptionSet {
        let rawValue: UInt8
        static let luma = Self(rawValue: 1), lumaDC = Self(rawValue: 2), chromaDC = Self(rawValue: 4), chromaAC = Self(rawValue: 8)
    }

    public init() {}

    /// Clears every field for the next macroblock, keeping the storage.
    public mutating func reset(kind: Kind) {
        self.kind = kind
        intra16x16PredMode = 0
        intraChromaPredMode = 0
        refIdxL0 = 0; refIdxL1 = 0
        mvdL0 = (0, 0); mvdL1 = (0, 0)
        refIdxL0Part1 = 0; refIdxL1Part1 = 0
        mvdL0Part1 = (0, 0); mvdL1Part1 = (0, 0)
        codedBlockPatternLuma = 0; codedBlockPatternChroma = 0
        transformSize8x8Flag = false
        mbQPDelta = 0
        // whole-buffer clears of the arrays written since the last reset: one uniqueness check per array,
        // not one per element
        guard !written.isEmpty else { return }
        if written.contains(.luma) { luma.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        if written.contains(.lumaDC) { lumaDC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        if written.contains(.chromaDC) { chromaDC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        if written.contains(.chromaAC) { chromaAC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        written = []
    }

    public var isIntra: Bool { kind == .intra16x16 || kind == .intra4x4 || kind == .pcm }
    public var isSkip: Bool { kind == .pSkip || kind == .bSkip }

    /// NumMbPart of an inter macroblock with motion vector differences (Tables 7-13, 7-14): 1 or 2; 0 otherwise.
    public var partitionCount: Int {
        switch kind {
        case .pL016x16, .bL016x16, .bL116x16, .bBi16x16: return 1
        case .p16x8, .p8x16, .b16x8, .b8x16: return 2
        default: return 0
        }
    }

    /// Whether partitions are 16x8 (true) or 8x16 (false), for two partitions.
    public var partitionsAreWide: Bool {
        switch kind {
        case .p16x8, .b16x8: return true
        default: return false
        }
    }

    /// The prediction of partition `part` (0 or 1), for an inter macroblock with motion vector differences.
    public func prediction(_ part: Int) -> PartitionPrediction {
        switch kind {
        case .pL016x16, .bL016x16, .p16x8, .p8x16: return .l0
        case .bL116x16: return .l1
        case .bBi16x16: return .bi
        case .b16x8(let a, let b), .b8x16(let a, let b): return part == 0 ? a : b
        default: return .l0
        }
    }

    /// ref_idx_lX of partition `part`.
    public func refIdx(list: Int, part: Int) -> Int {
        list == 0 ? (part == 0 ? refIdxL0 : refIdxL0Part1) : (part == 0 ? refIdxL1 : refIdxL1Part1)
    }

    /// mvd_lX of partition `part`.
    public func mvd(list: Int, part: Int) -> (x: Int32, y: Int32) {
        list == 0 ? (part == 0 ? mvdL0 : mvdL0Part1) : (part == 0 ? mvdL1 : mvdL1Part1)
    }

    /// mb_type of a B macroblock with two partitions (Table 7-14: 4...21).
    public var bPartitionMbType: Int {
        let k: Int
        switch (prediction(0), prediction(1)) {
        case (.l0, .l0): k = 0
        case (.l1, .l1): k = 1
        case (.l0, .l1): k = 2
        case (.l1, .l0): k = 3
        case (.l0, .bi): k = 4
        case (.l1, .bi): k = 5
        case (.bi, .l0): k = 6
        case (.bi, .l1): k = 7
        case (.bi, .bi): k = 8
        }
        return 4 + 2 * k + (partitionsAreWide ? 0 : 1)
    }
}
