/// slice_type (Table 7-6), folded to 0...4 (values 5...9 mean "all slices of the picture have this type").
public enum SliceType: Int, Hashable, Sendable, CustomStringConvertible {
    case p = 0, b = 1, i = 2, sp = 3, si = 4
    public var description: String { ["P", "B", "I", "SP", "SI"][rawValue] }
    public var isIntra: Bool { self == .i || self == .si }
}

/// One entry of ref_pic_list_modification() (7.3.3.1).
public struct RefPicListModification: Hashable, Sendable {
    public var modificationOfPicNumsIdc: Int
    /// abs_diff_pic_num_minus1 (idc 0, 1) or long_term_pic_num (idc 2).
    public var value: Int
    public init(modificationOfPicNumsIdc: Int, value: Int) {
        self.modificationOfPicNumsIdc = modificationOfPicNumsIdc
        self.value = value
    }
}

/// pred_weight_table() (7.3.3.2), with the defaults of 7.4.3.2 filled in for entries whose flag is 0.
public struct PredWeightTable: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var lumaWeightFlag = false
        public var lumaWeight = 0
        public var lumaOffset = 0
        public var chromaWeightFlag = false
        public var chromaWeight = [0, 0]
        public var chromaOffset = [0, 0]
        public init() {}
    }
    public var lumaLog2WeightDenom = 0
    public var chromaLog2WeightDenom = 0
    public var l0: [Entry] = []
    public var l1: [Entry] = []
    public init() {}
}

/// One memory_management_control_operation of dec_ref_pic_marking() (7.3.3.3).
public struct MemoryManagementControlOperation: Hashable, Sendable {
    public var operation: Int
    public var differenceOfPicNumsMinus1 = 0
    public var longTermPicNum = 0
    public var longTermFrameIdx = 0
    public var maxLongTermFrameIdxPlus1 = 0
    public init(operation: Int) { self.operation = operation }
}

/// dec_ref_pic_marking() (7.3.3.3).
public struct DecRefPicMarking: Hashable, Sendable {
    public var noOutputOfPriorPicsFlag = false
    public var longTermReferenceFlag = false
    public var adaptiveRefPicMarkingModeFlag = false
    public var operations: [MemoryManagementControlOperation] = []
    public init() {}
}

/// slice_header() (7.3.3), every field, plus where the header ends in the NAL unit.
public struct SliceHeader: Hashable, Sendable {
    public var nalUnitType: NALUnitType = .nonIDRSlice
    public var nalRefIdc: UInt8 = 0
    public var firstMbInSlice = 0
    /// slice_type as coded (0...9).
    public var sliceTypeRaw = 0
    public var picParameterSetId = 0
    public var colourPlaneId = 0
    public var frameNum = 0
    public var fieldPicFlag = false
    public var bottomFieldFlag = false
    public var idrPicId = 0
    public var picOrderCntLsb = 0
    public var deltaPicOrderCntBottom = 0
    public var deltaPicOrderCnt = [0, 0]
    public var redundantPicCnt = 0
    public var directSpatialMvPredFlag = false
    public var numRefIdxActiveOverrideFlag = false
    /// num_ref_idx_l0_active_minus1: from the slice when overridden, else the PPS default (7.4.3).
    public var numRefIdxL0ActiveMinus1 = 0
    public var numRefIdxL1ActiveMinus1 = 0
    public var refPicListModificationFlagL0 = false
    public var refPicListModificationL0: [RefPicListModification] = []
    public var refPicListModificationFlagL1 = false
    public var refPicListModificationL1: [RefPicListModification] = []
    /// Present when weighted prediction applies to this slice (explicit mode).
    public var predWeightTable: PredWeightTable?
    public var decRefPicMarking: DecRefPicMarking?
    public var cabacInitIdc = 0
    public var sliceQpDelta = 0
    public var spForSwitchFlag = false
    public var sliceQsDelta = 0
    public var disableDeblockingFilterIdc = 0
    public var sliceAlphaC0OffsetDiv2 = 0
    public var sliceBetaOffsetDiv2 = 0
    public var sliceGroupChangeCycle = 0

