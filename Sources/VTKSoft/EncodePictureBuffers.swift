import CLibVA

/// The buffers of one H.264 encode picture.
typealias EncodePictureBuffers = CodecEncodePictureBuffers<VAEncSequenceParameterBufferH264, VAEncPictureParameterBufferH264,
                                                           VAEncSliceParameterBufferH264>
/// The buffers of one H.265 encode picture.
typealias HEVCEncodePictureBuffers = CodecEncodePictureBuffers<VAEncSequenceParameterBufferHEVC, VAEncPictureParameterBufferHEVC,
                                                               VAEncSliceParameterBufferHEVC>

/// The buffers of one encode picture (vaBeginPicture … vaEndPicture) read into their C structs: sequence,
/// picture and slice parameters of the codec, misc parameters, and packed headers paired with their data.
struct CodecEncodePictureBuffers<Sequence, Picture, Slice> {
    var sequence: Sequence?
    var picture: Picture?
    var slices: [Slice] = []
    var rateControl: VAEncMiscParameterRateControl?
    var frameRate: VAEncMiscParameterFrameRate?
    var hrd: VAEncMiscParameterHRD?
    var maxFrameSize: Int?
    var packedHeaders: [PackedHeader] = []

    /// Reads `buffers` in render order. A packed header parameter buffer must be followed by its data
    /// buffer (libva's contract, and how i965 and iHD pair them); anything else is INVALID_PARAMETER.
    init(_ buffers: [RenderedBuffer]) throws(VAError) {
        var pendingPacked: VAEncPackedHeaderParameterBuffer?
        for buffer in buffers {
            if pendingPacked != nil, buffer.type != VAEncPackedHeaderDataBufferType {
                throw VAError.invalidParameter.because("packed header parameter buffer not followed by its data buffer")
            }
            switch buffer.type {
            case VAEncSequenceParameterBufferType:
                sequence = buffer.element(as: Sequence.self)
            case VAEncPictureParameterBufferType:
                picture = buffer.element(as: Picture.self)
            case VAEncSliceParameterBufferType:
                slices += (0..<buffer.elementCount).map { buffer.element($0, as: Slice.self) }
            case VAEncMiscParameterBufferType:
                try readMisc(buffer.bytes)
            case VAEncPackedHeaderParameterBufferType:
                pendingPacked = buffer.element(as: VAEncPackedHeaderParameterBuffer.self)
            case VAEncPackedHeaderDataBufferType:
                guard let parameter = pendingPacked else { throw VAError.invalidParameter.because("packed header data buffer without its parameter buffer") }
                pendingPacked = nil
                packedHeaders.append(try PackedHeader(parameter: parameter, data: buffer.bytes, nextSlice: slices.count))
            default:
                throw .invalidBuffer
            }
        }
        if pendingPacked != nil { throw VAError.invalidParameter.because("packed header parameter buffer not followed by its data buffer") }
    }

    /// Misc parameters a rate-controlling driver takes; ones vtksoft has no use for are accepted and
    /// ignored (i965 and iHD ignore types they do not handle), unknown types refused.
    private mutating func readMisc(_ bytes: [UInt8]) throws(VAError) {
        let header = MemoryLayout<VAEncMiscParameterBuffer>.size
        let type = bytes.withUnsafeBytes { $0.loadUnaligned(as: VAEncMiscParameterBuffer.self) }.type
        func payload<T>(_: T.Type) throws(VAError) -> T {
            guard bytes.count >= header + MemoryLayout<T>.size else { throw .invalidParameter }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: header, as: T.self) }
        }
        switch type {
        case VAEncMiscParameterTypeRateControl: rateControl = try payload(VAEncMiscParameterRateControl.self)
        case VAEncMiscParameterTypeFrameRate: frameRate = try payload(VAEncMiscParameterFrameRate.self)
        case VAEncMiscParameterTypeHRD: hrd = try payload(VAEncMiscParameterHRD.self)
        case VAEncMiscParameterTypeMaxFrameSize:
            maxFrameSize = Int(try payload(VAEncMiscParameterBufferMaxFrameSize.self).max_frame_size)
        case VAEncMiscParameterTypeQualityLevel: _ = try payload(VAEncMiscParameterBufferQualityLevel.self)
        default: throw .unsupportedBufferType
        }
    }
}

extension CodecEncodePictureBuffers {
    /// Frames per second from the frame-rate misc parameter (numerator | denominator << 16), else `timing`
    /// (from the sequence's VUI), else 30.
    static func framesPerSecond(_ frameRate: VAEncMiscParameterFrameRate?, timing: Double?) -> Double {
        if let fr = frameRate?.framerate, fr != 0 {
            let numerator = Double(fr & 0xffff), denominator = Double(fr >> 16)
            return denominator == 0 ? numerator : numerator / denominator
        }
        return timing ?? 30
    }
}

extension CodecEncodePictureBuffers where Sequence == VAEncSequenceParameterBufferH264 {
    /// Frames per second from the frame-rate misc parameter (numerator | denominator << 16), else the
    /// sequence's VUI timing (two ticks per frame, E.2.1), else 30.
    static func framesPerSecond(_ frameRate: VAEncMiscParameterFrameRate?, _ seq: VAEncSequenceParameterBufferH264) -> Double {
        framesPerSecond(frameRate, timing: vuiFramesPerSecond(seq))
    }

    /// The sequence's VUI timing in frames per second (two ticks per frame, E.2.1), nil when it states none.
    static func vuiFramesPerSecond(_ seq: VAEncSequenceParameterBufferH264) -> Double? {
        seq.num_units_in_tick > 0 && seq.time_scale > 0 ? Double(seq.time_scale) / Double(2 * seq.num_units_in_tick) : nil
    }
}
