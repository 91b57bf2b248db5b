import CLibVA
import H265Bitstream

/// VPS, SPS, PPS and slice segment headers as an H.265 hardware encoder writes them from the VA parameters
/// when the client packs none (iHD, Mesa): H265Bitstream values, written by its writers. What VA does not
/// carry is the driver's choice: 8-bit POC LSBs, one sub-layer, the level's largest DPB, explicit short-term
/// reference picture sets built from reference_frames, and no conformance window (VA has no cropping field).
enum HEVCEncodeHeaderDerivation {
    /// log2_max_pic_order_cnt_lsb (7.4.3.2.1): the driver's choice, VA has no field for it.
    static let log2MaxPicOrderCntLsb = 8

    /// MaxDpbSize (A.4.2) for a picture of `lumaSamples` at `levelIdc` (general_level_idc, 30 × level).
    static func maxDpbSize(lumaSamples: Int, levelIdc: Int) -> Int {
        let maxLumaPs: [(Int, Int)] = [(30, 36_864), (60, 122_880), (63, 245_760), (90, 552_960), (93, 983_040),
                                        (120, 2_228_224), (123, 2_228_224), (150, 8_912_896), (153, 8_912_896), (156, 8_912_896),
                                        (180, 35_651_584), (183, 35_651_584), (186, 35_651_584)]
        let limit = maxLumaPs.first { $0.0 >= levelIdc }?.1 ?? 35_651_584
        if lumaSamples <= limit >> 2 { return 16 }
        if lumaSamples <= limit >> 1 { return 12 }
        if lumaSamples <= (3 * limit) >> 2 { return 8 }
        return 6
    }

    static func profileTierLevel(_ seq: VAEncSequenceParameterBufferHEVC) -> ProfileTierLevel {
        var ptl = ProfileTierLevel()
        ptl.generalProfileIdc = Int(seq.general_profile_idc)
        ptl.generalTierFlag = seq.general_tier_flag != 0
        // A.3.2, A.3.3: Main is also Main 10 compatible; each profile flags itself.
        var flags = UInt32(1) << UInt32(31 - Int(seq.general_profile_idc) % 32)
        if seq.general_profile_idc == 1 { flags |= 1 << 29 }
        ptl.generalProfileCompatibilityFlags = flags
        ptl.generalProgressiveSourceFlag = true
        ptl.generalNonPackedConstraintFlag = true
        ptl.generalFrameOnlyConstraintFlag = true
        ptl.generalLevelIdc = Int(seq.general_level_idc)
        return ptl
    }

    static func videoParameterSet(_ seq: VAEncSequenceParameterBufferHEVC) -> VideoParameterSet {
        let sps = sequenceParameterSet(seq)
        var vps = VideoParameterSet()
        vps.profileTierLevel = sps.profileTierLevel
        vps.maxDecPicBufferingMinus1 = sps.maxDecPicBufferingMinus1
        vps.maxNumReorderPics = sps.maxNumReorderPics
        vps.maxLatencyIncreasePlus1 = sps.maxLatencyIncreasePlus1
        if sps.vui.timingInfoPresentFlag {
            vps.timingInfoPresentFlag = true
            vps.numUnitsInTick = sps.vui.numUnitsInTick
            vps.timeScale = sps.vui.timeScale
        }
        return vps
    }

