import CLibVA

/// What vtksoft can really do, as VA reports it.
enum Capabilities {
    /// Names the encoder engine in use (``EncoderEngine``), so `vtk info` can say which.
    static let vendor = "vtksoft: software VA-API driver (libavcodec decode, \(EncoderEngine.selected.rawValue) encode)"

    static let profiles: [VAProfile] = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
    static let entrypoints: [VAEntrypoint] = [VAEntrypointVLD, VAEntrypointEncSlice]

    static let minSize = 16
    static let maxSize = 4096

    /// CQP uses the client's slice QP; CBR and VBR: RateController (native) or openh264's bitrate mode.
    static let rateControlModes = UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR)

    /// Packed headers the native engine inserts verbatim (as i965 and iHD); openh264 writes its own.
    static func packedHeaders(_ engine: EncoderEngine) -> UInt32 {
        engine == .native
            ? UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE | VA_ENC_PACKED_HEADER_SLICE
                | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA)
            : UInt32(VA_ENC_PACKED_HEADER_NONE)
    }

    static let notSupported: UInt32 = 0x8000_0000  // VA_ATTRIB_NOT_SUPPORTED

    static func supports(_ profile: VAProfile) -> Bool { profiles.contains(profile) }

    static func check(_ profile: VAProfile, _ entrypoint: VAEntrypoint) throws(VAError) {
        guard supports(profile) else { throw .unsupportedProfile }
        guard entrypoints.contains(entrypoint) else { throw .unsupportedEntrypoint }
    }

    /// The value of one config attribute, or VA_ATTRIB_NOT_SUPPORTED.
    static func attribute(_ type: VAConfigAttribType, entrypoint: VAEntrypoint, engine: EncoderEngine) -> UInt32 {
        switch type {
        case VAConfigAttribRTFormat:
            return UInt32(VA_RT_FORMAT_YUV420)
        case VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight:
            return UInt32(maxSize)
        case VAConfigAttribDecSliceMode where entrypoint == VAEntrypointVLD:
            return UInt32(VA_DEC_SLICE_MODE_NORMAL)
        case VAConfigAttribRateControl where entrypoint == VAEntrypointEncSlice:
            return rateControlModes
        case VAConfigAttribEncPackedHeaders where entrypoint == VAEntrypointEncSlice:
            return packedHeaders(engine)
        case VAConfigAttribEncMaxRefFrames where entrypoint == VAEntrypointEncSlice:
            // native: L0 4, L1 1 in the high half (as i965's EncSlice). openh264 predicts from one previous
            // picture and makes no B slices: L0 1, L1 0.
            return engine == .native ? 4 | 1 << 16 : 1
        case VAConfigAttribEncMaxSlices where entrypoint == VAEntrypointEncSlice:
            return engine == .native ? 32 : 1
        case VAConfigAttribEncSliceStructure where entrypoint == VAEntrypointEncSlice && engine == .native:
            // Slices of any macroblock counts, in order (as i965's EncSlice).
            return UInt32(VA_ENC_SLICE_STRUCTURE_ARBITRARY_MACROBLOCKS)
        case VAConfigAttribEncInterlaced where entrypoint == VAEntrypointEncSlice:
            return UInt32(VA_ENC_INTERLACED_NONE)
        default:
            return notSupported
        }
    }

    // MARK: Image formats

    static let imageFormats: [VAImageFormat] = [
        format(fourcc: VA_FOURCC_NV12),
        format(fourcc: VA_FOURCC_I420),
        format(fourcc: VA_FOURCC_YV12),
    ]

    private static func format(fourcc: Int32) -> VAImageFormat {
        var format = VAImageFormat()
        format.fourcc = UInt32(fourcc)
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = 12
        return format
    }
}
