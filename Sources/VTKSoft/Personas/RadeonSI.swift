import CLibVA

/// Mesa's VA frontend on radeonsi (VCN). Source: Mesa 23.2.1 `vainfo -a` dump and
/// `src/gallium/frontends/va/config.c` (vlVaGetConfigAttributes) and `picture.c` (handleVAEncPackedHeader...:
/// only SEQUENCE accepted in 24.x), as gathered in ../shared/personas/README.md. 25–26: packed
/// SEQUENCE|PICTURE|SLICE|MISC|RAW parsed and used, L1 1.
extension Persona {
    static let radeonsi24 = radeonsi(name: "radeonsi-24", mesa: "24.2.8",
                                     packedHeaders: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE), l1: 0, policy: .driverOnly)
    static let radeonsi26 = radeonsi(name: "radeonsi-26", mesa: "26.0.0",
                                     packedHeaders: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE
                                         | VA_ENC_PACKED_HEADER_SLICE | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA),
                                     l1: 1, policy: .driverUnlessClient)

    private static func radeonsi(name: String, mesa: String, packedHeaders: UInt32, l1: UInt32, policy: PackedHeaderPolicy) -> Persona {
        let h264 = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
        let hevc = [VAProfileHEVCMain, VAProfileHEVCMain10]
        let encode: [Attribute] = [
            Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
            Attribute(VAConfigAttribRateControl, VA_RC_CBR | VA_RC_VBR | VA_RC_CQP),
            Attribute(VAConfigAttribEncPackedHeaders, packedHeaders),
            Attribute(VAConfigAttribEncMaxRefFrames, 1 | l1 << 16),
            Attribute(VAConfigAttribEncMaxSlices, UInt32(128)),
            Attribute(VAConfigAttribEncSliceStructure, VA_ENC_SLICE_STRUCTURE_POWER_OF_TWO_ROWS | VA_ENC_SLICE_STRUCTURE_EQUAL_ROWS),
            Attribute(VAConfigAttribEncQualityRange, UInt32(32)),
            // VAConfigAttribValEncRateControlExt: max_num_temporal_layers_minus1 3, temporal_layer_bitrate_control_flag 1.
            Attribute(VAConfigAttribEncRateControlExt, UInt32(3 | 1 << 8)),
            Attribute(VAConfigAttribMaxFrameSize, UInt32(1)),
        ]
        let decode: [Attribute] = [
            Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420),
            Attribute(VAConfigAttribMaxPictureWidth, UInt32(4096)),
            Attribute(VAConfigAttribMaxPictureHeight, UInt32(4096)),
        ]
        return Persona(
            name: name,
            vendor: "Mesa Gallium driver \(mesa) for AMD Radeon RX 6600 (radeonsi, navi23) [vtksoft persona \(name)]",
            entries: [
                Entry(profiles: h264, entrypoint: VAEntrypointVLD, attributes: decode),
                Entry(profiles: h264, entrypoint: VAEntrypointEncSlice, attributes: encode),
                Entry(profiles: hevc, entrypoint: VAEntrypointVLD, attributes: decode),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointEncSlice, attributes: encode),
                // Main 10 encodes P010 (VCN2+: PIPE_FORMAT_P010 in the encode formats).
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointEncSlice,
                      attributes: [Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10)] + encode.dropFirst()),
            ],
            imageFormats: [ImageLayout.nv12, UInt32(VA_FOURCC_I420), UInt32(VA_FOURCC_YV12), ImageLayout.p010],
            maxWidth: 4096, maxHeight: 4096,
            packedHeaders: policy, imageAccess: .derive, encoder: .native)
    }
}