    /// 7.3.2.2 from VAEncSequenceParameterBufferHEVC.
    static func sequenceParameterSet(_ seq: VAEncSequenceParameterBufferHEVC) -> H265SequenceParameterSet {
        let f = seq.seq_fields.bits
        var s = H265SequenceParameterSet()
        s.profileTierLevel = profileTierLevel(seq)
        s.chromaFormatIdc = Int(f.chroma_format_idc)
        s.picWidthInLumaSamples = Int(seq.pic_width_in_luma_samples)
        s.picHeightInLumaSamples = Int(seq.pic_height_in_luma_samples)
        s.bitDepthLumaMinus8 = Int(f.bit_depth_luma_minus8)
        s.bitDepthChromaMinus8 = Int(f.bit_depth_chroma_minus8)
        s.log2MaxPicOrderCntLsbMinus4 = log2MaxPicOrderCntLsb - 4
        let dpb = maxDpbSize(lumaSamples: s.picWidthInLumaSamples * s.picHeightInLumaSamples, levelIdc: Int(seq.general_level_idc))
        s.maxDecPicBufferingMinus1 = [dpb - 1]
        // Reordering is at most the B pictures between anchors (ip_period - 1), never more than the DPB holds.
        s.maxNumReorderPics = [min(max(Int(seq.ip_period) - 1, 0), dpb - 1)]
        s.maxLatencyIncreasePlus1 = [0]
        s.log2MinLumaCodingBlockSizeMinus3 = Int(seq.log2_min_luma_coding_block_size_minus3)
        s.log2DiffMaxMinLumaCodingBlockSize = Int(seq.log2_diff_max_min_luma_coding_block_size)
        s.log2MinLumaTransformBlockSizeMinus2 = Int(seq.log2_min_transform_block_size_minus2)
        s.log2DiffMaxMinLumaTransformBlockSize = Int(seq.log2_diff_max_min_transform_block_size)
        s.maxTransformHierarchyDepthInter = Int(seq.max_transform_hierarchy_depth_inter)
        s.maxTransformHierarchyDepthIntra = Int(seq.max_transform_hierarchy_depth_intra)
        s.scalingListEnabledFlag = f.scaling_list_enabled_flag != 0
        s.ampEnabledFlag = f.amp_enabled_flag != 0
        s.sampleAdaptiveOffsetEnabledFlag = f.sample_adaptive_offset_enabled_flag != 0
        s.pcmEnabledFlag = f.pcm_enabled_flag != 0
        if s.pcmEnabledFlag {
            s.pcmSampleBitDepthLumaMinus1 = Int(seq.pcm_sample_bit_depth_luma_minus1)
            s.pcmSampleBitDepthChromaMinus1 = Int(seq.pcm_sample_bit_depth_chroma_minus1)
            s.log2MinPcmLumaCodingBlockSizeMinus3 = Int(seq.log2_min_pcm_luma_coding_block_size_minus3)
            s.log2DiffMaxMinPcmLumaCodingBlockSize = Int(seq.log2_max_pcm_luma_coding_block_size_minus3) - Int(seq.log2_min_pcm_luma_coding_block_size_minus3)
            s.pcmLoopFilterDisabledFlag = f.pcm_loop_filter_disabled_flag != 0
        }
        s.temporalMvpEnabledFlag = f.sps_temporal_mvp_enabled_flag != 0
        s.strongIntraSmoothingEnabledFlag = f.strong_intra_smoothing_enabled_flag != 0
        if seq.vui_parameters_present_flag != 0 {
            let v = seq.vui_fields.bits
            s.vuiParametersPresentFlag = true
            var vui = H265VUIParameters()
            if v.aspect_ratio_info_present_flag != 0 {
                vui.aspectRatioInfoPresentFlag = true
                vui.aspectRatioIdc = Int(seq.aspect_ratio_idc)
                vui.sarWidth = Int(seq.sar_width)
                vui.sarHeight = Int(seq.sar_height)
            }
            vui.neutralChromaIndicationFlag = v.neutral_chroma_indication_flag != 0
            vui.fieldSeqFlag = v.field_seq_flag != 0
            if v.vui_timing_info_present_flag != 0 {
                vui.timingInfoPresentFlag = true
                vui.numUnitsInTick = Int(seq.vui_num_units_in_tick)
                vui.timeScale = Int(seq.vui_time_scale)
            }
            if v.bitstream_restriction_flag != 0 {
                vui.bitstreamRestrictionFlag = true
                vui.tilesFixedStructureFlag = v.tiles_fixed_structure_flag != 0
                vui.motionVectorsOverPicBoundariesFlag = v.motion_vectors_over_pic_boundaries_flag != 0
                vui.restrictedRefPicListsFlag = v.restricted_ref_pic_lists_flag != 0
                vui.minSpatialSegmentationIdc = Int(seq.min_spatial_segmentation_idc)
                vui.maxBytesPerPicDenom = Int(seq.max_bytes_per_pic_denom)
                vui.maxBitsPerMinCuDenom = Int(seq.max_bits_per_min_cu_denom)
                vui.log2MaxMvLengthHorizontal = Int(v.log2_max_mv_length_horizontal)
                vui.log2MaxMvLengthVertical = Int(v.log2_max_mv_length_vertical)
            }
            s.vui = vui
        }
        return s
    }

