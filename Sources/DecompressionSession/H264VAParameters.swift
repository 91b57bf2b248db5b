import CLibVA
import H264Bitstream
import H264Decoding
import VideoAcceleration
import VideoDecoding

/// Fills VA-API's H.264 decode parameter buffers (va.h: VAPictureParameterBufferH264, VAIQMatrixBufferH264,
/// VASliceParameterBufferH264) from the decoding process's request. Pure: no VA calls.
///
/// `surface` maps a picture to the surface that holds it; pictures without one (non-existing frames made for
/// a frame_num gap) are passed as invalid entries.
enum H264VAParameters {
    static let invalidPicture: VAPictureH264 = {
        var p = VAPictureH264()
        p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
        p.flags = UInt32(VA_PICTURE_H264_INVALID)
        return p
    }()

    /// A picture as VA describes it: frame_idx is FrameNum for short-term and LongTermFrameIdx for
    /// long-term references.
    static func vaPicture(_ picture: DecodedPicture, surface: VASurfaceID?, flags: UInt32) -> VAPictureH264 {
        guard let surface else { return invalidPicture }
        var p = VAPictureH264()
        p.picture_id = surface
        p.frame_idx = UInt32(picture.hasLongTermField ? picture.longTermFrameIdx : picture.frameNum)
        p.flags = flags
        p.TopFieldOrderCnt = Int32(picture.topFieldOrderCnt)
        p.BottomFieldOrderCnt = Int32(picture.bottomFieldOrderCnt)
        return p
    }

    /// The flags of a reference list entry: a frame's marking, or in a field picture the field's parity and
    /// marking.
    static func referenceFlags(_ picture: DecodedPicture) -> UInt32 {
        fieldFlag(picture.structure) | markingFlag(picture.reference(of: picture.structure))
    }

    /// The flags of a ReferenceFrames entry (a frame store): a field flag when only one of its fields is
    /// a reference, none when both are; long-term when a field is long-term (as FFmpeg's vaapi_h264 does).
    static func storeFlags(_ store: DecodedPicture) -> UInt32 {
        let top = store.reference(of: .topField) != .unused, bottom = store.reference(of: .bottomField) != .unused
        let field: PictureStructure = top && bottom ? .frame : (top ? .topField : .bottomField)
        return fieldFlag(field) | markingFlag(store.hasLongTermField ? .longTerm : .shortTerm)
    }

    static func fieldFlag(_ structure: PictureStructure) -> UInt32 {
        switch structure {
        case .frame: return 0
        case .topField: return UInt32(VA_PICTURE_H264_TOP_FIELD)
        case .bottomField: return UInt32(VA_PICTURE_H264_BOTTOM_FIELD)
        }
    }

    static func markingFlag(_ marking: ReferenceMarking) -> UInt32 {
        switch marking {
        case .shortTerm: return UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
        case .longTerm: return UInt32(VA_PICTURE_H264_LONG_TERM_REFERENCE)
        case .unused: return 0
        }
    }