    /// Bits of slice_header() in the RBSP (NAL header byte not counted).
    public var headerBitLengthInRBSP = 0
    /// Where slice_data() starts; its ``SliceDataPosition/vaBitOffset`` is VA's slice_data_bit_offset.
    public var sliceDataPosition = SliceDataPosition(nalUnitHeaderBytes: 1, headerBitsInRBSP: 0, emulationPreventionBytesInHeader: 0)

    public init() {}

    public var sliceType: SliceType { SliceType(rawValue: sliceTypeRaw % 5) ?? .p }  // % 5 is always one of the five
    public var idrPicFlag: Bool { nalUnitType == .idrSlice }

    /// Parses the slice header of a coded slice NAL unit (type 1 or 5).
    ///
    /// Only the header is needed: a bounded prefix is unescaped (a slice header is at most a few hundred
    /// bytes; long modification lists or weight tables fit in 4 KiB with room). Most headers fit in the first
    /// 128 bytes, so those are tried first; a header that does not end well inside them is parsed again from
    /// 4 KiB, so the result (and any error) is the same as from 4 KiB alone.
    public init(nalUnit: NALUnit, parameterSets: ParameterSets) throws(BitstreamError) {
        self = try Self.parse(nalUnit, parameterSets, tryingFirst: Self.shortPrefix)
    }

    /// The payload bytes tried first, and how many RBSP bytes must follow the header's last in them: the byte
    /// after the prefix may be an emulation prevention byte that belongs before slice_data().
    static let shortPrefix = 128
    static let shortPrefixMargin = 4
    static let longPrefix = 4096

    /// Parses from the first `short` payload bytes, else (the header does not end well inside them, or does
    /// not parse) from ``longPrefix``: the result is the long parse's either way.
    static func parse(_ nalUnit: NALUnit, _ parameterSets: ParameterSets, tryingFirst short: Int) throws(BitstreamError) -> SliceHeader {
        var unescaped = 0
        if short < longPrefix, nalUnit.bytes.count > short + 1,
           let header = try? SliceHeader(nalUnit: nalUnit, parameterSets: parameterSets, prefix: short, unescaped: &unescaped),
           header.headerBitLengthInRBSP / 8 + shortPrefixMargin <= unescaped {
            return header
        }
        return try SliceHeader(nalUnit: nalUnit, parameterSets: parameterSets, prefix: longPrefix, unescaped: &unescaped)
    }

