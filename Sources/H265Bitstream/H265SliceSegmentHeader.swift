import NALStream

/// slice_type (7.4.7.1).
public enum H265SliceType: Int, Hashable, Sendable {
    case b = 0, p = 1, i = 2
}

/// slice_segment_header() (7.3.6.1). A dependent slice segment takes the fields after
/// slice_segment_address from the independent segment before it (7.4.7.1).
public struct H265SliceSegmentHeader: Hashable, Sendable {
    public var nalUnitType = H265NALUnitType.trailR
    public var temporalID = 0
    public var firstSliceSegmentInPicFlag = false
    public var noOutputOfPriorPicsFlag = false
    public var picParameterSetId = 0
    public var dependentSliceSegmentFlag = false
    public var sliceSegmentAddress = 0
    public var sliceType = H265SliceType.i
    public var picOutputFlag = true
    public var colourPlaneId = 0
    public var picOrderCntLsb = 0
    public var shortTermRefPicSetSpsFlag = false
    public var shortTermRefPicSetIdx = 0
    /// The short-term RPS in force: the SPS's chosen one, or the slice's own.
    public var shortTermRefPicSet = ShortTermReferencePictureSet()
    /// Bits of the slice's own st_ref_pic_set() (VA's st_rps_bits); 0 when it uses an SPS one.
    public var shortTermRefPicSetBits = 0
    public var numLongTermSps = 0
    public var numLongTermPics = 0
    /// The long-term entries, SPS-chosen first (PocLsbLt, UsedByCurrPicLt, DeltaPocMsbCycleLt of 7.4.7.1).
    public var longTermEntries: [LongTermEntry] = []
    public var temporalMvpEnabledFlag = false
    public var saoLumaFlag = false
    public var saoChromaFlag = false
    public var numRefIdxActiveOverrideFlag = false
    public var numRefIdxL0ActiveMinus1 = 0
    public var numRefIdxL1ActiveMinus1 = 0
    public var refPicListModificationFlagL0 = false
    public var listEntryL0: [Int] = []
    public var refPicListModificationFlagL1 = false
    public var listEntryL1: [Int] = []
    public var mvdL1ZeroFlag = false
    public var cabacInitFlag = false
    public var collocatedFromL0Flag = true
    public var collocatedRefIdx = 0
    public var predWeightTable: H265PredWeightTable?
    public var fiveMinusMaxNumMergeCand = 0
    public var qpDelta = 0
    public var cbQpOffset = 0
    public var crQpOffset = 0
    public var cuChromaQpOffsetEnabledFlag = false
    public var deblockingFilterOverrideFlag = false
    public var deblockingFilterDisabledFlag = false
    public var betaOffsetDiv2 = 0
    public var tcOffsetDiv2 = 0
    public var loopFilterAcrossSlicesEnabledFlag = false
    public var numEntryPointOffsets = 0
    public var offsetLenMinus1 = 0
    public var entryPointOffsetMinus1: [Int] = []
    public var extensionLength = 0
    /// Bytes from the NAL unit's first header byte to slice_data(), emulation prevention removed
    /// (VA's slice_data_byte_offset).
    public var sliceDataByteOffset = 0

    public struct LongTermEntry: Hashable, Sendable {
        public var pocLsbLt: Int
        public var usedByCurrPicLt: Bool
        public var deltaPocMsbPresentFlag: Bool
        /// DeltaPocMsbCycleLt (7-52): accumulated.
        public var deltaPocMsbCycleLt: Int
    }

    public init() {}

    public var isIntra: Bool { sliceType == .i }
    public var isIDR: Bool { nalUnitType.isIDR }

    /// NumPicTotalCurr (7-55).
    public var numPicTotalCurr: Int {
        shortTermRefPicSet.numUsedByCurr + longTermEntries.filter(\.usedByCurrPicLt).count
    }

