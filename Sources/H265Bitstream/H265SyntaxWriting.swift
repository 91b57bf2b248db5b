import NALStream

/// A NAL unit of H.265 from its RBSP: the 2-byte header (7.3.1.2), then the RBSP with emulation
/// prevention (7.4.2), no start code.
func h265NALUnit(type: H265NALUnitType, temporalID: Int = 0, rbsp: [UInt8]) -> [UInt8] {
    H265NALUnitHeader(type: type, temporalID: temporalID).bytes + EmulationPrevention.insert(rbsp)
}

extension ProfileTierLevel {
    /// profile_tier_level() (7.3.3) with no sub-layer profiles or levels signalled; the constraint and
    /// reserved bits the parser does not keep are written as zeros.
    func write(_ w: inout BitWriter, maxNumSubLayersMinus1: Int) {
        w.u(2, generalProfileSpace)
        w.flag(generalTierFlag)
        w.u(5, generalProfileIdc)
        w.u(32, generalProfileCompatibilityFlags)
        w.flag(generalProgressiveSourceFlag)
        w.flag(generalInterlacedSourceFlag)
        w.flag(generalNonPackedConstraintFlag)
        w.flag(generalFrameOnlyConstraintFlag)
        w.u(32, 0)  // 43 bits of constraint flags or reserved zeros, then general_inbld_flag / reserved bit
        w.u(12, 0)
        w.u(8, generalLevelIdc)
        for i in 0..<maxNumSubLayersMinus1 {
            w.flag(false)  // sub_layer_profile_present_flag
            w.flag(i < subLayerLevelIdc.count && subLayerLevelIdc[i] != nil)
        }
        if maxNumSubLayersMinus1 > 0 { for _ in maxNumSubLayersMinus1..<8 { w.u(2, 0) } }
        for i in 0..<maxNumSubLayersMinus1 {
            if i < subLayerLevelIdc.count, let level = subLayerLevelIdc[i] { w.u(8, level) }
        }
    }
}

extension H265HRDParameters {
    /// hrd_parameters() (E.2.2), the inverse of the parser. Sub-layers the struct lacks are written as
    /// one CPB at the lowest rate and size.
    func write(_ w: inout BitWriter, commonInfPresent: Bool, maxNumSubLayersMinus1: Int) {
        if commonInfPresent {
            w.flag(nalHRDParametersPresentFlag)
            w.flag(vclHRDParametersPresentFlag)
            if nalHRDParametersPresentFlag || vclHRDParametersPresentFlag {
                w.flag(subPicHRDParamsPresentFlag)
                if subPicHRDParamsPresentFlag {
                    w.u(8, tickDivisorMinus2)
                    w.u(5, duCpbRemovalDelayIncrementLengthMinus1)
                    w.flag(subPicCpbParamsInPicTimingSeiFlag)
                    w.u(5, dpbOutputDelayDuLengthMinus1)
                }
                w.u(4, bitRateScale)
                w.u(4, cpbSizeScale)
                if subPicHRDParamsPresentFlag { w.u(4, cpbSizeDuScale) }
                w.u(5, initialCpbRemovalDelayLengthMinus1)
                w.u(5, auCpbRemovalDelayLengthMinus1)
                w.u(5, dpbOutputDelayLengthMinus1)
            }
        }
        for i in 0...maxNumSubLayersMinus1 {
            let s = subLayers.indices.contains(i) ? subLayers[i] : SubLayer()
            w.flag(s.fixedPicRateGeneralFlag)
            if !s.fixedPicRateGeneralFlag { w.flag(s.fixedPicRateWithinCvsFlag) }
            let withinCvs = s.fixedPicRateGeneralFlag || s.fixedPicRateWithinCvsFlag
            if withinCvs { w.ue(s.elementalDurationInTcMinus1) } else { w.flag(s.lowDelayHrdFlag) }
            let lowDelay = withinCvs ? false : s.lowDelayHrdFlag
            let count = lowDelay ? 1 : s.cpbCntMinus1 + 1
            if !lowDelay { w.ue(s.cpbCntMinus1) }
            for (present, cpbs) in [(nalHRDParametersPresentFlag, s.nal), (vclHRDParametersPresentFlag, s.vcl)] where present {
                for j in 0..<count {
                    let c = cpbs.indices.contains(j) ? cpbs[j] : CPB()
                    w.ue(c.bitRateValueMinus1)
                    w.ue(c.cpbSizeValueMinus1)
                    if subPicHRDParamsPresentFlag { w.ue(c.cpbSizeDuValueMinus1); w.ue(c.bitRateDuValueMinus1) }
                    w.flag(c.cbrFlag)
                }
            }
        }
    }
}

extension H265ExtensionFlags {
    func write(_ w: inout BitWriter) {
        w.flag(present)
        guard present else { return }
        w.flag(range); w.flag(multilayer); w.flag(threeD); w.flag(scc); w.u(4, fourBits)
    }
}

extension H265ScalingList {
    /// scaling_list_data() (7.3.4), every list coded explicitly (scaling_list_pred_mode_flag 1).
    func write(_ w: inout BitWriter) {
        for sizeId in 0..<4 {
            var matrixId = 0
            while matrixId < 6 {
                w.flag(true)
                var next = 8
                if sizeId > 1 {
                    next = dc[sizeId - 2][matrixId]
                    w.se(next - 8)
                }
                for coef in lists[sizeId][matrixId] {
                    var delta = coef - next
                    if delta > 127 { delta -= 256 } else if delta < -128 { delta += 256 }
                    w.se(delta)
                    next = coef
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
    }
}

extension ShortTermReferencePictureSet {
    /// st_ref_pic_set(index) (7.3.7), always coded explicitly (inter_ref_pic_set_prediction_flag 0).
    func write(_ w: inout BitWriter, index: Int) {
        if index != 0 { w.flag(false) }
        w.ue(numNegativePics)
        w.ue(numPositivePics)
        var previous = 0
        for (d, used) in zip(deltaPocS0, usedByCurrPicS0) {
            w.ue(previous - d - 1)
            w.flag(used)
            previous = d
        }
        previous = 0
        for (d, used) in zip(deltaPocS1, usedByCurrPicS1) {
            w.ue(d - previous - 1)
            w.flag(used)
            previous = d
        }
    }
}
