/// pic_parameter_set_rbsp() (7.3.2.2), every field.
public struct PictureParameterSet: Hashable, Sendable {
    public var picParameterSetId = 0
    public var seqParameterSetId = 0
    public var entropyCodingModeFlag = false
    public var bottomFieldPicOrderInFramePresentFlag = false
    public var numSliceGroupsMinus1 = 0
    public var sliceGroupMapType = 0
    public var runLengthMinus1: [Int] = []
    public var topLeft: [Int] = []
    public var bottomRight: [Int] = []
    public var sliceGroupChangeDirectionFlag = false
    public var sliceGroupChangeRateMinus1 = 0
    public var picSizeInMapUnitsMinus1 = 0
    public var sliceGroupId: [Int] = []
    public var numRefIdxL0DefaultActiveMinus1 = 0
    public var numRefIdxL1DefaultActiveMinus1 = 0
    public var weightedPredFlag = false
    public var weightedBipredIdc = 0
    public var picInitQpMinus26 = 0
    public var picInitQsMinus26 = 0
    public var chromaQpIndexOffset = 0
    public var deblockingFilterControlPresentFlag = false
    public var constrainedIntraPredFlag = false
    public var redundantPicCntPresentFlag = false
    /// True when the optional High-profile tail (transform_8x8_mode_flag onwards) is present.
    public var hasHighProfileTail = false
    public var transform8x8ModeFlag = false
    public var picScalingMatrixPresentFlag = false
    /// Six 4x4 lists then 2 (or 6 for 4:4:4) 8x8 lists when transform_8x8_mode_flag, as coded.
    public var picScalingLists: [CodedScalingList] = []
    /// Equals chroma_qp_index_offset when the tail is absent (7.4.2.2).
    public var secondChromaQpIndexOffset = 0

    public init() {}

    /// Parses a PPS NAL unit. `sequenceParameterSet` resolves seq_parameter_set_id; it is needed for
    /// chroma_format_idc (how many 8x8 scaling lists follow).
    public init(nalUnit: NALUnit, sequenceParameterSet: (Int) -> SequenceParameterSet?) throws(BitstreamError) {
        guard nalUnit.type == .pictureParameterSet else {
            throw .malformedNALUnit(byteOffset: nalUnit.offset, reason: "expected a PPS, found \(nalUnit.type)")
        }
        var r = BitReader(nalUnit.rbsp)
        picParameterSetId = try r.ue(max: 255, "pic_parameter_set_id")
        seqParameterSetId = try r.ue(max: 31, "seq_parameter_set_id")
        guard let sps = sequenceParameterSet(seqParameterSetId) else {
            throw .missingParameterSet(kind: "SPS", id: seqParameterSetId)
        }
        entropyCodingModeFlag = try r.flag()
        bottomFieldPicOrderInFramePresentFlag = try r.flag()
        numSliceGroupsMinus1 = try r.ue(max: 7, "num_slice_groups_minus1")
        if numSliceGroupsMinus1 > 0 {
            sliceGroupMapType = try r.ue(max: 6, "slice_group_map_type")
            let picSizeInMapUnits = sps.picWidthInMbs * sps.picHeightInMapUnits
            switch sliceGroupMapType {
            case 0:
                for _ in 0...numSliceGroupsMinus1 {
                    runLengthMinus1.append(try r.ue(max: UInt32(picSizeInMapUnits - 1), "run_length_minus1"))
                }
            case 2:
                for _ in 0..<numSliceGroupsMinus1 {
                    topLeft.append(try r.ue(max: UInt32(picSizeInMapUnits - 1), "top_left"))
                    bottomRight.append(try r.ue(max: UInt32(picSizeInMapUnits - 1), "bottom_right"))
                }
            case 3, 4, 5:
                sliceGroupChangeDirectionFlag = try r.flag()
                sliceGroupChangeRateMinus1 = try r.ue(max: UInt32(picSizeInMapUnits - 1), "slice_group_change_rate_minus1")
            case 6:
                picSizeInMapUnitsMinus1 = try r.ue(max: UInt32(picSizeInMapUnits - 1), "pic_size_in_map_units_minus1")
                let bits = Self.ceilLog2(numSliceGroupsMinus1 + 1)
                sliceGroupId.reserveCapacity(picSizeInMapUnitsMinus1 + 1)
                for _ in 0...picSizeInMapUnitsMinus1 { sliceGroupId.append(Int(try r.u(bits))) }
            default:
                break
            }
        }
        numRefIdxL0DefaultActiveMinus1 = try r.ue(max: 31, "num_ref_idx_l0_default_active_minus1")
        numRefIdxL1DefaultActiveMinus1 = try r.ue(max: 31, "num_ref_idx_l1_default_active_minus1")
        weightedPredFlag = try r.flag()
        weightedBipredIdc = Int(try r.u(2))
        picInitQpMinus26 = try r.se(in: -(26 + 6 * Int32(sps.bitDepthLumaMinus8))...25, "pic_init_qp_minus26")
        picInitQsMinus26 = try r.se(in: -26...25, "pic_init_qs_minus26")
        chromaQpIndexOffset = try r.se(in: -12...12, "chroma_qp_index_offset")
        deblockingFilterControlPresentFlag = try r.flag()
        constrainedIntraPredFlag = try r.flag()
        redundantPicCntPresentFlag = try r.flag()
        secondChromaQpIndexOffset = chromaQpIndexOffset
        if r.moreRBSPData() {
            hasHighProfileTail = true
            transform8x8ModeFlag = try r.flag()
            picScalingMatrixPresentFlag = try r.flag()
            if picScalingMatrixPresentFlag {
                let count = 6 + (sps.chromaFormatIdc != 3 ? 2 : 6) * (transform8x8ModeFlag ? 1 : 0)
                for i in 0..<count {
                    let present = try r.flag()
                    picScalingLists.append(present ? try CodedScalingList.read(&r, size: i < 6 ? 16 : 64) : .notPresent)
                }
            }
            secondChromaQpIndexOffset = try r.se(in: -12...12, "second_chroma_qp_index_offset")
        }
    }

