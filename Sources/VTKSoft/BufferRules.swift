import CLibVA

/// Which buffer types each entrypoint takes, and the size each must have, so that a wrong buffer is
/// refused at vaCreateBuffer rather than misread at vaEndPicture.
enum BufferRules {
    /// `packedHeaders`: the encoder inserts packed headers (native engine), so their buffers are taken.
    static func check(type: VABufferType, size: Int, count: Int, decode: Bool, packedHeaders: Bool) throws(VAError) {
        if decode {
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
}
