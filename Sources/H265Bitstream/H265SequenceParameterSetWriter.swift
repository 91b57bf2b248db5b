import NALStream

extension H265SequenceParameterSet {
    /// seq_parameter_set_rbsp() (7.3.2.2) with its trailing bits: the inverse of the parser. Short-term
    /// sets are coded explicitly; the VUI's HRD as ``H265HRDParameters`` keeps it.
    public func writeRBSP(_ w: inout BitWriter) {
        w.u(4, videoParameterSetId)
        w.u(3, maxSubLayersMinus1)
        w.flag(temporalIdNestingFlag)
        profileTierLevel.write(&w, maxNumSubLayersMinus1: maxSubLayersMinus1)
        w.ue(id)
        w.ue(chromaFormatIdc)
        if chromaFormatIdc == 3 { w.flag(separateColourPlaneFlag) }
        w.ue(picWidthInLumaSamples)
        w.ue(picHeightInLumaSamples)
        w.flag(conformanceWindowFlag)
        if conformanceWindowFlag {
            w.ue(confWinLeftOffset); w.ue(confWinRightOffset); w.ue(confWinTopOffset); w.ue(confWinBottomOffset)
        }
        w.ue(bitDepthLumaMinus8)
        w.ue(bitDepthChromaMinus8)
        w.ue(log2MaxPicOrderCntLsbMinus4)
        // The parser fills every sub-layer; the ordering info is signalled when they differ.
        let layers = maxSubLayersMinus1 + 1
        let uniform = Set(maxDecPicBufferingMinus1).count <= 1 && Set(maxNumReorderPics).count <= 1 && Set(maxLatencyIncreasePlus1).count <= 1
        let orderingInfo = !uniform || maxSubLayersMinus1 == 0
        w.flag(orderingInfo)
        for i in (orderingInfo ? 0 : layers - 1)..<layers {
            w.ue(maxDecPicBufferingMinus1.indices.contains(i) ? maxDecPicBufferingMinus1[i] : 0)
            w.ue(maxNumReorderPics.indices.contains(i) ? maxNumReorderPics[i] : 0)
            w.ue(maxLatencyIncreasePlus1.indices.contains(i) ? maxLatencyIncreasePlus1[i] : 0)
        }
        w.ue(log2MinLumaCodingBlockSizeMinus3)
        w.ue(log2DiffMaxMinLumaCodingBlockSize)
        w.ue(log2MinLumaTransformBlockSizeMinus2)
        w.ue(log2DiffMaxMinLumaTransformBlockSize)
        w.ue(maxTransformHierarchyDepthInter)
        w.ue(maxTransformHierarchyDepthIntra)
        w.flag(scalingListEnabledFlag)
        if scalingListEnabledFlag {
            w.flag(scalingListDataPresentFlag)
            if scalingListDataPresentFlag { (scalingList ?? .default).write(&w) }
        }
        w.flag(ampEnabledFlag)
        w.flag(sampleAdaptiveOffsetEnabledFlag)
        w.flag(pcmEnabledFlag)
        if pcmEnabledFlag {
            w.u(4, pcmSampleBitDepthLumaMinus1)
            w.u(4, pcmSampleBitDepthChromaMinus1)
            w.ue(log2MinPcmLumaCodingBlockSizeMinus3)
            w.ue(log2DiffMaxMinPcmLumaCodingBlockSize)
            w.flag(pcmLoopFilterDisabledFlag)
        }
        w.ue(shortTermRefPicSets.count)
        for (i, set) in shortTermRefPicSets.enumerated() { set.write(&w, index: i) }
        w.flag(longTermRefPicsPresentFlag)
        if longTermRefPicsPresentFlag {
            w.ue(ltRefPicPocLsbSps.count)
            for (lsb, used) in zip(ltRefPicPocLsbSps, usedByCurrPicLtSpsFlag) {
                w.u(log2MaxPicOrderCntLsb, lsb)
                w.flag(used)
            }
        }
        w.flag(temporalMvpEnabledFlag)
        w.flag(strongIntraSmoothingEnabledFlag)
        w.flag(vuiParametersPresentFlag)
        if vuiParametersPresentFlag { vui.write(&w, maxNumSubLayersMinus1: maxSubLayersMinus1) }
        extensionFlags.write(&w)
        if extensionFlags.range {
            let e = rangeExtension
            for f in [e.transformSkipRotationEnabledFlag, e.transformSkipContextEnabledFlag, e.implicitRdpcmEnabledFlag,
                      e.explicitRdpcmEnabledFlag, e.extendedPrecisionProcessingFlag, e.intraSmoothingDisabledFlag,
                      e.highPrecisionOffsetsEnabledFlag, e.persistentRiceAdaptationEnabledFlag, e.cabacBypassAlignmentEnabledFlag] {
                w.flag(f)
            }
        }
        w.rbspTrailingBits()
    }

