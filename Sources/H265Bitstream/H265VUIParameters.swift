import NALStream

/// vui_parameters() of H.265 (E.2.1).
public struct H265VUIParameters: Hashable, Sendable {
    public var aspectRatioInfoPresentFlag = false
    public var aspectRatioIdc = 0
    public var sarWidth = 0
    public var sarHeight = 0
    public var overscanInfoPresentFlag = false
    public var overscanAppropriateFlag = false
    public var videoSignalTypePresentFlag = false
    public var videoFormat = 5
    public var videoFullRangeFlag = false
    public var colourDescriptionPresentFlag = false
    public var colourPrimaries = 2
    public var transferCharacteristics = 2
    public var matrixCoefficients = 2
    public var chromaLocInfoPresentFlag = false
    public var chromaSampleLocTypeTopField = 0
    public var chromaSampleLocTypeBottomField = 0
    public var neutralChromaIndicationFlag = false
    public var fieldSeqFlag = false
    public var frameFieldInfoPresentFlag = false
    public var defaultDisplayWindowFlag = false
    public var defaultDisplayWindow = (left: 0, right: 0, top: 0, bottom: 0)
    public var timingInfoPresentFlag = false
    public var numUnitsInTick = 0
    public var timeScale = 0
    public var pocProportionalToTimingFlag = false
    public var numTicksPocDiffOneMinus1 = 0
    public var hrdParametersPresentFlag = false
    public var hrd: H265HRDParameters?
    public var bitstreamRestrictionFlag = false
    public var tilesFixedStructureFlag = false
    public var motionVectorsOverPicBoundariesFlag = true
    public var restrictedRefPicListsFlag = false
    public var minSpatialSegmentationIdc = 0
    public var maxBytesPerPicDenom = 2
    public var maxBitsPerMinCuDenom = 1
    public var log2MaxMvLengthHorizontal = 15
    public var log2MaxMvLengthVertical = 15

    public init() {}

    /// Table E.1: the sample aspect ratio, when the stream gives one.
    public var sampleAspectRatio: (width: Int, height: Int)? {
        guard aspectRatioInfoPresentFlag else { return nil }
        if aspectRatioIdc == 255 { return sarWidth > 0 && sarHeight > 0 ? (sarWidth, sarHeight) : nil }
        let table: [(Int, Int)] = [(0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11), (80, 33),
                                   (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1)]
        guard aspectRatioIdc > 0, aspectRatioIdc < table.count else { return nil }
        return table[aspectRatioIdc]
    }

    public init(_ r: inout SyntaxReader, maxNumSubLayersMinus1: Int) throws(BitstreamError) {
        aspectRatioInfoPresentFlag = try r.flag("aspect_ratio_info_present_flag")
        if aspectRatioInfoPresentFlag {
            aspectRatioIdc = try r.u(8, "aspect_ratio_idc")
            if aspectRatioIdc == 255 {
                sarWidth = try r.u(16, "sar_width")
                sarHeight = try r.u(16, "sar_height")
            }
        }
        overscanInfoPresentFlag = try r.flag("overscan_info_present_flag")
        if overscanInfoPresentFlag { overscanAppropriateFlag = try r.flag("overscan_appropriate_flag") }
        videoSignalTypePresentFlag = try r.flag("video_signal_type_present_flag")
        if videoSignalTypePresentFlag {
            videoFormat = try r.u(3, "video_format")
            videoFullRangeFlag = try r.flag("video_full_range_flag")
            colourDescriptionPresentFlag = try r.flag("colour_description_present_flag")
            if colourDescriptionPresentFlag {
                colourPrimaries = try r.u(8, "colour_primaries")
                transferCharacteristics = try r.u(8, "transfer_characteristics")
                matrixCoefficients = try r.u(8, "matrix_coefficients")
            }
        }
        chromaLocInfoPresentFlag = try r.flag("chroma_loc_info_present_flag")
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try r.ue("chroma_sample_loc_type_top_field", max: 5)
            chromaSampleLocTypeBottomField = try r.ue("chroma_sample_loc_type_bottom_field", max: 5)
        }
        neutralChromaIndicationFlag = try r.flag("neutral_chroma_indication_flag")
        fieldSeqFlag = try r.flag("field_seq_flag")
        frameFieldInfoPresentFlag = try r.flag("frame_field_info_present_flag")
        defaultDisplayWindowFlag = try r.flag("default_display_window_flag")
        if defaultDisplayWindowFlag {
            defaultDisplayWindow = (try r.ue("def_disp_win_left_offset", max: 16384), try r.ue("def_disp_win_right_offset", max: 16384),
                                    try r.ue("def_disp_win_top_offset", max: 16384), try r.ue("def_disp_win_bottom_offset", max: 16384))
        }
        timingInfoPresentFlag = try r.flag("vui_timing_info_present_flag")
        if timingInfoPresentFlag {
            numUnitsInTick = try r.u(32, "vui_num_units_in_tick")
            timeScale = try r.u(32, "vui_time_scale")
            pocProportionalToTimingFlag = try r.flag("vui_poc_proportional_to_timing_flag")
            if pocProportionalToTimingFlag { numTicksPocDiffOneMinus1 = try r.ue("vui_num_ticks_poc_diff_one_minus1") }
            hrdParametersPresentFlag = try r.flag("vui_hrd_parameters_present_flag")
            if hrdParametersPresentFlag {
                hrd = try H265HRDParameters(&r, commonInfPresent: true, maxNumSubLayersMinus1: maxNumSubLayersMinus1)
            }
        }
        bitstreamRestrictionFlag = try r.flag("bitstream_restriction_flag")
        if bitstreamRestrictionFlag {
            tilesFixedStructureFlag = try r.flag("tiles_fixed_structure_flag")
            motionVectorsOverPicBoundariesFlag = try r.flag("motion_vectors_over_pic_boundaries_flag")
            restrictedRefPicListsFlag = try r.flag("restricted_ref_pic_lists_flag")
            minSpatialSegmentationIdc = try r.ue("min_spatial_segmentation_idc", max: 4095)
            maxBytesPerPicDenom = try r.ue("max_bytes_per_pic_denom", max: 16)
            maxBitsPerMinCuDenom = try r.ue("max_bits_per_min_cu_denom", max: 16)
            log2MaxMvLengthHorizontal = try r.ue("log2_max_mv_length_horizontal", max: 15)
            log2MaxMvLengthVertical = try r.ue("log2_max_mv_length_vertical", max: 15)
        }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.aspectRatioIdc == b.aspectRatioIdc && a.sarWidth == b.sarWidth && a.sarHeight == b.sarHeight && a.timeScale == b.timeScale
            && a.numUnitsInTick == b.numUnitsInTick && a.videoFullRangeFlag == b.videoFullRangeFlag && a.colourPrimaries == b.colourPrimaries
            && a.defaultDisplayWindow == b.defaultDisplayWindow && a.hrd == b.hrd && a.bitstreamRestrictionFlag == b.bitstreamRestrictionFlag
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(aspectRatioIdc); hasher.combine(timeScale) }
}
