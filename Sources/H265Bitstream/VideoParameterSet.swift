import NALStream

/// video_parameter_set_rbsp() (7.3.2.1), up to vps_extension_flag.
public struct VideoParameterSet: Hashable, Sendable {
    public var id = 0
    public var baseLayerInternalFlag = true
    public var baseLayerAvailableFlag = true
    public var maxLayersMinus1 = 0
    public var maxSubLayersMinus1 = 0
    public var temporalIdNestingFlag = true
    public var profileTierLevel = ProfileTierLevel()
    public var maxDecPicBufferingMinus1: [Int] = []
    public var maxNumReorderPics: [Int] = []
    public var maxLatencyIncreasePlus1: [Int] = []
    public var maxLayerId = 0
    public var numLayerSetsMinus1 = 0
    public var timingInfoPresentFlag = false
    public var numUnitsInTick = 0
    public var timeScale = 0
    public var extensionFlag = false

    public init() {}

    public init(nalUnit: NALUnit) throws(BitstreamError) {
        var r = SyntaxReader(nalUnit: nalUnit)
        try self.init(&r)
    }

    public init(_ r: inout SyntaxReader) throws(BitstreamError) {
        id = try r.u(4, "vps_video_parameter_set_id")
        baseLayerInternalFlag = try r.flag("vps_base_layer_internal_flag")
        baseLayerAvailableFlag = try r.flag("vps_base_layer_available_flag")
        maxLayersMinus1 = try r.u(6, "vps_max_layers_minus1")
        maxSubLayersMinus1 = try r.u(3, "vps_max_sub_layers_minus1")
        guard maxSubLayersMinus1 < 7 else { throw .invalidValue(element: "vps_max_sub_layers_minus1", value: 7, bitOffset: 12) }
        temporalIdNestingFlag = try r.flag("vps_temporal_id_nesting_flag")
        _ = try r.u(16, "vps_reserved_0xffff_16bits")
        profileTierLevel = try ProfileTierLevel(&r, profilePresent: true, maxNumSubLayersMinus1: maxSubLayersMinus1)
        let orderingInfo = try r.flag("vps_sub_layer_ordering_info_present_flag")
        for i in (orderingInfo ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            maxDecPicBufferingMinus1.append(try r.ue("vps_max_dec_pic_buffering_minus1[\(i)]", max: 15))
            maxNumReorderPics.append(try r.ue("vps_max_num_reorder_pics[\(i)]", max: 15))
            maxLatencyIncreasePlus1.append(try r.ue("vps_max_latency_increase_plus1[\(i)]"))
        }
        maxLayerId = try r.u(6, "vps_max_layer_id")
        numLayerSetsMinus1 = try r.ue("vps_num_layer_sets_minus1", max: 1023)
        if numLayerSetsMinus1 > 0 {
            for i in 1...numLayerSetsMinus1 {
                for j in 0...maxLayerId { _ = try r.flag("layer_id_included_flag[\(i)][\(j)]") }
            }
        }
        timingInfoPresentFlag = try r.flag("vps_timing_info_present_flag")
        if timingInfoPresentFlag {
            numUnitsInTick = try r.u(32, "vps_num_units_in_tick")
            timeScale = try r.u(32, "vps_time_scale")
            if try r.flag("vps_poc_proportional_to_timing_flag") { _ = try r.ue("vps_num_ticks_poc_diff_one_minus1") }
            let count = try r.ue("vps_num_hrd_parameters", max: UInt32(numLayerSetsMinus1 + 1))
            for i in 0..<count {
                _ = try r.ue("hrd_layer_set_idx[\(i)]", max: UInt32(numLayerSetsMinus1))
                var common = true
                if i > 0 { common = try r.flag("cprms_present_flag[\(i)]") }
                _ = try H265HRDParameters(&r, commonInfPresent: common, maxNumSubLayersMinus1: maxSubLayersMinus1)
            }
        }
        extensionFlag = try r.flag("vps_extension_flag")
    }
}
