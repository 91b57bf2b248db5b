import CLibVA

/// Which buffer types each entrypoint takes, and the size each must have, so that a wrong buffer is
/// refused at vaCreateBuffer rather than misread at vaEndPicture.
enum BufferRules {
    /// `packedHeaders`: the encoder inserts packed headers (native engine), so their buffers are taken.
    static func check(type: VABufferType, size: Int, count: Int, decode: Bool, packedHeaders: Bool, hevc: Bool = false) throws(VAError) {
        if decode && hevc {
            try checkHEVC(type: type, size: size, count: count)
        } else if hevc {
            try checkHEVCEncode(type: type, size: size, count: count)
        } else if decode {
            switch type {
            case VAPictureParameterBufferType:
                try exact(size, VAPictureParameterBufferH264.self, count: count, single: true)
            case VAIQMatrixBufferType:
                try exact(size, VAIQMatrixBufferH264.self, count: count, single: true)
            case VASliceParameterBufferType:
                try exact(size, VASliceParameterBufferH264.self, count: count, single: false)
            case VASliceDataBufferType:
                break
            default:
                throw .unsupportedBufferType
            }
        } else {
            switch type {
            case VAEncSequenceParameterBufferType:
                try exact(size, VAEncSequenceParameterBufferH264.self, count: count, single: true)
            case VAEncPictureParameterBufferType:
                try exact(size, VAEncPictureParameterBufferH264.self, count: count, single: true)
            case VAEncSliceParameterBufferType:
                try exact(size, VAEncSliceParameterBufferH264.self, count: count, single: false)
            case VAEncMiscParameterBufferType:
                guard size >= MemoryLayout<VAEncMiscParameterBuffer>.size, count == 1 else { throw .invalidParameter }
            case VAEncCodedBufferType:
                break
            case VAEncPackedHeaderParameterBufferType where packedHeaders:
                try exact(size, VAEncPackedHeaderParameterBuffer.self, count: count, single: true)
            case VAEncPackedHeaderDataBufferType where packedHeaders:
                guard count == 1 else { throw .invalidParameter }
            default:
                // Packed headers with openh264: it reports VA_ENC_PACKED_HEADER_NONE and does not insert them.
                throw .unsupportedBufferType
            }
        }
    }

    private static func exact<T>(_ size: Int, _: T.Type, count: Int, single: Bool) throws(VAError) {
        guard size == MemoryLayout<T>.size, !single || count == 1 else { throw .invalidParameter }
    }

    /// Size of the payload a misc parameter type needs after its VAEncMiscParameterBuffer header.
    static func miscPayloadSize(_ type: VAEncMiscParameterType) -> Int? {
        switch type {
        case VAEncMiscParameterTypeRateControl: return MemoryLayout<VAEncMiscParameterRateControl>.size
        case VAEncMiscParameterTypeFrameRate: return MemoryLayout<VAEncMiscParameterFrameRate>.size
        case VAEncMiscParameterTypeHRD: return MemoryLayout<VAEncMiscParameterHRD>.size
        case VAEncMiscParameterTypeMaxFrameSize: return MemoryLayout<VAEncMiscParameterBufferMaxFrameSize>.size
        case VAEncMiscParameterTypeQualityLevel: return MemoryLayout<VAEncMiscParameterBufferQualityLevel>.size
        default: return nil
        }
    }

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

    /// The buffers of an H.265 encode context (va_enc_hevc.h): sequence, picture and slice parameters, and
    /// the codec-neutral misc, packed header and coded buffers (the HEVC engine always inserts packed headers).
    static func checkHEVCEncode(type: VABufferType, size: Int, count: Int) throws(VAError) {
        switch type {
        case VAEncSequenceParameterBufferType:
            try exact(size, VAEncSequenceParameterBufferHEVC.self, count: count, single: true)
        case VAEncPictureParameterBufferType:
            try exact(size, VAEncPictureParameterBufferHEVC.self, count: count, single: true)
        case VAEncSliceParameterBufferType:
            try exact(size, VAEncSliceParameterBufferHEVC.self, count: count, single: false)
        default:
            try check(type: type, size: size, count: count, decode: false, packedHeaders: true)
        }
    }
}
