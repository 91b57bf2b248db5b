import H264Bitstream
import VideoAcceleration
import VTKMedia

/// Why a compression session refused a setting or a frame, or failed.
public enum CompressionError: Error, Sendable, CustomStringConvertible {
    /// Width or height zero, odd (4:2:0 crops in 2-pixel units, 7.4.2.1.1) or beyond what the driver takes.
    case invalidDimensions(width: Int, height: Int, reason: String)
    /// The driver has no H.264 encoder for this profile.
    case unsupportedProfile(String)
    /// The driver does not report this rate-control mode (VAConfigAttribRateControl); `driver` names it and its entrypoint.
    case unsupportedRateControl(requested: String, supported: [String], driver: String)
    case invalidBitRate(Int)
    case invalidQuantizer(Int)
    case invalidKeyFrameInterval(String)
    case invalidFrameRate(Double)
    case invalidLevel(Int)
    /// CABAC in Constrained Baseline (A.2.1 forbids it).
    case unsupportedEntropyMode(String)
    /// B-frames asked for where the driver has no list-1 references, or not implemented.
    case frameReorderingUnsupported(String)
    case invalidFramesInFlight(Int)
    case invalidReferenceCount(Int)
    /// A frame of another size than the session's.
    case frameSizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// Planes missing or too small for the format and size the buffer claims.
    case invalidPixelBuffer(String)
    /// No numeric presentation time.
    case invalidTimestamp(String)
    /// A presentation time not later than the one before (frames come in display order).
    case timestampNotIncreasing(previous: MediaTime, given: MediaTime)
    /// The VA device could not be opened.
    case deviceUnavailable(String)
    /// A VA call failed.
    case device(VAError)
    /// The driver's coded output could not be parsed.
    case bitstream(BitstreamError)
    /// The driver's coded output lacks something a sample needs (slices, parameter sets).
    case driverOutput(String)
    case invalidated

    public var description: String {
        switch self {
        case let .invalidDimensions(w, h, reason): return "invalid frame size \(w)x\(h): \(reason)"
        case .unsupportedProfile(let what): return "unsupported profile: \(what)"
        case let .unsupportedRateControl(requested, supported, driver):
            return "rate control \(requested) is not supported by \(driver) (it offers: \(supported.isEmpty ? "none" : supported.joined(separator: ", ")))"
        case .invalidBitRate(let bits): return "invalid bit rate \(bits) bit/s: CBR and VBR need a positive average bit rate"
        case .invalidQuantizer(let qp): return "invalid QP \(qp): H.264 QPs are 0...51"
        case .invalidKeyFrameInterval(let what): return "invalid key frame interval: \(what)"
        case .invalidFrameRate(let rate): return "invalid expected frame rate \(rate)"
        case .invalidLevel(let level): return "invalid or too small level_idc \(level) for this size, rate and bit rate (Table A-1)"
        case .unsupportedEntropyMode(let what): return "unsupported entropy mode: \(what)"
        case .frameReorderingUnsupported(let why): return "frame reordering (B-frames) unavailable: \(why)"
        case .invalidFramesInFlight(let n): return "invalid frames in flight \(n): 1...16"
        case .invalidReferenceCount(let n): return "invalid reference frame count \(n): 1...16"
        case let .frameSizeMismatch(ew, eh, w, h): return "frame is \(w)x\(h), the session encodes \(ew)x\(eh)"
        case .invalidPixelBuffer(let why): return "invalid pixel buffer: \(why)"
        case .invalidTimestamp(let why): return "invalid timestamp: \(why)"
        case let .timestampNotIncreasing(previous, given):
            return "presentation time \(given) is not after the previous frame's \(previous): times must increase"
        case .deviceUnavailable(let why): return "VA device unavailable: \(why)"
        case .device(let error): return "\(error)"
        case .bitstream(let error): return "coded output: \(error)"
        case .driverOutput(let why): return "driver output: \(why)"
        case .invalidated: return "the session was invalidated"
        }
    }
}
