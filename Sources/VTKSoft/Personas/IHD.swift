import CLibVA

/// Intel iHD, the free build Debian and Ubuntu ship (intel-media-va-driver), Gen12 (TGL, RKL, ADL, DG1) and
/// DG2. Source: intel/media-driver intel-media-24.1.0 `media_libva_caps_g12.cpp` (CreateEncAttributes),
/// `media_sku_wa_g12.cpp` (_FULL_OPEN_SOURCE clears avcEncoding: LP only), and the Debian free 25.1.4
/// `vainfo -a` dump (ADL-P) gathered in ../shared/personas/README.md.
extension Persona {
    static let ihdGen12 = ihd(name: "ihd-gen12", device: "Gen12", hasHuC: true, dg2: false)
    /// Without HuC firmware: `FtrEnableMediaKernels = hasHuc`, so CQP only.
    static let ihdGen12NoHuC = ihd(name: "ihd-gen12-nohuc", device: "Gen12, no HuC", hasHuC: false, dg2: false)
    /// DG2: H.264 LP with L1 1 and ICQ (media_libva_caps_xe_hpm / dg2 sku).
    static let ihdDG2 = ihd(name: "ihd-dg2", device: "DG2", hasHuC: true, dg2: true)

    private static func ihd(name: String, device: String, hasHuC: Bool, dg2: Bool) -> Persona {
        let h264 = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
        var rateControl = VA_RC_CQP
        if hasHuC { rateControl |= VA_RC_CBR | VA_RC_VBR | VA_RC_MB | VA_RC_QVBR | VA_RC_TCBRC }
        if dg2 { rateControl |= VA_RC_ICQ }
        let encodeLP: [Attribute] = [
            Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV422 | VA_RT_FORMAT_YUV444 | VA_RT_FORMAT_RGB32),
            Attribute(VAConfigAttribRateControl, rateControl),
            Attribute(VAConfigAttribEncPackedHeaders, VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE
                | VA_ENC_PACKED_HEADER_SLICE | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA),
            Attribute(VAConfigAttribEncInterlaced, VA_ENC_INTERLACED_NONE),
            Attribute(VAConfigAttribEncMaxRefFrames, UInt32(3 | (dg2 ? 1 : 0) << 16)),
            Attribute(VAConfigAttribEncMaxSlices, UInt32(256)),
            Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_EQUAL_ROWS | VA_ENC_SLICE_STRUCTURE_MAX_SLICE_SIZE
                | VA_ENC_SLICE_STRUCTURE_ARBITRARY_ROWS),
            Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
            Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
            Attribute(VAConfigAttribEncQualityRange, UInt32(7)),
            Attribute(VAConfigAttribEncQuantization, VA_ENC_QUANTIZATION_TRELLIS_SUPPORTED),
            Attribute(VAConfigAttribEncIntraRefresh, VA_ENC_INTRA_REFRESH_ROLLING_COLUMN | VA_ENC_INTRA_REFRESH_ROLLING_ROW),
            Attribute(VAConfigAttribEncSkipFrame, UInt32(1)),
            // VAConfigAttribValEncROI: 16 regions, rc_priority 0 (bit 8), qp_delta 1 (bit 9).
            Attribute(VAConfigAttribEncROI, UInt32(16 | 1 << 9)),
            Attribute(VAConfigAttribEncDirtyRect, UInt32(4)),
            // VAConfigAttribValMaxFrameSize: max_frame_size 1, multiple_pass 1.
            Attribute(VAConfigAttribMaxFrameSize, UInt32(3)),
        ]
        let decodeH264: [Attribute] = [
            Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV422 | VA_RT_FORMAT_RGB32),
            Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL | VA_DEC_SLICE_MODE_BASE),
            Attribute(VAConfigAttribMaxPictureWidth, UInt32(8192)),
            Attribute(VAConfigAttribMaxPictureHeight, UInt32(8192)),
        ]
        // HEVC: VLD, and EncSliceLP (VDEnc) with l0 3, l1 3 as low-delay B (list 1 holds past pictures only:
        // PredictionDirection PREVIOUS | BI_NOT_EMPTY), CTB 64 only, 16384x12288, 70 slices.
        let hevcRateControl = hasHuC ? VA_RC_CQP | VA_RC_CBR | VA_RC_VBR | VA_RC_MB | VA_RC_TCBRC | VA_RC_VCM | VA_RC_QVBR : VA_RC_CQP
        func hevcLP(_ rtFormat: Int32) -> [Attribute] {
            [
                Attribute(VAConfigAttribRTFormat, rtFormat),
                Attribute(VAConfigAttribRateControl, hevcRateControl),
                Attribute(VAConfigAttribEncPackedHeaders, VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE
                    | VA_ENC_PACKED_HEADER_SLICE | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA),
                Attribute(VAConfigAttribEncMaxRefFrames, UInt32(3 | 3 << 16)),
                Attribute(VAConfigAttribPredictionDirection, VA_PREDICTION_DIRECTION_PREVIOUS | VA_PREDICTION_DIRECTION_BI_NOT_EMPTY),
                Attribute(VAConfigAttribEncMaxSlices, UInt32(70)),
                Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_EQUAL_ROWS | VA_ENC_SLICE_STRUCTURE_MAX_SLICE_SIZE
                    | VA_ENC_SLICE_STRUCTURE_ARBITRARY_ROWS),
                Attribute(VAConfigAttribMaxPictureWidth, UInt32(16384)),
                Attribute(VAConfigAttribMaxPictureHeight, UInt32(12288)),
                Attribute(VAConfigAttribEncHEVCBlockSizes, HEVCBlockSizes(ctbLog2Sizes: 6...6).value),
            ]
        }
        return Persona(
            name: name,
            vendor: "Intel iHD driver for Intel(R) Gen Graphics - 24.1.0 () [vtksoft persona \(name): \(device)]",
            entries: [
                Entry(profiles: h264, entrypoint: VAEntrypointVLD, attributes: decodeH264),
                Entry(profiles: h264, entrypoint: VAEntrypointEncSliceLP, attributes: encodeLP),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointEncSliceLP, attributes: hevcLP(VA_RT_FORMAT_YUV420)),
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointEncSliceLP,
                      attributes: hevcLP(VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10)),
            ],
            imageFormats: [ImageLayout.nv12, UInt32(VA_FOURCC_I420), UInt32(VA_FOURCC_YV12), ImageLayout.p010],
            maxWidth: 8192, maxHeight: 8192,
            packedHeaders: .driverUnlessClient, imageAccess: .derive, encoder: .native)
    }
}
