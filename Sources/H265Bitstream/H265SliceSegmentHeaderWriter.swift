import NALStream

extension H265SliceSegmentHeader {
    /// The NAL unit header (7.3.1.2), then slice_segment_header() (7.3.6.1) with its byte_alignment()
    /// (7.3.2.12): the inverse of the parser, what a packed slice header holds. The slice data follows
    /// directly. Short-term sets of the slice's own are coded explicitly.
    public func write(_ w: inout BitWriter, sps: H265SequenceParameterSet, pps: H265PictureParameterSet) {
        for byte in H265NALUnitHeader(type: nalUnitType, temporalID: temporalID).bytes { w.u(8, Int(byte)) }
        w.flag(firstSliceSegmentInPicFlag)
        if nalUnitType.isIRAP { w.flag(noOutputOfPriorPicsFlag) }
        w.ue(picParameterSetId)
        if !firstSliceSegmentInPicFlag {
            if pps.dependentSliceSegmentsEnabledFlag { w.flag(dependentSliceSegmentFlag) }
            w.u(ceilLog2(sps.picSizeInCtbs), sliceSegmentAddress)
        }
        if !dependentSliceSegmentFlag { writeIndependentPart(&w, sps: sps, pps: pps) }
        if pps.tilesEnabledFlag || pps.entropyCodingSyncEnabledFlag {
            w.ue(numEntryPointOffsets)
            if numEntryPointOffsets > 0 {
                w.ue(offsetLenMinus1)
                for i in 0..<numEntryPointOffsets {
                    w.u(offsetLenMinus1 + 1, entryPointOffsetMinus1.indices.contains(i) ? entryPointOffsetMinus1[i] : 0)
                }
            }
        }
        if pps.sliceSegmentHeaderExtensionPresentFlag {
            w.ue(extensionLength)
            for _ in 0..<extensionLength { w.u(8, 0) }
        }
        w.u(1, 1)  // alignment_bit_equal_to_one
        w.alignWithZeros()
    }

