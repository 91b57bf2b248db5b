import CLibVA

/// What vtksoft does for H.265: decode only (Main and Main 10, through libavcodec), P010 surfaces for Main 10.
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

extension BufferRules {
    /// The buffers of an H.265 decode context (va_dec_hevc.h): picture, scaling matrix, slice parameters
    /// (long format) and slice data; and the Q matrix, which is created but not rendered.
    static func checkHEVC(type: VABufferType, size: Int, count: Int) throws(VAError) {
        switch type {
        case VAPictureParameterBufferType:
            guard size == MemoryLayout<VAPictureParameterBufferHEVC>.size, count == 1 else { throw .invalidParameter }
        case VAIQMatrixBufferType:
            guard size == MemoryLayout<VAIQMatrixBufferHEVC>.size, count == 1 else { throw .invalidParameter }
        case VASliceParameterBufferType:
            guard size == MemoryLayout<VASliceParameterBufferHEVC>.size else { throw .invalidParameter }
        case VASliceDataBufferType:
            break
        case VAQMatrixBufferType:
            // va_enc_hevc.h's matrix: iHD and Mesa create it on a decode context (libva's test_va_api does);
            // rendering it is refused at vaEndPicture, as RenderedPicture takes no such buffer.
            guard size == MemoryLayout<VAQMatrixBufferHEVC>.size, count == 1 else { throw .invalidParameter }
        default:
            throw .unsupportedBufferType
        }
    }
}

/// The codec half of a decode context: turns one picture's rendered buffers into pixels in the target, in
/// two parts as hardware does: checked and built at vaEndPicture, decoded later on the display's worker.
protocol PictureDecoding: AnyObject {
    /// Checks the buffers (vaEndPicture's status) and builds the access unit; `violations` gets the
    /// parameters that contradict the slice data (see ``ParameterViolation``).
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit
    /// Decodes a prepared access unit into `surface` (on the worker; what it throws is vaSyncSurface's status).
    func decode(_ unit: PreparedAccessUnit, into surface: Surface) throws(VAError)
}

/// One picture's access unit as a decode session built it at vaEndPicture, with the coded picture size
/// its parameters gave, and for H.264 the field it codes and its frame_num (to pair fields).
struct PreparedAccessUnit {
    let bytes: [UInt8]
    let width: Int
    let height: Int
    var structure = PictureStructure.frame
    var frameNum = 0
}

extension H264DecodeSession: PictureDecoding {}
