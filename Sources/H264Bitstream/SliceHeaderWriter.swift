extension SliceHeader {
    /// The slice header as the start of a coded slice NAL unit: the NAL header byte and slice_header()
    /// (7.3.3) as RBSP bits, not yet escaped. Slice data follows in the same writer; the caller inserts
    /// emulation prevention (``EmulationPrevention/insert(_:)``) once the RBSP is complete.
    public func write(_ w: inout BitWriter, sps: SequenceParameterSet, pps: PictureParameterSet) {
        w.u(8, Int(NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: nalUnitType).byte))
        writeHeaderRBSP(&w, sps: sps, pps: pps)
    }

    /// slice_header() alone (7.3.3), the inverse of ``init(nalUnit:parameterSets:)``.
    public func writeHeaderRBSP(_ w: inout BitWriter, sps: SequenceParameterSet, pps: PictureParameterSet) {
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
        // ref_pic_list_modification() (7.3.3.1)
        func writeModifications(_ flag: Bool, _ list: [RefPicListModification]) {
            w.flag(flag)
            guard flag else { return }
            for m in list {
                w.ue(m.modificationOfPicNumsIdc)
                w.ue(m.value)
            }
            w.ue(3)
        }
        if !type.isIntra { writeModifications(refPicListModificationFlagL0, refPicListModificationL0) }
        if type == .b { writeModifications(refPicListModificationFlagL1, refPicListModificationL1) }
        if (pps.weightedPredFlag && (type == .p || type == .sp)) || (pps.weightedBipredIdc == 1 && type == .b) {
            writePredWeightTable(&w, predWeightTable ?? PredWeightTable(), sps: sps, type: type)
        }
        if nalRefIdc != 0 { writeDecRefPicMarking(&w, decRefPicMarking ?? DecRefPicMarking()) }
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

    /// pred_weight_table() (7.3.3.2); an entry whose flag is 0 writes only the flag.
    private func writePredWeightTable(_ w: inout BitWriter, _ t: PredWeightTable, sps: SequenceParameterSet, type: SliceType) {
        w.ue(t.lumaLog2WeightDenom)
        if sps.chromaArrayType != 0 { w.ue(t.chromaLog2WeightDenom) }
        func writeList(_ entries: [PredWeightTable.Entry], count: Int) {
            for i in 0..<count {
                let e = i < entries.count ? entries[i] : PredWeightTable.Entry()
                w.flag(e.lumaWeightFlag)
                if e.lumaWeightFlag { w.se(e.lumaWeight); w.se(e.lumaOffset) }
                if sps.chromaArrayType != 0 {
                    w.flag(e.chromaWeightFlag)
                    if e.chromaWeightFlag { for j in 0..<2 { w.se(e.chromaWeight[j]); w.se(e.chromaOffset[j]) } }
                }
            }
        }
        writeList(t.l0, count: numRefIdxL0ActiveMinus1 + 1)
        if type == .b { writeList(t.l1, count: numRefIdxL1ActiveMinus1 + 1) }
    }

    /// dec_ref_pic_marking() (7.3.3.3).
    private func writeDecRefPicMarking(_ w: inout BitWriter, _ m: DecRefPicMarking) {
        if idrPicFlag {
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