    /// Ceil(Log2(n)) for n >= 1.
    static func ceilLog2(_ n: Int) -> Int {
        var bits = 0
        while (1 << bits) < n { bits += 1 }
        return bits
    }

    /// The PPS as a NAL unit. `sps` gives chroma_format_idc for the 8x8 list count.
    public func nalUnit(sps: SequenceParameterSet, nalRefIdc: UInt8 = 3) -> NALUnit {
        var w = BitWriter()
        w.ue(picParameterSetId)
        w.ue(seqParameterSetId)
        w.flag(entropyCodingModeFlag)
        w.flag(bottomFieldPicOrderInFramePresentFlag)
        w.ue(numSliceGroupsMinus1)
        if numSliceGroupsMinus1 > 0 {
            w.ue(sliceGroupMapType)
            switch sliceGroupMapType {
            case 0: for v in runLengthMinus1 { w.ue(v) }
            case 2: for (a, b) in zip(topLeft, bottomRight) { w.ue(a); w.ue(b) }
            case 3, 4, 5: w.flag(sliceGroupChangeDirectionFlag); w.ue(sliceGroupChangeRateMinus1)
            case 6:
                w.ue(picSizeInMapUnitsMinus1)
                let bits = Self.ceilLog2(numSliceGroupsMinus1 + 1)
                for id in sliceGroupId { w.u(bits, id) }
            default: break
            }
        }
        w.ue(numRefIdxL0DefaultActiveMinus1)
        w.ue(numRefIdxL1DefaultActiveMinus1)
        w.flag(weightedPredFlag)
        w.u(2, weightedBipredIdc)
        w.se(picInitQpMinus26)
        w.se(picInitQsMinus26)
        w.se(chromaQpIndexOffset)
        w.flag(deblockingFilterControlPresentFlag)
        w.flag(constrainedIntraPredFlag)
        w.flag(redundantPicCntPresentFlag)
        if hasHighProfileTail {
            w.flag(transform8x8ModeFlag)
            w.flag(picScalingMatrixPresentFlag)
            if picScalingMatrixPresentFlag {
                let count = 6 + (sps.chromaFormatIdc != 3 ? 2 : 6) * (transform8x8ModeFlag ? 1 : 0)
                for i in 0..<count {
                    let list = i < picScalingLists.count ? picScalingLists[i] : .notPresent
                    w.flag(list != .notPresent)
                    list.write(&w, size: i < 6 ? 16 : 64)
                }
            }
            w.se(secondChromaQpIndexOffset)
        }
        w.rbspTrailingBits()
        return NALUnit([NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: .pictureParameterSet).byte] + EmulationPrevention.insert(w.bytes))
    }
}
