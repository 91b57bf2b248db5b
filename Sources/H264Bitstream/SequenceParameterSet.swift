/// seq_parameter_set_data() (7.3.2.1.1), every field, with VUI (E.1.1).
///
/// Field names are the spec's, in Swift case. Values are checked against the ranges of 7.4.2.1.1 where
/// a wrong value would make later arithmetic absurd (sizes, counts), so a damaged SPS fails here with the
/// bit position instead of later with a huge allocation.
public struct SequenceParameterSet: Hashable, Sendable {
    public var profileIdc: UInt8 = 66
    public var constraintSet0Flag = false
    public var constraintSet1Flag = false
    public var constraintSet2Flag = false
    public var constraintSet3Flag = false
    public var constraintSet4Flag = false
    public var constraintSet5Flag = false
    public var reservedZero2Bits: UInt8 = 0
    public var levelIdc: UInt8 = 30
    public var seqParameterSetId = 0

    // Present only for the High profiles (profile_idc 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135).
    public var chromaFormatIdc = 1
    public var separateColourPlaneFlag = false
    public var bitDepthLumaMinus8 = 0
    public var bitDepthChromaMinus8 = 0
    public var qpprimeYZeroTransformBypassFlag = false
    public var seqScalingMatrixPresentFlag = false
    /// Six 4x4 lists then two (or six, for 4:4:4) 8x8 lists, as coded.
    public var seqScalingLists: [CodedScalingList] = []

    public var log2MaxFrameNumMinus4 = 0
    public var picOrderCntType = 0
    public var log2MaxPicOrderCntLsbMinus4 = 0
    public var deltaPicOrderAlwaysZeroFlag = false
    public var offsetForNonRefPic = 0
    public var offsetForTopToBottomField = 0
    public var offsetForRefFrame: [Int] = []
    public var maxNumRefFrames = 1
    public var gapsInFrameNumValueAllowedFlag = false
    public var picWidthInMbsMinus1 = 0
    public var picHeightInMapUnitsMinus1 = 0
    public var frameMbsOnlyFlag = true
    public var mbAdaptiveFrameFieldFlag = false
    public var direct8x8InferenceFlag = true
    public var frameCroppingFlag = false
    public var frameCropLeftOffset = 0
    public var frameCropRightOffset = 0
    public var frameCropTopOffset = 0
    public var frameCropBottomOffset = 0
    public var vuiParametersPresentFlag = false
    public var vui = VUIParameters()

    public init() {}