    static func pictureParameters(_ request: PictureDecodeRequest, surface: (PictureID) -> VASurfaceID?) -> VAPictureParameterBufferH264 {
        let sps = request.sps, pps = request.pps
        var pp = VAPictureParameterBufferH264()
        // The current picture: a reference (short-term until marking says otherwise) when nal_ref_idc != 0;
        // a field carries its parity. Its field order counts are those known so far (0 for a field not yet
        // decoded: the first field's store holds 0 for the other).
        let current = request.picture.nalRefIdc != 0 ? UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE) : 0
        pp.CurrPic = vaPicture(request.picture, surface: surface(request.picture.id), flags: fieldFlag(request.structure) | current)
        pp.CurrPic.frame_idx = UInt32(request.frameNum)
        // Frame stores with a reference field (for a second field, its first field's store too): short-term
        // ones most recent first, then long-term ones by LongTermFrameIdx; the rest invalid.
        let shortTerm = request.referenceFrames.filter { !$0.hasLongTermField }.sorted { $0.decodeIndex > $1.decodeIndex }
        let longTerm = request.referenceFrames.filter(\.hasLongTermField).sorted { $0.longTermFrameIdx < $1.longTermFrameIdx }
        let references = (shortTerm + longTerm).compactMap { picture -> VAPictureH264? in
            guard let id = surface(picture.id) else { return nil }
            return vaPicture(picture, surface: id, flags: storeFlags(picture))
        }
        VAFixedArray.store(references, into: &pp.ReferenceFrames, padding: invalidPicture)
        pp.picture_width_in_mbs_minus1 = UInt16(sps.picWidthInMbsMinus1)
        pp.picture_height_in_mbs_minus1 = UInt16(sps.frameHeightInMbs - 1)
        pp.bit_depth_luma_minus8 = UInt8(sps.bitDepthLumaMinus8)
        pp.bit_depth_chroma_minus8 = UInt8(sps.bitDepthChromaMinus8)
        pp.num_ref_frames = UInt8(sps.maxNumRefFrames)
        pp.seq_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        pp.seq_fields.bits.residual_colour_transform_flag = sps.separateColourPlaneFlag ? 1 : 0
        pp.seq_fields.bits.gaps_in_frame_num_value_allowed_flag = sps.gapsInFrameNumValueAllowedFlag ? 1 : 0
        pp.seq_fields.bits.frame_mbs_only_flag = sps.frameMbsOnlyFlag ? 1 : 0
        pp.seq_fields.bits.mb_adaptive_frame_field_flag = sps.mbAdaptiveFrameFieldFlag ? 1 : 0
        pp.seq_fields.bits.direct_8x8_inference_flag = sps.direct8x8InferenceFlag ? 1 : 0
        pp.seq_fields.bits.MinLumaBiPredSize8x8 = sps.levelIdc >= 31 ? 1 : 0  // A.3.3.2, Table A-4
        pp.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(sps.log2MaxFrameNumMinus4)
        pp.seq_fields.bits.pic_order_cnt_type = UInt32(sps.picOrderCntType)
        pp.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(sps.log2MaxPicOrderCntLsbMinus4)
        pp.seq_fields.bits.delta_pic_order_always_zero_flag = sps.deltaPicOrderAlwaysZeroFlag ? 1 : 0
        pp.num_slice_groups_minus1 = UInt8(pps.numSliceGroupsMinus1)
        pp.slice_group_map_type = UInt8(pps.sliceGroupMapType)
        pp.slice_group_change_rate_minus1 = UInt16(pps.sliceGroupChangeRateMinus1)
        pp.pic_init_qp_minus26 = Int8(pps.picInitQpMinus26)
        pp.pic_init_qs_minus26 = Int8(pps.picInitQsMinus26)
        pp.chroma_qp_index_offset = Int8(pps.chromaQpIndexOffset)
        pp.second_chroma_qp_index_offset = Int8(pps.secondChromaQpIndexOffset)
        pp.pic_fields.bits.entropy_coding_mode_flag = pps.entropyCodingModeFlag ? 1 : 0
        pp.pic_fields.bits.weighted_pred_flag = pps.weightedPredFlag ? 1 : 0
        pp.pic_fields.bits.weighted_bipred_idc = UInt32(pps.weightedBipredIdc)
        pp.pic_fields.bits.transform_8x8_mode_flag = pps.transform8x8ModeFlag ? 1 : 0
        pp.pic_fields.bits.field_pic_flag = request.structure.isField ? 1 : 0
        pp.pic_fields.bits.constrained_intra_pred_flag = pps.constrainedIntraPredFlag ? 1 : 0
        pp.pic_fields.bits.pic_order_present_flag = pps.bottomFieldPicOrderInFramePresentFlag ? 1 : 0
        pp.pic_fields.bits.deblocking_filter_control_present_flag = pps.deblockingFilterControlPresentFlag ? 1 : 0
        pp.pic_fields.bits.redundant_pic_cnt_present_flag = pps.redundantPicCntPresentFlag ? 1 : 0
        pp.pic_fields.bits.reference_pic_flag = request.picture.nalRefIdc != 0 ? 1 : 0
        pp.frame_num = UInt16(request.frameNum)
        return pp
    }

    /// The scaling matrices after the fall-back rules, in raster order as va.h documents.
    static func iqMatrix(sps: SequenceParameterSet, pps: PictureParameterSet) -> VAIQMatrixBufferH264 {
        // Most streams code no matrix: the flat one, built once, rather than resolved and scanned per picture.
        if !sps.seqScalingMatrixPresentFlag && !pps.picScalingMatrixPresentFlag { return flatIQMatrix }
        return iqMatrix(ScalingMatrices(sps: sps, pps: pps))
    }

    /// The buffer of Flat_4x4_16 and Flat_8x8_16 (7.4.2.1.1): what a stream without scaling matrices gets.
    static let flatIQMatrix = iqMatrix(.flat)

    static func iqMatrix(_ matrices: ScalingMatrices) -> VAIQMatrixBufferH264 {
        var iq = VAIQMatrixBufferH264()
        // Each zig-zag list straight into its raster places (Tables 8-12, 8-13), with no array per list.
        withUnsafeMutableBytes(of: &iq.ScalingList4x4) { raw in
            for i in 0..<6 {
                let list = matrices.list4x4[i]
                for j in 0..<16 { raw[i * 16 + ScalingMatrices.zigzag4x4[j]] = list[j] }
            }
        }
        withUnsafeMutableBytes(of: &iq.ScalingList8x8) { raw in
            for i in 0..<2 {  // Intra Y, Inter Y
                let list = matrices.list8x8[i]
                for j in 0..<64 { raw[i * 64 + ScalingMatrices.zigzag8x8[j]] = list[j] }
            }
        }
        return iq
    }

    static func sliceParameters(_ request: SliceDecodeRequest, pps: PictureParameterSet, surface: (PictureID) -> VASurfaceID?) -> VASliceParameterBufferH264 {
        let h = request.slice.header
        var sp = VASliceParameterBufferH264()
        sp.slice_data_size = UInt32(request.slice.nalUnit.bytes.count)
        sp.slice_data_offset = 0
        sp.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
        sp.slice_data_bit_offset = UInt16(clamping: h.sliceDataPosition.vaBitOffset)
        sp.first_mb_in_slice = UInt16(clamping: h.firstMbInSlice)
        sp.slice_type = UInt8(h.sliceType.rawValue)
        sp.direct_spatial_mv_pred_flag = h.directSpatialMvPredFlag ? 1 : 0
        let type = h.sliceType
        sp.num_ref_idx_l0_active_minus1 = type.isIntra ? 0 : UInt8(h.numRefIdxL0ActiveMinus1)
        sp.num_ref_idx_l1_active_minus1 = type == .b ? UInt8(h.numRefIdxL1ActiveMinus1) : 0
        sp.cabac_init_idc = UInt8(h.cabacInitIdc)
        sp.slice_qp_delta = Int8(h.sliceQpDelta)
        sp.disable_deblocking_filter_idc = UInt8(h.disableDeblockingFilterIdc)
        sp.slice_alpha_c0_offset_div2 = Int8(h.sliceAlphaC0OffsetDiv2)
        sp.slice_beta_offset_div2 = Int8(h.sliceBetaOffsetDiv2)
        func fill<Tuple>(_ tuple: inout Tuple, _ list: [DecodedPicture?]) {
            let entries = list.map { $0.map { vaPicture($0, surface: surface($0.id), flags: referenceFlags($0)) } ?? invalidPicture }
            VAFixedArray.store(entries, into: &tuple, padding: invalidPicture)
        }
        fill(&sp.RefPicList0, request.lists.list0)
        fill(&sp.RefPicList1, request.lists.list1)
        fillWeights(&sp, header: h, pps: pps)
        return sp
    }

    /// Weight tables (8.4.2.3): explicit weights from pred_weight_table, with the defaults of 7.4.3.2 for
    /// entries whose flag is 0; without a table, the default weight 1 << denominator for every active
    /// entry. For implicit bi-prediction (weighted_bipred_idc 2) the hardware derives the weights from
    /// POC distances (8.4.2.3.1); the table then holds the neutral weight 32 on denominator 5, which is
    /// what implicit weights are expressed on, as FFmpeg and the Intel and Mesa drivers expect.
    static func fillWeights(_ sp: inout VASliceParameterBufferH264, header h: SliceHeader, pps: PictureParameterSet) {
        let type = h.sliceType
        guard !type.isIntra else { return }
        guard let table = h.predWeightTable else {
            // The neutral table, written in place (no table built per slice): weight 1 << denominator, offsets 0
            // (the buffer starts zeroed), no explicit flags.
            let denominator = type == .b && pps.weightedBipredIdc == 2 ? 5 : 0
            sp.luma_log2_weight_denom = UInt8(denominator)
            sp.chroma_log2_weight_denom = UInt8(denominator)
            writeNeutral(count: h.numRefIdxL0ActiveMinus1 + 1, weight: 1 << denominator, luma: &sp.luma_weight_l0, chroma: &sp.chroma_weight_l0)
            if type == .b {
                writeNeutral(count: h.numRefIdxL1ActiveMinus1 + 1, weight: 1 << denominator, luma: &sp.luma_weight_l1, chroma: &sp.chroma_weight_l1)
            }
            return
        }
        sp.luma_log2_weight_denom = UInt8(table.lumaLog2WeightDenom)
        sp.chroma_log2_weight_denom = UInt8(table.chromaLog2WeightDenom)
        (sp.luma_weight_l0_flag, sp.chroma_weight_l0_flag) = write(table.l0, lumaWeight: &sp.luma_weight_l0, lumaOffset: &sp.luma_offset_l0,
                                                                   chromaWeight: &sp.chroma_weight_l0, chromaOffset: &sp.chroma_offset_l0)
        guard type == .b else { return }
        (sp.luma_weight_l1_flag, sp.chroma_weight_l1_flag) = write(table.l1, lumaWeight: &sp.luma_weight_l1, lumaOffset: &sp.luma_offset_l1,
                                                                   chromaWeight: &sp.chroma_weight_l1, chromaOffset: &sp.chroma_offset_l1)
    }

    /// The neutral weights of one list's first `count` entries: `weight` for luma and both chroma components.
    static func writeNeutral<Luma, Chroma>(count: Int, weight: Int, luma: inout Luma, chroma: inout Chroma) {
        withUnsafeMutableBytes(of: &luma) { lumaRaw in
            withUnsafeMutableBytes(of: &chroma) { chromaRaw in
                let lw = lumaRaw.bindMemory(to: Int16.self), cw = chromaRaw.bindMemory(to: Int16.self)
                for i in 0..<min(count, lw.count) {
                    lw[i] = Int16(weight)
                    cw[i * 2] = Int16(weight)
                    cw[i * 2 + 1] = Int16(weight)
                }
            }
        }
    }

    /// Writes one list's weights into VA's fixed arrays (imported as tuples: 32 luma, 32x2 chroma entries);
    /// returns luma_weight_lX_flag and chroma_weight_lX_flag (set when any entry has explicit weights).
    static func write<Luma, Chroma>(_ entries: [PredWeightTable.Entry], lumaWeight: inout Luma, lumaOffset: inout Luma,
                                    chromaWeight: inout Chroma, chromaOffset: inout Chroma) -> (UInt8, UInt8) {
        withUnsafeMutableBytes(of: &lumaWeight) { lwRaw in
            withUnsafeMutableBytes(of: &lumaOffset) { loRaw in
                withUnsafeMutableBytes(of: &chromaWeight) { cwRaw in
                    withUnsafeMutableBytes(of: &chromaOffset) { coRaw in
                        let lw = lwRaw.bindMemory(to: Int16.self), lo = loRaw.bindMemory(to: Int16.self)
                        let cw = cwRaw.bindMemory(to: Int16.self), co = coRaw.bindMemory(to: Int16.self)
                        for (i, e) in entries.prefix(lw.count).enumerated() {
                            lw[i] = Int16(e.lumaWeight)
                            lo[i] = Int16(e.lumaOffset)
                            for j in 0..<2 {
                                cw[i * 2 + j] = Int16(e.chromaWeight[j])
                                co[i * 2 + j] = Int16(e.chromaOffset[j])
                            }
                        }
                    }
                }
            }
        }
        return (entries.contains { $0.lumaWeightFlag } ? 1 : 0, entries.contains { $0.chromaWeightFlag } ? 1 : 0)
    }
}
