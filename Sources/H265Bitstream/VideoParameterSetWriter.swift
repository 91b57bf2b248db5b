import NALStream

extension VideoParameterSet {
    /// video_parameter_set_rbsp() (7.3.2.1) with its trailing bits: the inverse of the parser. Layer sets
    /// beyond the first include no layers; timing info carries no HRD parameters.
    public func writeRBSP(_ w: inout BitWriter) {
        w.u(4, id)
        w.flag(baseLayerInternalFlag)
        w.flag(baseLayerAvailableFlag)
        w.u(6, maxLayersMinus1)
        w.u(3, maxSubLayersMinus1)
        w.flag(temporalIdNestingFlag)
        w.u(16, 0xFFFF)
        profileTierLevel.write(&w, maxNumSubLayersMinus1: maxSubLayersMinus1)
        let orderingInfo = maxDecPicBufferingMinus1.count > 1
        w.flag(orderingInfo)
        for i in 0..<max(maxDecPicBufferingMinus1.count, 1) {
            w.ue(maxDecPicBufferingMinus1.indices.contains(i) ? maxDecPicBufferingMinus1[i] : 0)
            w.ue(maxNumReorderPics.indices.contains(i) ? maxNumReorderPics[i] : 0)
            w.ue(maxLatencyIncreasePlus1.indices.contains(i) ? maxLatencyIncreasePlus1[i] : 0)
        }
        w.u(6, maxLayerId)
        w.ue(numLayerSetsMinus1)
        if numLayerSetsMinus1 > 0 { for _ in 1...numLayerSetsMinus1 { for _ in 0...maxLayerId { w.flag(false) } } }
        w.flag(timingInfoPresentFlag)
        if timingInfoPresentFlag {
            w.u(32, UInt32(truncatingIfNeeded: numUnitsInTick))
            w.u(32, UInt32(truncatingIfNeeded: timeScale))
            w.flag(false)  // vps_poc_proportional_to_timing_flag
            w.ue(0)        // vps_num_hrd_parameters
        }
        w.flag(false)  // vps_extension_flag (no extension data is kept)
        w.rbspTrailingBits()
    }

    /// The VPS as a NAL unit: 2-byte header + escaped RBSP, no start code.
    public func nalUnit() -> [UInt8] {
        var w = BitWriter()
        writeRBSP(&w)
        return h265NALUnit(type: .vps, rbsp: w.bytes)
    }
}