    /// Reads the header of a slice segment NAL unit. `independent` is the header of the slice segment
    /// this one depends on (the last independent one of the picture), needed when it is dependent.
    public init(nalUnit: NALUnit, parameterSets: H265ParameterSets, independent: H265SliceSegmentHeader? = nil,
                trace: inout [SyntaxElement]?) throws(BitstreamError) {
        try nalUnit.checkH265Header()
        var r = SyntaxReader(nalUnit: nalUnit, tracing: trace != nil)
        defer { trace = r.trace }
        let header = nalUnit.h265Header
        nalUnitType = header.type
        temporalID = header.temporalID
        firstSliceSegmentInPicFlag = try r.flag("first_slice_segment_in_pic_flag")
        if nalUnitType.isIRAP { noOutputOfPriorPicsFlag = try r.flag("no_output_of_prior_pics_flag") }
        picParameterSetId = try r.ue("slice_pic_parameter_set_id", max: 63)
        guard let pps = parameterSets.pps[picParameterSetId] else { throw .missingParameterSet(kind: "PPS", id: picParameterSetId) }
        guard let sps = parameterSets.sps[pps.seqParameterSetId] else { throw .missingParameterSet(kind: "SPS", id: pps.seqParameterSetId) }
        if !firstSliceSegmentInPicFlag {
            if pps.dependentSliceSegmentsEnabledFlag { dependentSliceSegmentFlag = try r.flag("dependent_slice_segment_flag") }
            let at = r.position
            sliceSegmentAddress = try r.u(ceilLog2(sps.picSizeInCtbs), "slice_segment_address")
            guard sliceSegmentAddress < sps.picSizeInCtbs else {
                throw .invalidValue(element: "slice_segment_address", value: Int64(sliceSegmentAddress), bitOffset: at)
            }
        }
        if dependentSliceSegmentFlag {
            guard let independent else {
                throw .malformedNALUnit(byteOffset: nalUnit.offset, reason: "dependent slice segment without an independent one before it")
            }
            let (first, address, type) = (firstSliceSegmentInPicFlag, sliceSegmentAddress, nalUnitType)
            let noOutput = noOutputOfPriorPicsFlag
            self = independent
            firstSliceSegmentInPicFlag = first
            noOutputOfPriorPicsFlag = noOutput
            sliceSegmentAddress = address
            nalUnitType = type
            dependentSliceSegmentFlag = true
            numEntryPointOffsets = 0
            entryPointOffsetMinus1 = []
            offsetLenMinus1 = 0
            extensionLength = 0
        } else {
            try readIndependentPart(&r, sps: sps, pps: pps)
        }
        if pps.tilesEnabledFlag || pps.entropyCodingSyncEnabledFlag {
            let maxOffsets = pps.entropyCodingSyncEnabledFlag && pps.tilesEnabledFlag ? sps.picSizeInCtbs
                : pps.tilesEnabledFlag ? (pps.numTileColumnsMinus1 + 1) * (pps.numTileRowsMinus1 + 1) - 1 : sps.picHeightInCtbs - 1
            numEntryPointOffsets = try r.ue("num_entry_point_offsets", max: UInt32(maxOffsets))
            if numEntryPointOffsets > 0 {
                offsetLenMinus1 = try r.ue("offset_len_minus1", max: 31)
                for i in 0..<numEntryPointOffsets {
                    entryPointOffsetMinus1.append(try r.u(offsetLenMinus1 + 1, "entry_point_offset_minus1[\(i)]"))
                }
            }
        }
        if pps.sliceSegmentHeaderExtensionPresentFlag {
            extensionLength = try r.ue("slice_segment_header_extension_length", max: 256)
            for i in 0..<extensionLength { _ = try r.u(8, "slice_segment_header_extension_data_byte[\(i)]") }
        }
        // byte_alignment() (7.3.2.12): a one bit, then zeros to the byte boundary.
        let at = r.position
        guard try r.flag("alignment_bit_equal_to_one") else {
            throw .invalidValue(element: "alignment_bit_equal_to_one", value: 0, bitOffset: at)
        }
        while !r.bits.isByteAligned { _ = try r.flag("alignment_bit_equal_to_zero") }
        sliceDataByteOffset = 2 + r.position / 8
    }

    public init(nalUnit: NALUnit, parameterSets: H265ParameterSets, independent: H265SliceSegmentHeader? = nil) throws(BitstreamError) {
        var trace: [SyntaxElement]? = nil
        try self.init(nalUnit: nalUnit, parameterSets: parameterSets, independent: independent, trace: &trace)
    }

