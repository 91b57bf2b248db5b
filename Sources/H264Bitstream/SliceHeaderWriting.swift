extension SliceHeader {
    /// Writes slice_header() (7.3.3) into the RBSP being built, the inverse of
    /// ``init(nalUnit:parameterSets:)``: `sps` and `pps` say which fields are present and how wide.
    public func write(_ w: inout BitWriter, sps: SequenceParameterSet, pps: PictureParameterSet) {
        let type = sliceType
        w.ue(firstMbInSlice)
        w.ue(sliceTypeRaw)
        w.ue(picParameterSetId)
        if sps.separateColourPlaneFlag { w.u(2, colourPlaneId) }
        w.u(sps.log2MaxFrameNumMinus4 + 4, frameNum)
        if !sps.frameMbsOnlyFlag {
            w.flag(fieldPicFlag)
            if fieldPicFlag { w.flag(bottomFieldFlag) }
        }
        if idrPicFlag { w.ue(idrPicId) }
        if sps.picOrderCntType == 0 {
            w.u(sps.log2MaxPicOrderCntLsbMinus4 + 4, picOrderCntLsb)
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag { w.se(deltaPicOrderCntBottom) }
        }
        if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            w.se(deltaPicOrderCnt[0])
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag { w.se(deltaPicOrderCnt[1]) }
        }
        if pps.redundantPicCntPresentFlag { w.ue(redundantPicCnt) }
        if type == .b { w.flag(directSpatialMvPredFlag) }
        if type == .p || type == .sp || type == .b {
            w.flag(numRefIdxActiveOverrideFlag)
            if numRefIdxActiveOverrideFlag {
                w.ue(numRefIdxL0ActiveMinus1)
                if type == .b { w.ue(numRefIdxL1ActiveMinus1) }
            }
        }
        if !type.isIntra { Self.writeModifications(refPicListModificationFlagL0, refPicListModificationL0, &w) }
        if type == .b { Self.writeModifications(refPicListModificationFlagL1, refPicListModificationL1, &w) }
        if let predWeightTable { Self.writePredWeightTable(predWeightTable, sps: sps, type: type, &w) }
        if nalRefIdc != 0 { Self.writeDecRefPicMarking(decRefPicMarking ?? DecRefPicMarking(), idr: idrPicFlag, &w) }
        if pps.entropyCodingModeFlag && !type.isIntra { w.ue(cabacInitIdc) }
        w.se(sliceQpDelta)
        if type == .sp || type == .si {
            if type == .sp { w.flag(spForSwitchFlag) }
            w.se(sliceQsDelta)
        }
        if pps.deblockingFilterControlPresentFlag {
            w.ue(disableDeblockingFilterIdc)
            if disableDeblockingFilterIdc != 1 {
                w.se(sliceAlphaC0OffsetDiv2)
                w.se(sliceBetaOffsetDiv2)
            }
        }
        if pps.numSliceGroupsMinus1 > 0 && (3...5).contains(pps.sliceGroupMapType) {
            let picSizeInMapUnits = sps.picWidthInMbs * sps.picHeightInMapUnits
            let rate = pps.sliceGroupChangeRateMinus1 + 1
            w.u(PictureParameterSet.ceilLog2((picSizeInMapUnits + rate - 1) / rate + 1), sliceGroupChangeCycle)
        }
    }

    static func writeModifications(_ flag: Bool, _ list: [RefPicListModification], _ w: inout BitWriter) {
        w.flag(flag)
        guard flag else { return }
        for entry in list {
            w.ue(entry.modificationOfPicNumsIdc)
            w.ue(entry.value)
        }
        w.ue(3)
    }

    static func writePredWeightTable(_ t: PredWeightTable, sps: SequenceParameterSet, type: SliceType, _ w: inout BitWriter) {
        w.ue(t.lumaLog2WeightDenom)
        if sps.chromaArrayType != 0 { w.ue(t.chromaLog2WeightDenom) }
        for entry in t.l0 + (type == .b ? t.l1 : []) {
            w.flag(entry.lumaWeightFlag)
            if entry.lumaWeightFlag {
                w.se(entry.lumaWeight)
                w.se(entry.lumaOffset)
            }
            guard sps.chromaArrayType != 0 else { continue }
            w.flag(entry.chromaWeightFlag)
            if entry.chromaWeightFlag {
                for j in 0..<2 {
                    w.se(entry.chromaWeight[j])
                    w.se(entry.chromaOffset[j])
                }
            }
        }
    }

    static func writeDecRefPicMarking(_ m: DecRefPicMarking, idr: Bool, _ w: inout BitWriter) {
        if idr {
            w.flag(m.noOutputOfPriorPicsFlag)
            w.flag(m.longTermReferenceFlag)
            return
        }
        w.flag(m.adaptiveRefPicMarkingModeFlag)
        guard m.adaptiveRefPicMarkingModeFlag else { return }
        for op in m.operations {
            w.ue(op.operation)
            if op.operation == 1 || op.operation == 3 { w.ue(op.differenceOfPicNumsMinus1) }
            if op.operation == 2 { w.ue(op.longTermPicNum) }
            if op.operation == 3 || op.operation == 6 { w.ue(op.longTermFrameIdx) }
            if op.operation == 4 { w.ue(op.maxLongTermFrameIdxPlus1) }
        }
        w.ue(0)
    }
}
