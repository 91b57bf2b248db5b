import NALStream

extension H265PictureParameterSet {
    /// pic_parameter_set_rbsp() (7.3.2.3) with its trailing bits: the inverse of the parser.
    public func writeRBSP(_ w: inout BitWriter) {
        w.ue(id)
        w.ue(seqParameterSetId)
        w.flag(dependentSliceSegmentsEnabledFlag)
        w.flag(outputFlagPresentFlag)
        w.u(3, numExtraSliceHeaderBits)
        w.flag(signDataHidingEnabledFlag)
        w.flag(cabacInitPresentFlag)
        w.ue(numRefIdxL0DefaultActiveMinus1)
        w.ue(numRefIdxL1DefaultActiveMinus1)
        w.se(initQpMinus26)
        w.flag(constrainedIntraPredFlag)
        w.flag(transformSkipEnabledFlag)
        w.flag(cuQpDeltaEnabledFlag)
        if cuQpDeltaEnabledFlag { w.ue(diffCuQpDeltaDepth) }
        w.se(cbQpOffset)
        w.se(crQpOffset)
        w.flag(sliceChromaQpOffsetsPresentFlag)
        w.flag(weightedPredFlag)
        w.flag(weightedBipredFlag)
        w.flag(transquantBypassEnabledFlag)
        w.flag(tilesEnabledFlag)
        w.flag(entropyCodingSyncEnabledFlag)
        if tilesEnabledFlag {
            w.ue(numTileColumnsMinus1)
            w.ue(numTileRowsMinus1)
            w.flag(uniformSpacingFlag)
            if !uniformSpacingFlag {
                for v in columnWidthMinus1 { w.ue(v) }
                for v in rowHeightMinus1 { w.ue(v) }
            }
            w.flag(loopFilterAcrossTilesEnabledFlag)
        }
        w.flag(loopFilterAcrossSlicesEnabledFlag)
        w.flag(deblockingFilterControlPresentFlag)
        if deblockingFilterControlPresentFlag {
            w.flag(deblockingFilterOverrideEnabledFlag)
            w.flag(deblockingFilterDisabledFlag)
            if !deblockingFilterDisabledFlag { w.se(betaOffsetDiv2); w.se(tcOffsetDiv2) }
        }
        w.flag(scalingListDataPresentFlag)
        if scalingListDataPresentFlag { (scalingList ?? .default).write(&w) }
        w.flag(listsModificationPresentFlag)
        w.ue(log2ParallelMergeLevelMinus2)
        w.flag(sliceSegmentHeaderExtensionPresentFlag)
        extensionFlags.write(&w)
        if extensionFlags.range {
            if transformSkipEnabledFlag { w.ue(log2MaxTransformSkipBlockSizeMinus2) }
            w.flag(crossComponentPredictionEnabledFlag)
            w.flag(chromaQpOffsetListEnabledFlag)
            if chromaQpOffsetListEnabledFlag {
                w.ue(diffCuChromaQpOffsetDepth)
                w.ue(max(cbQpOffsetList.count, 1) - 1)
                for (cb, cr) in zip(cbQpOffsetList, crQpOffsetList) { w.se(cb); w.se(cr) }
            }
            w.ue(log2SaoOffsetScaleLuma)
            w.ue(log2SaoOffsetScaleChroma)
        }
        w.rbspTrailingBits()
    }

    /// The PPS as a NAL unit: 2-byte header + escaped RBSP, no start code.
    public func nalUnit() -> [UInt8] {
        var w = BitWriter()
        writeRBSP(&w)
        return h265NALUnit(type: .pps, rbsp: w.bytes)
    }
}
