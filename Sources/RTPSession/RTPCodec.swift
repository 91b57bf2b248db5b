import DecompressionSession
import H264Bitstream
import H265Bitstream
import NALStream
import RTP
import VideoAcceleration
import VTKMedia

/// An access unit as a receiver sees it: enough to flag damage and to decide on keyframe requests.
public protocol ReceivedAccessUnit: DecodingAccessUnit {
    var nalUnits: [NALUnit] { get }
    /// No problem was found in it.
    var isIntact: Bool { get }
    /// A picture decoding can restart from: an IDR (H.264), an IRAP picture (H.265).
    var isKeyframe: Bool { get }
    /// Its first slice starts the picture (first_mb_in_slice 0; first_slice_segment_in_pic_flag 1).
    var startsAtFirstSlice: Bool { get }
    /// Later pictures may refer to it.
    var isReference: Bool { get }
    mutating func flagDamage(_ reason: String)
}

/// What RTP adds to a codec's decompression: its payload format and how a receiver starts its session.
/// Receivers, senders and the picture decoder are written once against it; ``RTPCodecs`` finds the
/// codec of a ``VideoCodec`` value.
public protocol RTPCodec: DecompressionCodec where Assembler.AccessUnit: ReceivedAccessUnit, Format: CodecFormatDescription {
    associatedtype PayloadFormat: NALPayloadFormat
    /// The codec's description (names, parameter sets, SDP keys).
    static var videoCodec: VideoCodec { get }
    /// True when the session is made at the first picture, whose SPS decides the output layout; false
    /// when it is made before the first packet.
    static var sessionWaitsForFirstPicture: Bool { get }
    /// The frames' layout when the caller asks none, for a stream whose first picture is `unit`.
    static func defaultOutputFormat(firstPicture unit: Assembler.AccessUnit?) -> PixelFormat
    static func makeSession(connection: VADisplayConnection, outputFormat: PixelFormat) throws -> VADecompressionSession<Self>
    /// The frame rate a Y4M header is given: H.264's as the VUI says it, H.265's in lowest terms (as they always were).
    static func headerFrameRate(_ format: Format) -> (Int, Int)?
    /// The format description of the parameter sets an access unit was assembled with (for an SDP).
    static func parameterSetFormat(of unit: Assembler.AccessUnit) -> Format?
}

extension H264Codec: RTPCodec {
    public typealias PayloadFormat = H264PayloadFormat
    public static var videoCodec: VideoCodec { .h264 }
    public static var sessionWaitsForFirstPicture: Bool { false }
    public static func defaultOutputFormat(firstPicture unit: AccessUnit?) -> PixelFormat { .i420 }
    public static func makeSession(connection: VADisplayConnection, outputFormat: PixelFormat) throws -> H264DecompressionSession {
        try H264DecompressionSession(formatDescription: nil, connection: connection, outputFormat: outputFormat)
    }
    public static func headerFrameRate(_ format: H264FormatDescription) -> (Int, Int)? { format.frameRate.map { ($0.numerator, $0.denominator) } }
    public static func parameterSetFormat(of unit: AccessUnit) -> H264FormatDescription? { try? H264FormatDescription(parameterSets: unit.parameterSets) }
}

extension H265Codec: RTPCodec {
    public typealias PayloadFormat = H265PayloadFormat
    public static var videoCodec: VideoCodec { .h265 }
    public static var sessionWaitsForFirstPicture: Bool { true }
    /// I420, or yuv420p10 for Main 10.
    public static func defaultOutputFormat(firstPicture unit: H265AccessUnit?) -> PixelFormat {
        (unit?.parameterSets.sps.values.contains { $0.bitDepthLuma > 8 } ?? false) ? .yuv420p10 : .i420
    }
    public static func makeSession(connection: VADisplayConnection, outputFormat: PixelFormat) throws -> H265DecompressionSession {
        try H265DecompressionSession(formatDescription: nil, connection: connection, outputFormat: outputFormat)
    }
    public static func headerFrameRate(_ format: H265FormatDescription) -> (Int, Int)? {
        format.frameRate.map { lowestTerms($0.numerator, $0.denominator) }
    }
    public static func parameterSetFormat(of unit: H265AccessUnit) -> H265FormatDescription? { try? H265FormatDescription(parameterSets: unit.parameterSets) }
}

/// (60, 2) is (30, 1).
func lowestTerms(_ numerator: Int, _ denominator: Int) -> (Int, Int) {
    var a = abs(numerator), b = abs(denominator)
    while b != 0 { (a, b) = (b, a % b) }
    return a > 1 ? (numerator / a, denominator / a) : (numerator, denominator)
}

extension AccessUnit: ReceivedAccessUnit {
    public var isIntact: Bool { problems.isEmpty }
    public var isKeyframe: Bool { isIDR }
    public var startsAtFirstSlice: Bool { slices.first?.header.firstMbInSlice == 0 }
    public var isReference: Bool { isIDR || slices.contains { $0.header.nalRefIdc != 0 } }
    public mutating func flagDamage(_ reason: String) { problems.append(.malformedNALUnit(byteOffset: offset, reason: reason)) }
}

extension H265AccessUnit: ReceivedAccessUnit {
    public var isIntact: Bool { problems.isEmpty }
    public var isKeyframe: Bool { slices.first?.header.nalUnitType.isIRAP ?? false }
    public var startsAtFirstSlice: Bool { slices.first?.header.firstSliceSegmentInPicFlag ?? false }
    public var isReference: Bool { slices.contains { !$0.header.nalUnitType.isSubLayerNonReference } }
    public mutating func flagDamage(_ reason: String) { problems.append(.malformedNALUnit(byteOffset: offset, reason: reason)) }
}

/// Work to do with one codec's static type, given the codec as a value (`vtk receive --codec h265`).
public protocol RTPCodecWork {
    associatedtype Result
    func run<Codec: RTPCodec>(_ codec: Codec.Type) throws -> Result
}

/// The codecs vtk carries over RTP, and the one place a ``VideoCodec`` value becomes a static type.
public enum RTPCodecs {
    public static var all: [any RTPCodec.Type] { DecodableCodecs.all.compactMap { $0 as? any RTPCodec.Type } }

    /// The codec's RTP binding; nil for a codec RTP does not carry.
    public static func binding(for codec: VideoCodec) -> (any RTPCodec.Type)? {
        DecodableCodecs.type(of: codec, as: (any RTPCodec.Type).self)
    }

    /// Runs `work` with the static type of `codec` (H.264 when RTP does not carry it).
    public static func run<Work: RTPCodecWork>(_ work: Work, for codec: VideoCodec) throws -> Work.Result {
        let binding: any RTPCodec.Type = binding(for: codec) ?? H264Codec.self
        return try work.run(binding)
    }

    /// The codec an SDP's rtpmap names.
    public static func codec(of description: SessionDescription) -> VideoCodec {
        all.first { $0.videoCodec.rtpEncodingName == description.codec.rawValue }?.videoCodec ?? .h264
    }

    /// The rtpmap encoding of `codec`.
    public static func sessionCodec(_ codec: VideoCodec) -> SessionDescription.Codec {
        SessionDescription.Codec(rawValue: codec.rtpEncodingName) ?? .h264
    }
}