    /// The SPS as a NAL unit: 2-byte header + escaped RBSP, no start code.
    public func nalUnit() -> [UInt8] {
        var w = BitWriter()
        writeRBSP(&w)
        return h265NALUnit(type: .sps, rbsp: w.bytes)
    }
}

extension H265VUIParameters {
    /// vui_parameters() (E.2.1).
    func write(_ w: inout BitWriter, maxNumSubLayersMinus1: Int) {
        w.flag(aspectRatioInfoPresentFlag)
        if aspectRatioInfoPresentFlag {
            w.u(8, aspectRatioIdc)
            if aspectRatioIdc == 255 { w.u(16, sarWidth); w.u(16, sarHeight) }
        }
        w.flag(overscanInfoPresentFlag)
        if overscanInfoPresentFlag { w.flag(overscanAppropriateFlag) }
        w.flag(videoSignalTypePresentFlag)
        if videoSignalTypePresentFlag {
            w.u(3, videoFormat)
            w.flag(videoFullRangeFlag)
            w.flag(colourDescriptionPresentFlag)
            if colourDescriptionPresentFlag { w.u(8, colourPrimaries); w.u(8, transferCharacteristics); w.u(8, matrixCoefficients) }
        }
        w.flag(chromaLocInfoPresentFlag)
        if chromaLocInfoPresentFlag { w.ue(chromaSampleLocTypeTopField); w.ue(chromaSampleLocTypeBottomField) }
        w.flag(neutralChromaIndicationFlag)
        w.flag(fieldSeqFlag)
        w.flag(frameFieldInfoPresentFlag)
        w.flag(defaultDisplayWindowFlag)
        if defaultDisplayWindowFlag {
            w.ue(defaultDisplayWindow.left); w.ue(defaultDisplayWindow.right)
            w.ue(defaultDisplayWindow.top); w.ue(defaultDisplayWindow.bottom)
        }
        w.flag(timingInfoPresentFlag)
        if timingInfoPresentFlag {
            w.u(32, UInt32(truncatingIfNeeded: numUnitsInTick))
            w.u(32, UInt32(truncatingIfNeeded: timeScale))
            w.flag(pocProportionalToTimingFlag)
            if pocProportionalToTimingFlag { w.ue(numTicksPocDiffOneMinus1) }
            let hrdPresent = hrdParametersPresentFlag && hrd != nil
            w.flag(hrdPresent)
            if hrdPresent, let hrd { hrd.write(&w, commonInfPresent: true, maxNumSubLayersMinus1: maxNumSubLayersMinus1) }
        }
        w.flag(bitstreamRestrictionFlag)
        if bitstreamRestrictionFlag {
            w.flag(tilesFixedStructureFlag)
            w.flag(motionVectorsOverPicBoundariesFlag)
            w.flag(restrictedRefPicListsFlag)
            w.ue(minSpatialSegmentationIdc)
            w.ue(maxBytesPerPicDenom)
            w.ue(maxBitsPerMinCuDenom)
            w.ue(log2MaxMvLengthHorizontal)
            w.ue(log2MaxMvLengthVertical)
        }
    }
}
