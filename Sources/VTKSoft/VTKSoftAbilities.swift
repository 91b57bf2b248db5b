import CLibVA

/// What vtksoft itself can run, whatever a persona lists: H.264 decode and encode, H.265 Main and Main 10
/// decode and encode, 4:2:0 in 8 and 10 bits (and H.264 4:0:0), and the rate control modes it implements.
enum VTKSoftAbilities {
    static let h264: [VAProfile] = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
    static let minSize = 16
    static let rateControl = UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR)
    /// YUV400: H.264 4:0:0 decodes into NV12-laid-out surfaces (``SurfaceFormat``).
    static let rtFormats = UInt32(VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10 | VA_RT_FORMAT_YUV400)

    static func runs(_ profile: VAProfile, _ entrypoint: VAEntrypoint) -> Bool {
        (h264.contains(profile) && [VAEntrypointVLD, VAEntrypointEncSlice, VAEntrypointEncSliceLP].contains(entrypoint))
            || (isHEVC(profile) && [VAEntrypointVLD, VAEntrypointEncSlice, VAEntrypointEncSliceLP].contains(entrypoint))
    }

    /// The value advertised for a listed one: modes and formats vtksoft lacks are taken out.
    static func narrow(_ type: VAConfigAttribType, _ value: UInt32) -> UInt32 {
        guard value != Persona.notSupported else { return value }
        switch type {
        case VAConfigAttribRateControl: return value & rateControl
        case VAConfigAttribRTFormat: return value & rtFormats
        default: return value
        }
    }
}

/// What vtksoft does for H.265: decode (Main and Main 10, through libavcodec) and encode (its own engine,
/// H265Encoding), P010 surfaces for Main 10.
extension VTKSoftAbilities {
    static let hevcProfiles: [VAProfile] = [VAProfileHEVCMain, VAProfileHEVCMain10]

    static func isHEVC(_ profile: VAProfile) -> Bool { hevcProfiles.contains(profile) }

    /// VAConfigAttribRTFormat of a profile: Main 10 decodes 10-bit streams into P010 surfaces, and 8-bit
    /// ones (a Main 10 stream may be 8-bit, A.3.3) into NV12, as hardware drivers do.
    static func rtFormats(for profile: VAProfile) -> UInt32 {
        profile == VAProfileHEVCMain10 ? UInt32(VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10) : UInt32(VA_RT_FORMAT_YUV420)
    }

    /// The surface pixel formats a profile decodes into.
    static func surfaceFourccs(for profile: VAProfile) -> [UInt32] {
        profile == VAProfileHEVCMain10 ? [ImageLayout.p010, ImageLayout.nv12] : [ImageLayout.nv12]
    }
}
