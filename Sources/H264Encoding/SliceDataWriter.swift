import H264Bitstream

/// What the entropy coders need to know of a slice beyond its macroblocks (7.3.4, 7.4.3).
public struct SliceCoding: Sendable {
    public var sliceType: SliceType
    public var widthInMbs: Int
    public var heightInMbs: Int
    public var firstMbInSlice: Int
    /// SliceQPY = 26 + pic_init_qp_minus26 + slice_qp_delta: CABAC context initialisation (9.3.1.1).
    public var sliceQP: Int
    public var cabacInitIdc: Int
    /// num_ref_idx_l0/l1_active_minus1 for this slice: ref_idx is written only when > 0, with te(v)'s
    /// range in CAVLC (9.1.2).
    public var numRefIdxL0ActiveMinus1: Int
    public var numRefIdxL1ActiveMinus1: Int
    /// PPS transform_8x8_mode_flag: transform_size_8x8_flag is then present for I_NxN and for inter
    /// macroblocks with CodedBlockPatternLuma > 0 (7.3.5).
    public var transform8x8Mode: Bool
    /// SPS direct_8x8_inference_flag (for B_Direct_16x16's transform_size_8x8_flag condition).
    public var direct8x8Inference: Bool
    /// PPS constrained_intra_pred_flag (CAVLC nC of intra blocks next to inter ones stays as coded; kept for completeness).
    public var constrainedIntraPred: Bool

    public init(sliceType: SliceType, widthInMbs: Int, heightInMbs: Int, firstMbInSlice: Int, sliceQP: Int,
                cabacInitIdc: Int = 0, numRefIdxL0ActiveMinus1: Int = 0, numRefIdxL1ActiveMinus1: Int = 0,
                transform8x8Mode: Bool = false, direct8x8Inference: Bool = true, constrainedIntraPred: Bool = false) {
        self.sliceType = sliceType
        self.widthInMbs = widthInMbs
        self.heightInMbs = heightInMbs
        self.firstMbInSlice = firstMbInSlice
        self.sliceQP = sliceQP
        self.cabacInitIdc = cabacInitIdc
        self.numRefIdxL0ActiveMinus1 = numRefIdxL0ActiveMinus1
        self.numRefIdxL1ActiveMinus1 = numRefIdxL1ActiveMinus1
        self.transform8x8Mode = transform8x8Mode
        self.direct8x8Inference = direct8x8Inference
        self.constrainedIntraPred = constrainedIntraPred
    }
}

/// slice_data() (7.3.4) written with one entropy coder: CAVLC (``CAVLCSliceWriter``) or CABAC
/// (``CABACSliceWriter``).
///
/// The writer is handed the bit writer holding the NAL header byte and slice_header(), then every
/// macroblock of the slice in decoding order (skipped ones included, as `.pSkip` / `.bSkip`); it keeps
/// whatever neighbour state its coder needs (total_coeff for nC, coded_block_flag, mvd, ref_idx, mb
/// types, skip flags, the previous mb_qp_delta), with availability per 6.4.x: inside the picture and
/// in the same slice. ``finish()`` ends the slice (pending mb_skip_run; end_of_slice_flag; trailing
/// bits) and returns the RBSP, header included, not yet escaped.
public protocol SliceDataWriter {
    init(header: BitWriter, slice: SliceCoding)
    mutating func write(_ macroblock: borrowing MacroblockSyntax)
    mutating func finish() -> [UInt8]
}
