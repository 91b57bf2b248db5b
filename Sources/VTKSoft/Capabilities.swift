import CLibVA

/// What vtksoft can really do, as VA reports it.
enum Capabilities {
    static let vendor = "vtksoft: software VA-API driver (libavcodec decode, openh264 encode)"

    static let profiles: [VAProfile] = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High] + hevcProfiles
    static let entrypoints: [VAEntrypoint] = [VAEntrypointVLD, VAEntrypointEncSlice]

    static let minSize = 16
    static let maxSize = 4096

    /// CQP uses the client's slice QP; CBR and VBR map onto openh264's bitrate mode (see OpenH264Encoder).
    static let rateControlModes = UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR)

    static let notSupported: UInt32 = 0x8000_0000  // VA_ATTRIB_NOT_SUPPORTED

    static func supports(_ profile: VAProfile) -> Bool { profiles.contains(profile) }

    static func check(_ profile: VAProfile, _ entrypoint: VAEntrypoint) throws(VAError) {
        guard supports(profile) else { throw .unsupportedProfile }
        guard entrypoints(for: profile).contains(entrypoint) else { throw .unsupportedEntrypoint }
    }

    /// The value of one config attribute, or VA_ATTRIB_NOT_SUPPORTED.
    static func attribute(_ type: VAConfigAttribType, entrypoint: VAEntrypoint, profile: VAProfile? = nil) -> UInt32 {
        switch type {
        case VAConfigAttribRTFormat:
            return profile.map(rtFormats(for:)) ?? UInt32(VA_RT_FORMAT_YUV420)
        case VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight:
            return UInt32(maxSize)
        case VAConfigAttribDecSliceMode where entrypoint == VAEntrypointVLD:
            return UInt32(VA_DEC_SLICE_MODE_NORMAL)
        case VAConfigAttribRateControl where entrypoint == VAEntrypointEncSlice:
            return rateControlModes
        case VAConfigAttribEncPackedHeaders where entrypoint == VAEntrypointEncSlice:
            // The driver writes SPS, PPS and slice headers itself (openh264 does); client headers are not inserted.
            return UInt32(VA_ENC_PACKED_HEADER_NONE)
        case VAConfigAttribEncMaxRefFrames where entrypoint == VAEntrypointEncSlice:
            // openh264 predicts from one previous picture and makes no B slices: L0 1, L1 0.
            return 1
        case VAConfigAttribEncMaxSlices where entrypoint == VAEntrypointEncSlice:
            return 1
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
        format(fourcc: VA_FOURCC_P010, bitsPerPixel: 24),
    ]

    private static func format(fourcc: Int32, bitsPerPixel: UInt32 = 12) -> VAImageFormat {
        var format = VAImageFormat()
        format.fourcc = UInt32(fourcc)
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = bitsPerPixel
        return format
    }
}
