import VideoAcceleration
import VTKMedia

/// A decoded frame, in display order: its pixels in memory, or (from a session that lends surfaces, see
/// ``VADecompressionSession/surfaceFrameLimit``) the VA surface it was decoded into, held until the frame
/// is dropped, and read back only when its pixels are asked for.
public struct DecodedFrame: Sendable {
    /// Where the picture is.
    public var image: FrameImage
    /// Decoded from damaged input, or referring to pictures that were lost: the picture may be wrong
    /// (VideoToolbox would flag it kVTDecodeInfo_FrameDropped or leave it out).
    public var isDamaged: Bool
    /// Position of the frame's access unit in decoding order.
    public var decodeIndex: Int
    /// For interlaced content (H.264 field pairs, and frames of a stream with frame_mbs_only_flag 0 whose
    /// pic_struct or field order counts give an order), which field comes first in time; nil for progressive
    /// content. The frame itself holds both fields woven.
    public var fieldOrder: FieldOrder?

    public init(image: FrameImage, isDamaged: Bool, decodeIndex: Int, fieldOrder: FieldOrder?) {
        self.image = image
        self.isDamaged = isDamaged
        self.decodeIndex = decodeIndex
        self.fieldOrder = fieldOrder
    }

    /// The pixels in the session's output format. A surface-backed frame reads them back at each ask (a
    /// frame the device cannot read back gives a black picture here: ``pixels()`` says why).
    public var pixelBuffer: PixelBuffer {
        get { image.pixelBuffer }
        set { image = .pixels(newValue) }
    }

    /// The pixels in the session's output format, read back now for a surface-backed frame.
    public func pixels() throws -> PixelBuffer { try image.pixels() }

    /// The VA surface holding the picture, for a surface-backed frame.
    public var surface: DecodedSurface? { image.surface }

    public var presentationTime: MediaTime {
        get { image.presentationTime }
        set { image.presentationTime = newValue }
    }
}

/// A decoded picture: pixels in memory, or a VA surface that holds it; or only its size and time, once let
/// go (a frame dropped unseen, whose surface goes back to the pool at once).
public enum FrameImage: Sendable {
    case pixels(PixelBuffer)
    case surface(DecodedSurface)
    case released(width: Int, height: Int, presentationTime: MediaTime)

    /// The same picture's size and time, without its pixels or surface.
    public var released: FrameImage { .released(width: width, height: height, presentationTime: presentationTime) }

    public var width: Int {
        switch self {
        case .pixels(let buffer): buffer.width
        case .surface(let surface): surface.width
        case .released(let width, _, _): width
        }
    }

    public var height: Int {
        switch self {
        case .pixels(let buffer): buffer.height
        case .surface(let surface): surface.height
        case .released(_, let height, _): height
        }
    }

    /// When the picture is to be seen. Setting it restamps the same picture (a surface stays lent, not copied).
    public var presentationTime: MediaTime {
        get {
            switch self {
            case .pixels(let buffer): buffer.presentationTime
            case .surface(let surface): surface.presentationTime
            case .released(_, _, let time): time
            }
        }
        set {
            switch self {
            case .pixels(var buffer):
                buffer.presentationTime = newValue
                self = .pixels(buffer)
            case .surface(let surface):
                if surface.presentationTime != newValue { self = .surface(surface.retimed(newValue)) }
            case .released(let width, let height, _):
                self = .released(width: width, height: height, presentationTime: newValue)
            }
        }
    }

    /// How long the picture lasts, when the decoder said (a pixel buffer's duration); invalid otherwise.
    public var duration: MediaTime {
        if case .pixels(let buffer) = self { buffer.duration } else { .invalid }
    }

    public var surface: DecodedSurface? {
        if case .surface(let surface) = self { surface } else { nil }
    }

    /// The pixels, read back now from a surface.
    public func pixels() throws -> PixelBuffer {
        switch self {
        case .pixels(let buffer): buffer
        case .surface(let surface): try surface.pixels()
        case .released: throw DecompressionError.invalidated
        }
    }

    /// ``pixels()``, or a black picture of the same size when a surface cannot be read back or was released.
    public var pixelBuffer: PixelBuffer {
        switch self {
        case .pixels(let buffer): return buffer
        case .surface(let surface):
            if let pixels = try? surface.pixels() { return pixels }
            var black = PixelBuffer(format: surface.format, width: surface.width, height: surface.height)
            black.presentationTime = surface.presentationTime
            return black
        case .released(let width, let height, let time):
            var black = PixelBuffer(format: .nv12, width: width, height: height)
            black.presentationTime = time
            return black
        }
    }
}

/// The temporal order of the two fields of an interlaced frame.
public enum FieldOrder: String, Hashable, Sendable {
    case topFieldFirst = "top field first"
    case bottomFieldFirst = "bottom field first"
}

/// What happened during a session, for the caller to report.
public struct DecodeStatistics: Sendable {
    public var accessUnits = 0
    public var picturesDecoded = 0
    public var framesOutput = 0
    public var damagedFrames = 0
    /// Access units skipped (before the first keyframe, unsupported, or undecodable).
    public var accessUnitsSkipped = 0
    /// Frames the stream said not to output (no_output_of_prior_pics_flag).
    public var framesDiscarded = 0
    /// Frames that could not be read back from the device.
    public var framesDropped = 0
    /// The first problems met (at most 100), with their positions.
    public var problems: [String] = []
    public var problemCount = 0
    /// Things worth saying that are not problems (RASL pictures skipped where decoding started).
    public var notes: [String] = []

    public init() {}
}
