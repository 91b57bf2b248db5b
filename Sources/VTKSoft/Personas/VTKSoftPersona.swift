import CLibVA

/// vtksoft as itself, the default: H.264 decode and EncSlice, with what the encoder engine can do; H.265
/// decode and EncSlice.
extension Persona {
    static let vtksoft = vtksoft(engine: .selected)

    static func vtksoft(engine: EncoderEngine) -> Persona {
        let h264 = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
        let native = engine == .native
        var encode: [Attribute] = [
            Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
            Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
            Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
            // CQP uses the client's slice QP; CBR and VBR: RateController (native) or openh264's bitrate mode.
            Attribute(VAConfigAttribRateControl, VA_RC_CQP | VA_RC_CBR | VA_RC_VBR),
            // The native engine inserts packed headers verbatim (as i965 and iHD); openh264 writes its own.
            Attribute(VAConfigAttribEncPackedHeaders, native
                ? UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE | VA_ENC_PACKED_HEADER_SLICE
                    | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA)
                : UInt32(VA_ENC_PACKED_HEADER_NONE)),
            // native: L0 4, L1 1 (as i965's EncSlice); openh264 predicts from one picture, no B slices.
            Attribute(VAConfigAttribEncMaxRefFrames, native ? UInt32(4 | 1 << 16) : 1),
            Attribute(VAConfigAttribEncMaxSlices, UInt32(native ? 32 : 1)),
            Attribute(VAConfigAttribEncInterlaced, VA_ENC_INTERLACED_NONE),
        ]
        if native { encode.append(Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_ARBITRARY_MACROBLOCKS)) }
        // H.265: vtksoft's own engine (H265Encoding) whichever engine codes H.264; CTB 16, 32 or 64.
        func hevcEncode(_ rtFormat: Int32) -> [Attribute] {
            [
                Attribute(VAConfigAttribRTFormat, rtFormat),
                Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
                Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
                Attribute(VAConfigAttribRateControl, VA_RC_CQP | VA_RC_CBR | VA_RC_VBR),
                Attribute(VAConfigAttribEncPackedHeaders, VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE
                    | VA_ENC_PACKED_HEADER_SLICE | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA),
                Attribute(VAConfigAttribEncMaxRefFrames, UInt32(4 | 1 << 16)),
                Attribute(VAConfigAttribEncMaxSlices, UInt32(32)),
                Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_ARBITRARY_MACROBLOCKS),
                Attribute(VAConfigAttribEncHEVCBlockSizes, HEVCBlockSizes(ctbLog2Sizes: 4...6).value),
            ]
        }
        return Persona(
            name: "vtksoft",
            vendor: "vtksoft: software VA-API driver (libavcodec decode, \(engine.rawValue) encode)",
            entries: [
                Entry(profiles: h264, entrypoint: VAEntrypointVLD, attributes: [
                    // YUV400: monochrome High streams (GStreamer asks for it; FFmpeg decodes them into YUV420).
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV400),
                    Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
                    Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                Entry(profiles: h264, entrypoint: VAEntrypointEncSlice, attributes: encode),
                // H.265 decode through libavcodec; Main 10 into P010 (10-bit) or NV12 (8-bit streams).
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
                    Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
                    Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointVLD, attributes: [
                    Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10),
                    Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
                    Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
                    Attribute(VAConfigAttribDecSliceMode, VA_DEC_SLICE_MODE_NORMAL),
                ]),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointEncSlice, attributes: hevcEncode(VA_RT_FORMAT_YUV420)),
                // Main 10 codes P010 surfaces (10-bit) and NV12 ones (an 8-bit Main 10 stream, A.3.3).
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointEncSlice,
                      attributes: hevcEncode(VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10)),
            ],
            imageFormats: [ImageLayout.nv12, UInt32(VA_FOURCC_I420), UInt32(VA_FOURCC_YV12), ImageLayout.p010],
            maxWidth: 4096, maxHeight: 4096,
            packedHeaders: .driverUnlessClient, imageAccess: .derive, encoder: nil)
    }
}