    private mutating func readIndependentPart(_ r: inout SyntaxReader, sps: H265SequenceParameterSet, pps: H265PictureParameterSet) throws(BitstreamError) {
        for i in 0..<pps.numExtraSliceHeaderBits { _ = try r.flag("slice_reserved_flag[\(i)]") }
        let typeAt = r.position
        guard let type = H265SliceType(rawValue: try r.ue("slice_type", max: 2)) else {
            throw .invalidValue(element: "slice_type", value: -1, bitOffset: typeAt)
        }
        sliceType = type
        if nalUnitType.isIRAP && sliceType != .i && sps.profileTierLevel.profile != 9 {
            throw .invalidValue(element: "slice_type of an IRAP picture", value: Int64(sliceType.rawValue), bitOffset: typeAt)
        }
        if pps.outputFlagPresentFlag { picOutputFlag = try r.flag("pic_output_flag") }
        if sps.separateColourPlaneFlag { colourPlaneId = try r.u(2, "colour_plane_id") }
        if !nalUnitType.isIDR {
            picOrderCntLsb = try r.u(sps.log2MaxPicOrderCntLsb, "slice_pic_order_cnt_lsb")
            shortTermRefPicSetSpsFlag = try r.flag("short_term_ref_pic_set_sps_flag")
            let count = sps.shortTermRefPicSets.count
            if !shortTermRefPicSetSpsFlag {
                let start = r.position
                shortTermRefPicSet = try ShortTermReferencePictureSet(&r, index: count, count: count, previous: sps.shortTermRefPicSets)
                shortTermRefPicSetBits = r.position - start
            } else {
                let at = r.position
                guard count > 0 else { throw .invalidValue(element: "short_term_ref_pic_set_sps_flag", value: 1, bitOffset: at - 1) }
                if count > 1 { shortTermRefPicSetIdx = try r.u(ceilLog2(count), "short_term_ref_pic_set_idx") }
                guard shortTermRefPicSetIdx < count else {
                    throw .invalidValue(element: "short_term_ref_pic_set_idx", value: Int64(shortTermRefPicSetIdx), bitOffset: at)
                }
                shortTermRefPicSet = sps.shortTermRefPicSets[shortTermRefPicSetIdx]
            }
            if sps.longTermRefPicsPresentFlag {
                let spsCount = sps.ltRefPicPocLsbSps.count
                if spsCount > 0 { numLongTermSps = try r.ue("num_long_term_sps", max: UInt32(spsCount)) }
                numLongTermPics = try r.ue("num_long_term_pics", max: UInt32(16 - numLongTermSps))
                var cycle = 0
                for i in 0..<(numLongTermSps + numLongTermPics) {
                    var lsb = 0, used = false
                    if i < numLongTermSps {
                        var idx = 0
                        if spsCount > 1 { idx = try r.u(ceilLog2(spsCount), "lt_idx_sps[\(i)]") }
                        guard idx < spsCount else { throw .invalidValue(element: "lt_idx_sps", value: Int64(idx), bitOffset: r.position) }
                        lsb = sps.ltRefPicPocLsbSps[idx]
                        used = sps.usedByCurrPicLtSpsFlag[idx]
                    } else {
                        lsb = try r.u(sps.log2MaxPicOrderCntLsb, "poc_lsb_lt[\(i)]")
                        used = try r.flag("used_by_curr_pic_lt_flag[\(i)]")
                    }
                    let present = try r.flag("delta_poc_msb_present_flag[\(i)]")
                    var delta = 0
                    if present { delta = try r.ue("delta_poc_msb_cycle_lt[\(i)]", max: 1 << 24) }
                    // (7-52): accumulated, except at the first entry of each kind.
                    cycle = (i == 0 || i == numLongTermSps) ? delta : delta + cycle
                    longTermEntries.append(LongTermEntry(pocLsbLt: lsb, usedByCurrPicLt: used, deltaPocMsbPresentFlag: present,
                                                         deltaPocMsbCycleLt: cycle))
                }
            }
            if sps.temporalMvpEnabledFlag { temporalMvpEnabledFlag = try r.flag("slice_temporal_mvp_enabled_flag") }
        }
        if sps.sampleAdaptiveOffsetEnabledFlag {
            saoLumaFlag = try r.flag("slice_sao_luma_flag")
            if sps.chromaArrayType != 0 { saoChromaFlag = try r.flag("slice_sao_chroma_flag") }
        }
        numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        if sliceType != .i {
            numRefIdxActiveOverrideFlag = try r.flag("num_ref_idx_active_override_flag")
            if numRefIdxActiveOverrideFlag {
                numRefIdxL0ActiveMinus1 = try r.ue("num_ref_idx_l0_active_minus1", max: 14)
                if sliceType == .b { numRefIdxL1ActiveMinus1 = try r.ue("num_ref_idx_l1_active_minus1", max: 14) }
            }
            let total = numPicTotalCurr
            guard total > 0 else { throw .invalidValue(element: "NumPicTotalCurr of a P or B slice", value: 0, bitOffset: r.position) }
            if pps.listsModificationPresentFlag && total > 1 {
                let bits = ceilLog2(total)
                refPicListModificationFlagL0 = try r.flag("ref_pic_list_modification_flag_l0")
                if refPicListModificationFlagL0 {
                    for i in 0...numRefIdxL0ActiveMinus1 { listEntryL0.append(try checkedEntry(&r, bits, total, "list_entry_l0[\(i)]")) }
                }
                if sliceType == .b {
                    refPicListModificationFlagL1 = try r.flag("ref_pic_list_modification_flag_l1")
                    if refPicListModificationFlagL1 {
                        for i in 0...numRefIdxL1ActiveMinus1 { listEntryL1.append(try checkedEntry(&r, bits, total, "list_entry_l1[\(i)]")) }
                    }
                }
            }
            if sliceType == .b { mvdL1ZeroFlag = try r.flag("mvd_l1_zero_flag") }
            if pps.cabacInitPresentFlag { cabacInitFlag = try r.flag("cabac_init_flag") }
            if temporalMvpEnabledFlag {
                if sliceType == .b { collocatedFromL0Flag = try r.flag("collocated_from_l0_flag") }
                let maxIdx = collocatedFromL0Flag ? numRefIdxL0ActiveMinus1 : numRefIdxL1ActiveMinus1
                if maxIdx > 0 { collocatedRefIdx = try r.ue("collocated_ref_idx", max: UInt32(maxIdx)) }
            }
            if (pps.weightedPredFlag && sliceType == .p) || (pps.weightedBipredFlag && sliceType == .b) {
                predWeightTable = try H265PredWeightTable(&r, slice: self, sps: sps)
            }
            fiveMinusMaxNumMergeCand = try r.ue("five_minus_max_num_merge_cand", max: 4)
        }
        qpDelta = try r.se("slice_qp_delta", in: Int32(-(26 + pps.initQpMinus26 + 6 * sps.bitDepthLumaMinus8))...Int32(25 - pps.initQpMinus26))
        if pps.sliceChromaQpOffsetsPresentFlag {
            cbQpOffset = try r.se("slice_cb_qp_offset", in: -12...12)
            crQpOffset = try r.se("slice_cr_qp_offset", in: -12...12)
        }
        if pps.chromaQpOffsetListEnabledFlag { cuChromaQpOffsetEnabledFlag = try r.flag("cu_chroma_qp_offset_enabled_flag") }
        if pps.deblockingFilterOverrideEnabledFlag { deblockingFilterOverrideFlag = try r.flag("deblocking_filter_override_flag") }
        deblockingFilterDisabledFlag = pps.deblockingFilterDisabledFlag
        betaOffsetDiv2 = pps.betaOffsetDiv2
        tcOffsetDiv2 = pps.tcOffsetDiv2
        if deblockingFilterOverrideFlag {
            deblockingFilterDisabledFlag = try r.flag("slice_deblocking_filter_disabled_flag")
            if !deblockingFilterDisabledFlag {
                betaOffsetDiv2 = try r.se("slice_beta_offset_div2", in: -6...6)
                tcOffsetDiv2 = try r.se("slice_tc_offset_div2", in: -6...6)
            }
        }
        loopFilterAcrossSlicesEnabledFlag = pps.loopFilterAcrossSlicesEnabledFlag
        if pps.loopFilterAcrossSlicesEnabledFlag && (saoLumaFlag || saoChromaFlag || !deblockingFilterDisabledFlag) {
            loopFilterAcrossSlicesEnabledFlag = try r.flag("slice_loop_filter_across_slices_enabled_flag")
        }
    }

