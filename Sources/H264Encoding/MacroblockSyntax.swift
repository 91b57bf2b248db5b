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
    public var luma = [Int32](repeating: 0, count: 256)
    /// Intra16x16DCLevel in scan order.
    public var lumaDC = [Int32](repeating: 0, count: 16)
    /// ChromaDCLevel, 4 per component (Cb then Cr), in the order of 8.5.11.1 (raster c[0,0] c[1,0] c[0,1] c[1,1]).
    public var chromaDC = [Int32](repeating: 0, count: 8)
    /// ChromaACLevel: 16 per 4x4 block (index 0 unused, AC at 1...15), blocks Cb 0...3 then Cr 0...3.
    public var chromaAC = [Int32](repeating: 0, count: 128)
    /// pcm_sample_luma (256) then pcm_sample_chroma (Cb 64, Cr 64), for `.pcm`.
    public var pcmSamples = [UInt8](repeating: 0, count: 384)

    public init() {}

    /// Clears every field for the next macroblock, keeping the storage.
    public mutating func reset(kind: Kind) {
        self.kind = kind
        intra16x16PredMode = 0
        intraChromaPredMode = 0
        refIdxL0 = 0; refIdxL1 = 0
        mvdL0 = (0, 0); mvdL1 = (0, 0)
        codedBlockPatternLuma = 0; codedBlockPatternChroma = 0
        transformSize8x8Flag = false
        mbQPDelta = 0
        // whole-buffer clears: one uniqueness check per array, not one per element
        luma.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        lumaDC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        chromaDC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        chromaAC.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    public var isIntra: Bool { kind == .intra16x16 || kind == .intra4x4 || kind == .pcm }
    public var isSkip: Bool { kind == .pSkip || kind == .bSkip }
}