    /// ``write(_:sps:pps:)`` into bytes: NAL unit header + slice segment header, unescaped, whole bytes.
    public func headerBytes(sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> [UInt8] {
        var w = BitWriter()
        write(&w, sps: sps, pps: pps)
        return w.bytes
    }

    private func writeIndependentPart(_ w: inout BitWriter, sps: H265SequenceParameterSet, pps: H265PictureParameterSet) {
        for _ in 0..<pps.numExtraSliceHeaderBits { w.flag(false) }
        w.ue(sliceType.rawValue)
        if pps.outputFlagPresentFlag { w.flag(picOutputFlag) }
        if sps.separateColourPlaneFlag { w.u(2, colourPlaneId) }
        if !nalUnitType.isIDR {
            w.u(sps.log2MaxPicOrderCntLsb, picOrderCntLsb)
            let count = sps.shortTermRefPicSets.count
            w.flag(shortTermRefPicSetSpsFlag)
            if !shortTermRefPicSetSpsFlag {
                shortTermRefPicSet.write(&w, index: count)
            } else if count > 1 {
                w.u(ceilLog2(count), shortTermRefPicSetIdx)
            }
            if sps.longTermRefPicsPresentFlag {
                let spsCount = sps.ltRefPicPocLsbSps.count
                if spsCount > 0 { w.ue(numLongTermSps) }
                w.ue(numLongTermPics)
                var previousCycle = 0
                for (i, entry) in longTermEntries.enumerated() {
                    if i < numLongTermSps {
                        let idx = (0..<spsCount).first {
                            sps.ltRefPicPocLsbSps[$0] == entry.pocLsbLt && sps.usedByCurrPicLtSpsFlag[$0] == entry.usedByCurrPicLt
                        } ?? 0
                        if spsCount > 1 { w.u(ceilLog2(spsCount), idx) }
                    } else {
                        w.u(sps.log2MaxPicOrderCntLsb, entry.pocLsbLt)
                        w.flag(entry.usedByCurrPicLt)
                    }
                    w.flag(entry.deltaPocMsbPresentFlag)
                    // (7-52) inverted: the accumulated cycle restarts at the first entry of each kind.
                    let base = (i == 0 || i == numLongTermSps) ? 0 : previousCycle
                    if entry.deltaPocMsbPresentFlag { w.ue(entry.deltaPocMsbCycleLt - base) }
                    previousCycle = entry.deltaPocMsbCycleLt
                }
            }
            if sps.temporalMvpEnabledFlag { w.flag(temporalMvpEnabledFlag) }
        }
        if sps.sampleAdaptiveOffsetEnabledFlag {
            w.flag(saoLumaFlag)
            if sps.chromaArrayType != 0 { w.flag(saoChromaFlag) }
        }
        if sliceType != .i {
            w.flag(numRefIdxActiveOverrideFlag)
            if numRefIdxActiveOverrideFlag {
                w.ue(numRefIdxL0ActiveMinus1)
                if sliceType == .b { w.ue(numRefIdxL1ActiveMinus1) }
            }
            let total = numPicTotalCurr
            if pps.listsModificationPresentFlag && total > 1 {
                let bits = ceilLog2(total)
                w.flag(refPicListModificationFlagL0)
                if refPicListModificationFlagL0 {
                    for i in 0...numRefIdxL0ActiveMinus1 { w.u(bits, listEntryL0.indices.contains(i) ? listEntryL0[i] : 0) }
                }
                if sliceType == .b {
                    w.flag(refPicListModificationFlagL1)
                    if refPicListModificationFlagL1 {
                        for i in 0...numRefIdxL1ActiveMinus1 { w.u(bits, listEntryL1.indices.contains(i) ? listEntryL1[i] : 0) }
                    }
                }
            }
            if sliceType == .b { w.flag(mvdL1ZeroFlag) }
            if pps.cabacInitPresentFlag { w.flag(cabacInitFlag) }
            if temporalMvpEnabledFlag {
                if sliceType == .b { w.flag(collocatedFromL0Flag) }
                let maxIdx = collocatedFromL0Flag ? numRefIdxL0ActiveMinus1 : numRefIdxL1ActiveMinus1
                if maxIdx > 0 { w.ue(collocatedRefIdx) }
            }
            if (pps.weightedPredFlag && sliceType == .p) || (pps.weightedBipredFlag && sliceType == .b) {
                (predWeightTable ?? H265PredWeightTable(slice: self)).write(&w, slice: self, sps: sps)
            }
            w.ue(fiveMinusMaxNumMergeCand)
        }
        w.se(qpDelta)
        if pps.sliceChromaQpOffsetsPresentFlag { w.se(cbQpOffset); w.se(crQpOffset) }
        if pps.chromaQpOffsetListEnabledFlag { w.flag(cuChromaQpOffsetEnabledFlag) }
        if pps.deblockingFilterOverrideEnabledFlag { w.flag(deblockingFilterOverrideFlag) }
        if deblockingFilterOverrideFlag {
            w.flag(deblockingFilterDisabledFlag)
            if !deblockingFilterDisabledFlag { w.se(betaOffsetDiv2); w.se(tcOffsetDiv2) }
        }
        if pps.loopFilterAcrossSlicesEnabledFlag && (saoLumaFlag || saoChromaFlag || !deblockingFilterDisabledFlag) {
            w.flag(loopFilterAcrossSlicesEnabledFlag)
        }
    }
}

extension H265PredWeightTable {
    /// Default weights (flags all 0) for the slice's active references.
    public init(slice: H265SliceSegmentHeader) {
        for list in 0..<(slice.sliceType == .b ? 2 : 1) {
            let count = (list == 0 ? slice.numRefIdxL0ActiveMinus1 : slice.numRefIdxL1ActiveMinus1) + 1
            lumaWeightFlag[list] = Array(repeating: false, count: count)
            chromaWeightFlag[list] = Array(repeating: false, count: count)
            lumaWeight[list] = Array(repeating: 1, count: count)
            lumaOffset[list] = Array(repeating: 0, count: count)
            chromaWeight[list] = Array(repeating: [1, 1], count: count)
            chromaOffset[list] = Array(repeating: [0, 0], count: count)
            deltaChromaOffset[list] = Array(repeating: [0, 0], count: count)
        }
    }

    /// pred_weight_table() (7.3.6.3), from the derived weights and the coded chroma offset deltas.
    func write(_ w: inout BitWriter, slice: H265SliceSegmentHeader, sps: H265SequenceParameterSet) {
        w.ue(lumaLog2WeightDenom)
        let chroma = sps.chromaArrayType != 0
        if chroma { w.se(chromaLog2WeightDenom - lumaLog2WeightDenom) }
        for list in 0..<(slice.sliceType == .b ? 2 : 1) {
            let count = (list == 0 ? slice.numRefIdxL0ActiveMinus1 : slice.numRefIdxL1ActiveMinus1) + 1
            func at<T>(_ a: [[T]], _ i: Int, _ fallback: T) -> T { a[list].indices.contains(i) ? a[list][i] : fallback }
            for i in 0..<count { w.flag(at(lumaWeightFlag, i, false)) }
            if chroma { for i in 0..<count { w.flag(at(chromaWeightFlag, i, false)) } }
            for i in 0..<count {
                if at(lumaWeightFlag, i, false) {
                    w.se(at(lumaWeight, i, 1 << lumaLog2WeightDenom) - (1 << lumaLog2WeightDenom))
                    w.se(at(lumaOffset, i, 0))
                }
                if chroma && at(chromaWeightFlag, i, false) {
                    let weights = at(chromaWeight, i, [1 << chromaLog2WeightDenom, 1 << chromaLog2WeightDenom])
                    let deltas = at(deltaChromaOffset, i, [0, 0])
                    for j in 0..<2 {
                        w.se(weights[j] - (1 << chromaLog2WeightDenom))
                        w.se(deltas[j])
                    }
                }
            }
        }
    }
}