    /// 7.3.2.3 from VAEncPictureParameterBufferHEVC. Slice headers may override the deblocking filter and
    /// the reference counts, and carry cabac_init_flag (as FFmpeg's PPS allows).
    static func pictureParameterSet(_ pic: VAEncPictureParameterBufferHEVC) -> H265PictureParameterSet {
        let f = pic.pic_fields.bits
        var p = H265PictureParameterSet()
        p.id = Int(pic.slice_pic_parameter_set_id)
        p.seqParameterSetId = 0
        p.dependentSliceSegmentsEnabledFlag = f.dependent_slice_segments_enabled_flag != 0
        p.signDataHidingEnabledFlag = f.sign_data_hiding_enabled_flag != 0
        p.cabacInitPresentFlag = true
        p.numRefIdxL0DefaultActiveMinus1 = Int(pic.num_ref_idx_l0_default_active_minus1)
        p.numRefIdxL1DefaultActiveMinus1 = Int(pic.num_ref_idx_l1_default_active_minus1)
        p.initQpMinus26 = Int(pic.pic_init_qp) - 26
        p.constrainedIntraPredFlag = f.constrained_intra_pred_flag != 0
        p.transformSkipEnabledFlag = f.transform_skip_enabled_flag != 0
        p.cuQpDeltaEnabledFlag = f.cu_qp_delta_enabled_flag != 0
        p.diffCuQpDeltaDepth = p.cuQpDeltaEnabledFlag ? Int(pic.diff_cu_qp_delta_depth) : 0
        p.cbQpOffset = Int(pic.pps_cb_qp_offset)
        p.crQpOffset = Int(pic.pps_cr_qp_offset)
        p.weightedPredFlag = f.weighted_pred_flag != 0
        p.weightedBipredFlag = f.weighted_bipred_flag != 0
        p.transquantBypassEnabledFlag = f.transquant_bypass_enabled_flag != 0
        p.tilesEnabledFlag = f.tiles_enabled_flag != 0
        p.entropyCodingSyncEnabledFlag = f.entropy_coding_sync_enabled_flag != 0
        p.loopFilterAcrossSlicesEnabledFlag = f.pps_loop_filter_across_slices_enabled_flag != 0
        p.deblockingFilterControlPresentFlag = true
        p.deblockingFilterOverrideEnabledFlag = true
        p.log2ParallelMergeLevelMinus2 = Int(pic.log2_parallel_merge_level_minus2)
        return p
    }

    /// The short-term RPS (7.4.8) of a picture: every valid reference_frames entry, before or after the
    /// current POC, marked used when a list names it. Long-term references are not written (VA's encode
    /// clients use none).
    static func referencePictureSet(_ pic: VAEncPictureParameterBufferHEVC, used: Set<Int>) -> ShortTermReferencePictureSet {
        let current = Int(pic.decoded_curr_pic.pic_order_cnt)
        let pocs = HEVCEncodeSession.entries(pic.reference_frames)
            .filter { $0.flags & UInt32(VA_PICTURE_HEVC_INVALID) == 0 && $0.picture_id != VASurfaceID(VA_INVALID_SURFACE) }
            .map { Int($0.pic_order_cnt) }
        var rps = ShortTermReferencePictureSet()
        for poc in Set(pocs.filter { $0 < current }).sorted(by: >) {
            rps.deltaPocS0.append(poc - current)
            rps.usedByCurrPicS0.append(used.contains(poc))
        }
        for poc in Set(pocs.filter { $0 > current }).sorted() {
            rps.deltaPocS1.append(poc - current)
            rps.usedByCurrPicS1.append(used.contains(poc))
        }
        return rps
    }