    /// Parses the header from the first `prefix` bytes of the payload; `unescaped` gets how many RBSP bytes they held.
    private init(nalUnit: NALUnit, parameterSets: ParameterSets, prefix: Int, unescaped: inout Int) throws(BitstreamError) {
        guard nalUnit.type.isSlice else {
            throw .malformedNALUnit(byteOffset: nalUnit.offset, reason: "expected a coded slice, found \(nalUnit.type)")
        }
        nalUnitType = nalUnit.type
        nalRefIdc = nalUnit.nalRefIdc
        let payload = nalUnit.bytes.dropFirst()
        let (rbsp, removed) = EmulationPrevention.unescaped(payload.prefix(prefix))
        unescaped = rbsp.count
        var r = BitReader(rbsp, reportingBase: 8 * (nalUnit.offset + 1))
        firstMbInSlice = try r.ue(max: 1 << 20, "first_mb_in_slice")
        sliceTypeRaw = try r.ue(max: 9, "slice_type")
        picParameterSetId = try r.ue(max: 255, "pic_parameter_set_id")
        guard let pps = parameterSets.pps[picParameterSetId] else {
            throw .missingParameterSet(kind: "PPS", id: picParameterSetId)
        }
        guard let sps = parameterSets.sps[pps.seqParameterSetId] else {
            throw .missingParameterSet(kind: "SPS", id: pps.seqParameterSetId)
        }
        let type = sliceType
        if sps.separateColourPlaneFlag { colourPlaneId = Int(try r.u(2)) }
        frameNum = Int(try r.u(sps.log2MaxFrameNumMinus4 + 4))
        if !sps.frameMbsOnlyFlag {
            fieldPicFlag = try r.flag()
            if fieldPicFlag { bottomFieldFlag = try r.flag() }
        }
        if idrPicFlag { idrPicId = try r.ue(max: 65535, "idr_pic_id") }
        if sps.picOrderCntType == 0 {
            picOrderCntLsb = Int(try r.u(sps.log2MaxPicOrderCntLsbMinus4 + 4))
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag { deltaPicOrderCntBottom = Int(try r.se()) }
        }
        if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            deltaPicOrderCnt[0] = Int(try r.se())
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag { deltaPicOrderCnt[1] = Int(try r.se()) }
        }
        if pps.redundantPicCntPresentFlag { redundantPicCnt = try r.ue(max: 127, "redundant_pic_cnt") }
        if type == .b { directSpatialMvPredFlag = try r.flag() }
        numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        if type == .p || type == .sp || type == .b {
            numRefIdxActiveOverrideFlag = try r.flag()
            if numRefIdxActiveOverrideFlag {
                numRefIdxL0ActiveMinus1 = try r.ue(max: 31, "num_ref_idx_l0_active_minus1")
                if type == .b { numRefIdxL1ActiveMinus1 = try r.ue(max: 31, "num_ref_idx_l1_active_minus1") }
            }
        }
        // ref_pic_list_modification() (7.3.3.1)
        if !type.isIntra {
            refPicListModificationFlagL0 = try r.flag()
            if refPicListModificationFlagL0 { refPicListModificationL0 = try Self.readModifications(&r) }
        }
        if type == .b {
            refPicListModificationFlagL1 = try r.flag()
            if refPicListModificationFlagL1 { refPicListModificationL1 = try Self.readModifications(&r) }
        }
        if (pps.weightedPredFlag && (type == .p || type == .sp)) || (pps.weightedBipredIdc == 1 && type == .b) {
            predWeightTable = try Self.readPredWeightTable(&r, sps: sps, type: type,
                                                           l0Count: numRefIdxL0ActiveMinus1 + 1, l1Count: numRefIdxL1ActiveMinus1 + 1)
        }
        if nalRefIdc != 0 { decRefPicMarking = try Self.readDecRefPicMarking(&r, idr: idrPicFlag) }
        if pps.entropyCodingModeFlag && !type.isIntra { cabacInitIdc = try r.ue(max: 2, "cabac_init_idc") }
        sliceQpDelta = try r.se(in: -87...77, "slice_qp_delta")
        if type == .sp || type == .si {
            if type == .sp { spForSwitchFlag = try r.flag() }
            sliceQsDelta = Int(try r.se())
        }
        if pps.deblockingFilterControlPresentFlag {
            disableDeblockingFilterIdc = try r.ue(max: 2, "disable_deblocking_filter_idc")
            if disableDeblockingFilterIdc != 1 {
                sliceAlphaC0OffsetDiv2 = try r.se(in: -6...6, "slice_alpha_c0_offset_div2")
                sliceBetaOffsetDiv2 = try r.se(in: -6...6, "slice_beta_offset_div2")
            }
        }
        if pps.numSliceGroupsMinus1 > 0 && (3...5).contains(pps.sliceGroupMapType) {
            let picSizeInMapUnits = sps.picWidthInMbs * sps.picHeightInMapUnits
            let rate = pps.sliceGroupChangeRateMinus1 + 1
            // 7.4.3: Ceil(Log2(PicSizeInMapUnits ÷ SliceGroupChangeRate + 1)) bits, where ÷ is exact division
            // (5.7), not integer division; that equals Ceil(Log2(Ceil(PicSizeInMapUnits ÷ SliceGroupChangeRate) + 1)).
            let bits = PictureParameterSet.ceilLog2((picSizeInMapUnits + rate - 1) / rate + 1)
            sliceGroupChangeCycle = Int(try r.u(bits))
        }
        headerBitLengthInRBSP = r.bitPosition
        sliceDataPosition = SliceDataPosition(nalUnitHeaderBytes: 1, headerBitsInRBSP: headerBitLengthInRBSP, removedPayloadOffsets: removed)
    }

    static func readModifications(_ r: inout BitReader) throws(BitstreamError) -> [RefPicListModification] {
        var list: [RefPicListModification] = []
        while true {
            let idc = try r.ue(max: 5, "modification_of_pic_nums_idc")
            if idc == 3 { return list }
            guard list.count < 33 else {
                throw .invalidValue(element: "ref_pic_list_modification count", value: Int64(list.count), bitOffset: r.reportingBase + r.bitPosition)
            }
            // idc 4 and 5 belong to MVC (ref_pic_list_mvc_modification); they carry abs_diff_view_idx_minus1.
            let value = Int(try r.ue())
            list.append(RefPicListModification(modificationOfPicNumsIdc: idc, value: value))
        }
    }

    static func readPredWeightTable(_ r: inout BitReader, sps: SequenceParameterSet, type: SliceType,
                                    l0Count: Int, l1Count: Int) throws(BitstreamError) -> PredWeightTable {
        var t = PredWeightTable()
        t.lumaLog2WeightDenom = try r.ue(max: 7, "luma_log2_weight_denom")
        if sps.chromaArrayType != 0 { t.chromaLog2WeightDenom = try r.ue(max: 7, "chroma_log2_weight_denom") }
        func readList(_ count: Int, _ r: inout BitReader) throws(BitstreamError) -> [PredWeightTable.Entry] {
            var entries: [PredWeightTable.Entry] = []
            for _ in 0..<count {
                var e = PredWeightTable.Entry()
                e.lumaWeight = 1 << t.lumaLog2WeightDenom  // 7.4.3.2 default
                e.lumaWeightFlag = try r.flag()
                if e.lumaWeightFlag {
                    e.lumaWeight = try r.se(in: -128...127, "luma_weight")
                    e.lumaOffset = try r.se(in: -128...127, "luma_offset")
                }
                if sps.chromaArrayType != 0 {
                    e.chromaWeight = [1 << t.chromaLog2WeightDenom, 1 << t.chromaLog2WeightDenom]
                    e.chromaWeightFlag = try r.flag()
                    if e.chromaWeightFlag {
                        for j in 0..<2 {
                            e.chromaWeight[j] = try r.se(in: -128...127, "chroma_weight")
                            e.chromaOffset[j] = try r.se(in: -128...127, "chroma_offset")
                        }
                    }
                }
                entries.append(e)
            }
            return entries
        }
        t.l0 = try readList(l0Count, &r)
        if type == .b { t.l1 = try readList(l1Count, &r) }
        return t
    }

    static func readDecRefPicMarking(_ r: inout BitReader, idr: Bool) throws(BitstreamError) -> DecRefPicMarking {
        var m = DecRefPicMarking()
        if idr {
            m.noOutputOfPriorPicsFlag = try r.flag()
            m.longTermReferenceFlag = try r.flag()
            return m
        }
        m.adaptiveRefPicMarkingModeFlag = try r.flag()
        guard m.adaptiveRefPicMarkingModeFlag else { return m }
        while true {
            let op = try r.ue(max: 6, "memory_management_control_operation")
            if op == 0 { return m }
            guard m.operations.count < 66 else {
                throw .invalidValue(element: "memory_management_control_operation count", value: Int64(m.operations.count), bitOffset: r.reportingBase + r.bitPosition)
            }
            var mmco = MemoryManagementControlOperation(operation: op)
            if op == 1 || op == 3 { mmco.differenceOfPicNumsMinus1 = Int(try r.ue()) }
            if op == 2 { mmco.longTermPicNum = Int(try r.ue()) }
            if op == 3 || op == 6 { mmco.longTermFrameIdx = try r.ue(max: 31, "long_term_frame_idx") }
            if op == 4 { mmco.maxLongTermFrameIdxPlus1 = try r.ue(max: 32, "max_long_term_frame_idx_plus1") }
            m.operations.append(mmco)
        }
    }
}
