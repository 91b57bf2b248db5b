import NALStream

/// hrd_parameters() (E.2.2) and sub_layer_hrd_parameters() (E.2.3). vtk keeps what it reports; the
/// rest is read to reach the syntax after it.
public struct H265HRDParameters: Hashable, Sendable {
    public var nalHRDParametersPresentFlag = false
    public var vclHRDParametersPresentFlag = false
    public var subPicHRDParamsPresentFlag = false

    public init() {}

    public init(_ r: inout SyntaxReader, commonInfPresent: Bool, maxNumSubLayersMinus1: Int) throws(BitstreamError) {
        if commonInfPresent {
            nalHRDParametersPresentFlag = try r.flag("nal_hrd_parameters_present_flag")
            vclHRDParametersPresentFlag = try r.flag("vcl_hrd_parameters_present_flag")
            if nalHRDParametersPresentFlag || vclHRDParametersPresentFlag {
                subPicHRDParamsPresentFlag = try r.flag("sub_pic_hrd_params_present_flag")
                if subPicHRDParamsPresentFlag {
                    _ = try r.u(8, "tick_divisor_minus2")
                    _ = try r.u(5, "du_cpb_removal_delay_increment_length_minus1")
                    _ = try r.flag("sub_pic_cpb_params_in_pic_timing_sei_flag")
                    _ = try r.u(5, "dpb_output_delay_du_length_minus1")
                }
                _ = try r.u(4, "bit_rate_scale")
                _ = try r.u(4, "cpb_size_scale")
                if subPicHRDParamsPresentFlag { _ = try r.u(4, "cpb_size_du_scale") }
                _ = try r.u(5, "initial_cpb_removal_delay_length_minus1")
                _ = try r.u(5, "au_cpb_removal_delay_length_minus1")
                _ = try r.u(5, "dpb_output_delay_length_minus1")
            }
        }
        for i in 0...maxNumSubLayersMinus1 {
            let general = try r.flag("fixed_pic_rate_general_flag[\(i)]")
            var withinCVS = true
            if !general { withinCVS = try r.flag("fixed_pic_rate_within_cvs_flag[\(i)]") }
            var lowDelay = false
            if withinCVS {
                _ = try r.ue("elemental_duration_in_tc_minus1[\(i)]", max: 2047)
            } else {
                lowDelay = try r.flag("low_delay_hrd_flag[\(i)]")
            }
            var cpbCount = 1
            if !lowDelay { cpbCount = try r.ue("cpb_cnt_minus1[\(i)]", max: 31) + 1 }
            for present in [nalHRDParametersPresentFlag, vclHRDParametersPresentFlag] where present {
                for j in 0..<cpbCount {
                    _ = try r.ue("bit_rate_value_minus1[\(j)]")
                    _ = try r.ue("cpb_size_value_minus1[\(j)]")
                    if subPicHRDParamsPresentFlag {
                        _ = try r.ue("cpb_size_du_value_minus1[\(j)]")
                        _ = try r.ue("bit_rate_du_value_minus1[\(j)]")
                    }
                    _ = try r.flag("cbr_flag[\(j)]")
                }
            }
        }
    }
}