    /// 7.3.6.1 from VAEncSliceParameterBufferHEVC and the picture's parameters.
    static func sliceHeader(_ slice: VAEncSliceParameterBufferHEVC, picture pic: VAEncPictureParameterBufferHEVC,
                            sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> H265SliceSegmentHeader {
        let f = slice.slice_fields.bits
        var h = H265SliceSegmentHeader()
        h.nalUnitType = H265NALUnitType(rawValue: pic.nal_unit_type)
        h.firstSliceSegmentInPicFlag = slice.slice_segment_address == 0
        h.noOutputOfPriorPicsFlag = pic.pic_fields.bits.no_output_of_prior_pics_flag != 0
        h.picParameterSetId = Int(slice.slice_pic_parameter_set_id)
        h.dependentSliceSegmentFlag = f.dependent_slice_segment_flag != 0
        h.sliceSegmentAddress = Int(slice.slice_segment_address)
        h.sliceType = H265SliceType(rawValue: Int(slice.slice_type)) ?? .i
        let poc = Int(pic.decoded_curr_pic.pic_order_cnt)
        h.picOrderCntLsb = poc & (sps.maxPicOrderCntLsb - 1)
        if !h.nalUnitType.isIDR {
            let lists = [HEVCEncodeSession.entries(slice.ref_pic_list0).prefix(h.sliceType == .i ? 0 : Int(slice.num_ref_idx_l0_active_minus1) + 1),
                         HEVCEncodeSession.entries(slice.ref_pic_list1).prefix(h.sliceType == .b ? Int(slice.num_ref_idx_l1_active_minus1) + 1 : 0)]
            h.shortTermRefPicSet = referencePictureSet(pic, used: Set(lists.joined().map { Int($0.pic_order_cnt) }))
            h.temporalMvpEnabledFlag = sps.temporalMvpEnabledFlag && f.slice_temporal_mvp_enabled_flag != 0
        }
        if sps.sampleAdaptiveOffsetEnabledFlag {
            h.saoLumaFlag = f.slice_sao_luma_flag != 0
            h.saoChromaFlag = f.slice_sao_chroma_flag != 0
        }
        if h.sliceType != .i {
            h.numRefIdxL0ActiveMinus1 = Int(slice.num_ref_idx_l0_active_minus1)
            h.numRefIdxL1ActiveMinus1 = h.sliceType == .b ? Int(slice.num_ref_idx_l1_active_minus1) : pps.numRefIdxL1DefaultActiveMinus1
            h.numRefIdxActiveOverrideFlag = h.numRefIdxL0ActiveMinus1 != pps.numRefIdxL0DefaultActiveMinus1
                || (h.sliceType == .b && h.numRefIdxL1ActiveMinus1 != pps.numRefIdxL1DefaultActiveMinus1)
            if !h.numRefIdxActiveOverrideFlag { h.numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1 }
            h.mvdL1ZeroFlag = h.sliceType == .b && f.mvd_l1_zero_flag != 0
            h.cabacInitFlag = pps.cabacInitPresentFlag && f.cabac_init_flag != 0
            if h.temporalMvpEnabledFlag {
                h.collocatedFromL0Flag = h.sliceType == .p || f.collocated_from_l0_flag != 0
                let index = Int(pic.collocated_ref_pic_index)
                let count = h.collocatedFromL0Flag ? h.numRefIdxL0ActiveMinus1 : h.numRefIdxL1ActiveMinus1
                h.collocatedRefIdx = index <= count ? index : 0
            }
            h.fiveMinusMaxNumMergeCand = 5 - min(max(Int(slice.max_num_merge_cand), 1), 5)
        }
        h.qpDelta = Int(slice.slice_qp_delta)
        let disabled = f.slice_deblocking_filter_disabled_flag != 0
        if disabled != pps.deblockingFilterDisabledFlag || slice.slice_beta_offset_div2 != 0 || slice.slice_tc_offset_div2 != 0 {
            h.deblockingFilterOverrideFlag = true
            h.deblockingFilterDisabledFlag = disabled
            if !disabled {
                h.betaOffsetDiv2 = Int(slice.slice_beta_offset_div2)
                h.tcOffsetDiv2 = Int(slice.slice_tc_offset_div2)
            }
        } else {
            h.deblockingFilterDisabledFlag = pps.deblockingFilterDisabledFlag
        }
        h.loopFilterAcrossSlicesEnabledFlag = pps.loopFilterAcrossSlicesEnabledFlag
            && (f.slice_loop_filter_across_slices_enabled_flag != 0)
        return h
    }
}
