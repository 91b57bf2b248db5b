import H264Bitstream
import H264Decoding
import VideoAcceleration

/// Why a decompression session failed or refused something.
public enum DecompressionError: Error, Sendable, CustomStringConvertible {
    case unsupportedFormat(String)
    case bitstream(BitstreamError)
    case device(String)
    case invalidated
    case internalInconsistency(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let what): return "unsupported format: \(what)"
        case .bitstream(let error): return "\(error)"
        case .device(let what): return "VA device: \(what)"
        case .invalidated: return "the session was invalidated"
        case .internalInconsistency(let what): return "internal error: \(what)"
        }
    }
}