    private func checkedEntry(_ r: inout SyntaxReader, _ bits: Int, _ total: Int, _ name: String) throws(BitstreamError) -> Int {
        let at = r.position
        let value = try r.u(bits, name)
        guard value < total else { throw .invalidValue(element: name, value: Int64(value), bitOffset: at) }
        return value
    }
}

/// pred_weight_table() (7.3.6.3) with the derived weights and offsets (7.4.7.3).
public struct H265PredWeightTable: Hashable, Sendable {
    public var lumaLog2WeightDenom = 0
    public var chromaLog2WeightDenom = 0
    /// Per list (0, 1), per reference index.
    public var lumaWeight: [[Int]] = [[], []]
    public var lumaOffset: [[Int]] = [[], []]
    public var lumaWeightFlag: [[Bool]] = [[], []]
    public var chromaWeightFlag: [[Bool]] = [[], []]
    /// [list][refIdx][Cb, Cr]
    public var chromaWeight: [[[Int]]] = [[], []]
    public var chromaOffset: [[[Int]]] = [[], []]
    /// delta_chroma_offset_lX as coded (VA wants the derived ChromaOffset; kept for the trace).
    public var deltaChromaOffset: [[[Int]]] = [[], []]

    public init(_ r: inout SyntaxReader, slice: H265SliceSegmentHeader, sps: H265SequenceParameterSet) throws(BitstreamError) {
        lumaLog2WeightDenom = try r.ue("luma_log2_weight_denom", max: 7)
        let chroma = sps.chromaArrayType != 0
        chromaLog2WeightDenom = lumaLog2WeightDenom
        if chroma {
            chromaLog2WeightDenom += try r.se("delta_chroma_log2_weight_denom", in: Int32(-lumaLog2WeightDenom)...Int32(7 - lumaLog2WeightDenom))
        }
        let high = sps.rangeExtension.highPrecisionOffsetsEnabledFlag
        let offsetRange = Int32(high ? 1 << (sps.bitDepthLuma - 1) : 128)
        let halfC = high ? 1 << (sps.bitDepthChroma - 1) : 128
        for list in 0..<(slice.sliceType == .b ? 2 : 1) {
            let count = (list == 0 ? slice.numRefIdxL0ActiveMinus1 : slice.numRefIdxL1ActiveMinus1) + 1
            let l = list == 0 ? "l0" : "l1"
            for i in 0..<count { lumaWeightFlag[list].append(try r.flag("luma_weight_\(l)_flag[\(i)]")) }
            for i in 0..<count { chromaWeightFlag[list].append(chroma ? try r.flag("chroma_weight_\(l)_flag[\(i)]") : false) }
            for i in 0..<count {
                var weight = 1 << lumaLog2WeightDenom, offset = 0
                if lumaWeightFlag[list][i] {
                    weight += try r.se("delta_luma_weight_\(l)[\(i)]", in: -128...127)
                    offset = try r.se("luma_offset_\(l)[\(i)]", in: -offsetRange...(offsetRange - 1))
                }
                lumaWeight[list].append(weight)
                lumaOffset[list].append(offset)
                var weights = [1 << chromaLog2WeightDenom, 1 << chromaLog2WeightDenom], offsets = [0, 0], deltas = [0, 0]
                if chromaWeightFlag[list][i] {
                    for j in 0..<2 {
                        weights[j] += try r.se("delta_chroma_weight_\(l)[\(i)][\(j)]", in: -128...127)
                        let delta = try r.se("delta_chroma_offset_\(l)[\(i)][\(j)]", in: Int32(-4 * halfC)...Int32(4 * halfC - 1))
                        deltas[j] = delta
                        // (7-56)
                        offsets[j] = min(max(halfC - ((halfC * weights[j]) >> chromaLog2WeightDenom) + delta, -halfC), halfC - 1)
                    }
                }
                chromaWeight[list].append(weights)
                chromaOffset[list].append(offsets)
                deltaChromaOffset[list].append(deltas)
            }
        }
    }
}
