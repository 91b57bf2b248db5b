import CLibVA

/// Intel i965 (intel-vaapi-driver 2.4.1, discontinued), Gen9 (Skylake, Kaby Lake). Source: `i965_device_info.c`
/// (gen9 codec list), `i965_drv_video.c` (i965_GetConfigAttributes), `gen9_mfc.c` (gen9_mfc_avc_inset_headers:
/// SPS/PPS/SEI only from packed headers), as gathered in ../shared/personas/README.md.
extension Persona {
    static let i965Gen9: Persona = {
        let h264 = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
        let packed = VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE | VA_ENC_PACKED_HEADER_SLICE
            | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA
        return Persona(
            name: "i965-gen9",
            vendor: "Intel i965 driver for Intel(R) Skylake - 2.4.1 [vtksoft persona i965-gen9]",
            entries: [
                Entry(profiles: h264, entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV400),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                // Upstream reports no MaxPictureWidth/Height for encode.
                Entry(profiles: h264, entrypoint: VAEntrypointEncSlice, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                    Attribute(VAConfigAttribRateControl, VA_RC_CQP | VA_RC_CBR | VA_RC_VBR | VA_RC_MB),
                    Attribute(VAConfigAttribEncPackedHeaders, packed),
                    Attribute(VAConfigAttribEncInterlaced, VA_ENC_INTERLACED_NONE),
                    Attribute(VAConfigAttribEncMaxRefFrames, UInt32(4 | 1 << 16)),
                    Attribute(VAConfigAttribEncMaxSlices, UInt32(32)),
                    Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_ARBITRARY_MACROBLOCKS),
                    Attribute(VAConfigAttribEncQualityRange, UInt32(7)),
                ]),
                Entry(profiles: h264, entrypoint: VAEntrypointEncSliceLP, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                    Attribute(VAConfigAttribRateControl, VA_RC_CQP),
                    Attribute(VAConfigAttribEncPackedHeaders, packed),
                    Attribute(VAConfigAttribEncInterlaced, VA_ENC_INTERLACED_NONE),
                    Attribute(VAConfigAttribEncMaxRefFrames, UInt32(1)),
                    Attribute(VAConfigAttribEncMaxSlices, UInt32(32)),
                    Attribute(VAConfigAttribEncQualityRange, UInt32(2)),
                ]),
                Entry(profiles: h264, entrypoint: VAEntrypointFEI, attributes: []),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                ]),
                // HEVC EncSlice (gen9_hevc_encoder): Main only on Skylake (Main 10 is Kaby Lake's). Packed headers
                // as for H.264; the driver inserts VPS/SPS/PPS only from them, as it does SPS/PPS.
                // EncMaxRefFrames: i965_GetConfigAttributes (src/i965_drv_video.c, intel/intel-vaapi-driver at
                // 3546a83db9e3) gives HEVCMain/Main10 on Gen9 EncSlice `(1 << 16) | (3 << 0)`: L0 3, L1 1. (Older
                // trees, e.g. 0109172363dc, gave every EncSlice profile `(1 << 16) | 1`; the Gen9 HEVC VME
                // encoder that replaced them takes three list-0 references.)
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointEncSlice, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                    Attribute(VAConfigAttribRateControl, VA_RC_CQP | VA_RC_CBR | VA_RC_VBR),
                    Attribute(VAConfigAttribEncPackedHeaders, packed),
                    Attribute(VAConfigAttribEncMaxRefFrames, UInt32(3 | 1 << 16)),
                    Attribute(VAConfigAttribEncMaxSlices, UInt32(32)),
                ]),
            ],
            imageFormats: [ImageLayout.nv12, UInt32(VA_FOURCC_I420), UInt32(VA_FOURCC_YV12)],
            maxWidth: 4096, maxHeight: 4096,
            packedHeaders: .clientOnly, imageAccess: .derive, encoder: .native)
    }()
}
