import NALStream

/// hrd_parameters() (E.2.2) and sub_layer_hrd_parameters() (E.2.3), every field kept so that the
/// writer gives the same bits back (SEI buffering period and picture timing depend on the lengths).
public struct H265HRDParameters: Hashable, Sendable {
    public var nalHRDParametersPresentFlag = false
    public var vclHRDParametersPresentFlag = false
    public var subPicHRDParamsPresentFlag = false
    public var tickDivisorMinus2 = 0
    public var duCpbRemovalDelayIncrementLengthMinus1 = 0
    public var subPicCpbParamsInPicTimingSeiFlag = false
    public var dpbOutputDelayDuLengthMinus1 = 0
    public var bitRateScale = 0
    public var cpbSizeScale = 0
    public var cpbSizeDuScale = 0
    public var initialCpbRemovalDelayLengthMinus1 = 23
    public var auCpbRemovalDelayLengthMinus1 = 23
    public var dpbOutputDelayLengthMinus1 = 23
    /// One per sub-layer, 0...maxNumSubLayersMinus1.
    public var subLayers: [SubLayer] = []

    /// The per-sub-layer part of hrd_parameters().
    public struct SubLayer: Hashable, Sendable {
        public var fixedPicRateGeneralFlag = false
        public var fixedPicRateWithinCvsFlag = false
        public var elementalDurationInTcMinus1 = 0
        public var lowDelayHrdFlag = false
        public var cpbCntMinus1 = 0
        /// sub_layer_hrd_parameters() for the NAL and the VCL HRD, when present.
        public var nal: [CPB] = []
        public var vcl: [CPB] = []
        public init() {}
    }

    /// One CPB specification of sub_layer_hrd_parameters() (E.2.3).
    public struct CPB: Hashable, Sendable {
        public var bitRateValueMinus1 = 0
        public var cpbSizeValueMinus1 = 0
        public var cpbSizeDuValueMinus1 = 0
        public var bitRateDuValueMinus1 = 0
        public var cbrFlag = false
        public init() {}
    }

    public init() {}

    public init(_ r: inout SyntaxReader, commonInfPresent: Bool, maxNumSubLayersMinus1: Int) throws(BitstreamError) {
        if commonInfPresent {
            nalHRDParametersPresentFlag = try r.flag("nal_hrd_parameters_present_flag")
            vclHRDParametersPresentFlag = try r.flag("vcl_hrd_parameters_present_flag")
            if nalHRDParametersPresentFlag || vclHRDParametersPresentFlag {
                subPicHRDParamsPresentFlag = try r.flag("sub_pic_hrd_params_present_flag")
                if subPicHRDParamsPresentFlag {
                    tickDivisorMinus2 = try r.u(8, "tick_divisor_minus2")
                    duCpbRemovalDelayIncrementLengthMinus1 = try r.u(5, "du_cpb_removal_delay_increment_length_minus1")
                    subPicCpbParamsInPicTimingSeiFlag = try r.flag("sub_pic_cpb_params_in_pic_timing_sei_flag")
                    dpbOutputDelayDuLengthMinus1 = try r.u(5, "dpb_output_delay_du_length_minus1")
                }
                bitRateScale = try r.u(4, "bit_rate_scale")
                cpbSizeScale = try r.u(4, "cpb_size_scale")
                if subPicHRDParamsPresentFlag { cpbSizeDuScale = try r.u(4, "cpb_size_du_scale") }
                initialCpbRemovalDelayLengthMinus1 = try r.u(5, "initial_cpb_removal_delay_length_minus1")
                auCpbRemovalDelayLengthMinus1 = try r.u(5, "au_cpb_removal_delay_length_minus1")
                dpbOutputDelayLengthMinus1 = try r.u(5, "dpb_output_delay_length_minus1")
            }
        }
        for i in 0...maxNumSubLayersMinus1 {
            var s = SubLayer()
            s.fixedPicRateGeneralFlag = try r.flag("fixed_pic_rate_general_flag[\(i)]")
            s.fixedPicRateWithinCvsFlag = true
            if !s.fixedPicRateGeneralFlag { s.fixedPicRateWithinCvsFlag = try r.flag("fixed_pic_rate_within_cvs_flag[\(i)]") }
            if s.fixedPicRateWithinCvsFlag {
                s.elementalDurationInTcMinus1 = try r.ue("elemental_duration_in_tc_minus1[\(i)]", max: 2047)
            } else {
                s.lowDelayHrdFlag = try r.flag("low_delay_hrd_flag[\(i)]")
            }
            if !s.lowDelayHrdFlag { s.cpbCntMinus1 = try r.ue("cpb_cnt_minus1[\(i)]", max: 31) }
            if nalHRDParametersPresentFlag { s.nal = try Self.cpbs(&r, count: s.cpbCntMinus1 + 1, subPic: subPicHRDParamsPresentFlag) }
            if vclHRDParametersPresentFlag { s.vcl = try Self.cpbs(&r, count: s.cpbCntMinus1 + 1, subPic: subPicHRDParamsPresentFlag) }
            subLayers.append(s)
        }
    }

    /// sub_layer_hrd_parameters() (E.2.3).
    private static func cpbs(_ r: inout SyntaxReader, count: Int, subPic: Bool) throws(BitstreamError) -> [CPB] {
        var out: [CPB] = []
        for j in 0..<count {
            var c = CPB()
            c.bitRateValueMinus1 = try r.ue("bit_rate_value_minus1[\(j)]")
            c.cpbSizeValueMinus1 = try r.ue("cpb_size_value_minus1[\(j)]")
            if subPic {
                c.cpbSizeDuValueMinus1 = try r.ue("cpb_size_du_value_minus1[\(j)]")
                c.bitRateDuValueMinus1 = try r.ue("bit_rate_du_value_minus1[\(j)]")
            }
            c.cbrFlag = try r.flag("cbr_flag[\(j)]")
            out.append(c)
        }
        return out
    }
}