    /// profile_idc values whose SPS carries chroma_format_idc and the rest (7.3.2.1.1).
    public static let highProfileIdcs: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]
    public var hasHighProfileFields: Bool { Self.highProfileIdcs.contains(profileIdc) }

    // MARK: Derived values (7.4.2.1.1)

    public var maxFrameNum: Int { 1 << (log2MaxFrameNumMinus4 + 4) }
    public var maxPicOrderCntLsb: Int { 1 << (log2MaxPicOrderCntLsbMinus4 + 4) }
    public var picWidthInMbs: Int { picWidthInMbsMinus1 + 1 }
    public var picHeightInMapUnits: Int { picHeightInMapUnitsMinus1 + 1 }
    public var frameHeightInMbs: Int { (2 - (frameMbsOnlyFlag ? 1 : 0)) * picHeightInMapUnits }
    public var codedWidth: Int { picWidthInMbs * 16 }
    public var codedHeight: Int { frameHeightInMbs * 16 }
    /// ChromaArrayType: 0 when colour planes are coded separately.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    public var bitDepthLuma: Int { bitDepthLumaMinus8 + 8 }
    public var bitDepthChroma: Int { bitDepthChromaMinus8 + 8 }

    /// CropUnitX and CropUnitY (equations 7-19 to 7-22).
    public var cropUnit: (x: Int, y: Int) {
        let frameMbsFactor = 2 - (frameMbsOnlyFlag ? 1 : 0)
        switch chromaArrayType {
        case 0: return (1, frameMbsFactor)
        case 1: return (2, 2 * frameMbsFactor)
        case 2: return (2, frameMbsFactor)
        default: return (1, frameMbsFactor)
        }
    }

    /// The frame cropping rectangle in luma samples (x, y, width, height).
    public var cropRectangle: (x: Int, y: Int, width: Int, height: Int) {
        guard frameCroppingFlag else { return (0, 0, codedWidth, codedHeight) }
        let unit = cropUnit
        let x = unit.x * frameCropLeftOffset
        let y = unit.y * frameCropTopOffset
        let width = codedWidth - unit.x * (frameCropLeftOffset + frameCropRightOffset)
        let height = codedHeight - unit.y * (frameCropTopOffset + frameCropBottomOffset)
        return (x, y, width, height)
    }

    /// Display width after cropping.
    public var displayWidth: Int { cropRectangle.width }
    /// Display height after cropping.
    public var displayHeight: Int { cropRectangle.height }

    /// The largest picture vtk accepts, in macroblocks per side (16384 samples / 16).
    public static let maxMbsPerSide = 1024

    // MARK: Parsing

    /// Parses an SPS NAL unit (header included, emulation prevention still in).
    public init(nalUnit: NALUnit) throws(BitstreamError) {
        guard nalUnit.type == .sequenceParameterSet else {
            throw .malformedNALUnit(byteOffset: nalUnit.offset, reason: "expected an SPS, found \(nalUnit.type)")
        }
        var r = BitReader(nalUnit.rbsp)
        try self.init(rbsp: &r)
    }

    /// seq_parameter_set_data() from a reader at its first bit.
    public init(rbsp r: inout BitReader) throws(BitstreamError) {
        profileIdc = UInt8(try r.u(8))
        constraintSet0Flag = try r.flag()
        constraintSet1Flag = try r.flag()
        constraintSet2Flag = try r.flag()
        constraintSet3Flag = try r.flag()
        constraintSet4Flag = try r.flag()
        constraintSet5Flag = try r.flag()
        reservedZero2Bits = UInt8(try r.u(2))
        levelIdc = UInt8(try r.u(8))
        seqParameterSetId = try r.ue(max: 31, "seq_parameter_set_id")
        if hasHighProfileFields {
            chromaFormatIdc = try r.ue(max: 3, "chroma_format_idc")
            if chromaFormatIdc == 3 { separateColourPlaneFlag = try r.flag() }
            bitDepthLumaMinus8 = try r.ue(max: 6, "bit_depth_luma_minus8")
            bitDepthChromaMinus8 = try r.ue(max: 6, "bit_depth_chroma_minus8")
            qpprimeYZeroTransformBypassFlag = try r.flag()
            seqScalingMatrixPresentFlag = try r.flag()
            if seqScalingMatrixPresentFlag {
                let count = chromaFormatIdc != 3 ? 8 : 12
                for i in 0..<count {
                    let present = try r.flag()
                    seqScalingLists.append(present ? try CodedScalingList.read(&r, size: i < 6 ? 16 : 64) : .notPresent)
                }
            }
        }
        log2MaxFrameNumMinus4 = try r.ue(max: 12, "log2_max_frame_num_minus4")
        picOrderCntType = try r.ue(max: 2, "pic_order_cnt_type")
        if picOrderCntType == 0 {
            log2MaxPicOrderCntLsbMinus4 = try r.ue(max: 12, "log2_max_pic_order_cnt_lsb_minus4")
        } else if picOrderCntType == 1 {
            deltaPicOrderAlwaysZeroFlag = try r.flag()
            offsetForNonRefPic = Int(try r.se())
            offsetForTopToBottomField = Int(try r.se())
            let cycle = try r.ue(max: 255, "num_ref_frames_in_pic_order_cnt_cycle")
            offsetForRefFrame.reserveCapacity(cycle)
            for _ in 0..<cycle { offsetForRefFrame.append(Int(try r.se())) }
        }
        maxNumRefFrames = try r.ue(max: 16, "max_num_ref_frames")
        gapsInFrameNumValueAllowedFlag = try r.flag()
        picWidthInMbsMinus1 = try r.ue(max: UInt32(Self.maxMbsPerSide - 1), "pic_width_in_mbs_minus1")
        picHeightInMapUnitsMinus1 = try r.ue(max: UInt32(Self.maxMbsPerSide - 1), "pic_height_in_map_units_minus1")
        frameMbsOnlyFlag = try r.flag()
        if !frameMbsOnlyFlag { mbAdaptiveFrameFieldFlag = try r.flag() }
        direct8x8InferenceFlag = try r.flag()
        frameCroppingFlag = try r.flag()
        if frameCroppingFlag {
            let cropStart = r.bitPosition
            frameCropLeftOffset = try r.ue(max: 8192, "frame_crop_left_offset")
            frameCropRightOffset = try r.ue(max: 8192, "frame_crop_right_offset")
            frameCropTopOffset = try r.ue(max: 8192, "frame_crop_top_offset")
            frameCropBottomOffset = try r.ue(max: 8192, "frame_crop_bottom_offset")
            let rect = cropRectangle
            guard rect.width > 0, rect.height > 0 else {
                throw .invalidValue(element: "frame cropping (leaves \(rect.width)x\(rect.height))", value: Int64(rect.width), bitOffset: cropStart)
            }
        }
        vuiParametersPresentFlag = try r.flag()
        if vuiParametersPresentFlag { vui = try VUIParameters(&r) }
    }

    // MARK: Writing

    /// The SPS as a NAL unit (header byte + EBSP).
    public func nalUnit(nalRefIdc: UInt8 = 3) -> NALUnit {
        var w = BitWriter()
        write(&w)
        w.rbspTrailingBits()
        return NALUnit([NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: .sequenceParameterSet).byte] + EmulationPrevention.insert(w.bytes))
    }

    /// Writes seq_parameter_set_data() (without trailing bits).
    public func write(_ w: inout BitWriter) {
        w.u(8, Int(profileIdc))
        w.flag(constraintSet0Flag); w.flag(constraintSet1Flag); w.flag(constraintSet2Flag)
        w.flag(constraintSet3Flag); w.flag(constraintSet4Flag); w.flag(constraintSet5Flag)
        w.u(2, Int(reservedZero2Bits))
        w.u(8, Int(levelIdc))
        w.ue(seqParameterSetId)
        if hasHighProfileFields {
            w.ue(chromaFormatIdc)
            if chromaFormatIdc == 3 { w.flag(separateColourPlaneFlag) }
            w.ue(bitDepthLumaMinus8)
            w.ue(bitDepthChromaMinus8)
            w.flag(qpprimeYZeroTransformBypassFlag)
            w.flag(seqScalingMatrixPresentFlag)
            if seqScalingMatrixPresentFlag {
                let count = chromaFormatIdc != 3 ? 8 : 12
                for i in 0..<count {
                    let list = i < seqScalingLists.count ? seqScalingLists[i] : .notPresent
                    w.flag(list != .notPresent)
                    list.write(&w, size: i < 6 ? 16 : 64)
                }
            }
        }
        w.ue(log2MaxFrameNumMinus4)
        w.ue(picOrderCntType)
        if picOrderCntType == 0 {
            w.ue(log2MaxPicOrderCntLsbMinus4)
        } else if picOrderCntType == 1 {
            w.flag(deltaPicOrderAlwaysZeroFlag)
            w.se(offsetForNonRefPic)
            w.se(offsetForTopToBottomField)
            w.ue(offsetForRefFrame.count)
            for offset in offsetForRefFrame { w.se(offset) }
        }
        w.ue(maxNumRefFrames)
        w.flag(gapsInFrameNumValueAllowedFlag)
        w.ue(picWidthInMbsMinus1)
        w.ue(picHeightInMapUnitsMinus1)
        w.flag(frameMbsOnlyFlag)
        if !frameMbsOnlyFlag { w.flag(mbAdaptiveFrameFieldFlag) }
        w.flag(direct8x8InferenceFlag)
        w.flag(frameCroppingFlag)
        if frameCroppingFlag {
            w.ue(frameCropLeftOffset); w.ue(frameCropRightOffset)
            w.ue(frameCropTopOffset); w.ue(frameCropBottomOffset)
        }
        w.flag(vuiParametersPresentFlag)
        if vuiParametersPresentFlag { vui.write(&w) }
    }
}
