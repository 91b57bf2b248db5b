/// What every codec's format description tells a caller that does not know the codec: the parameter sets,
/// how samples frame their NAL units, the picture sizes and the timing the stream declares.
public protocol CodecFormatDescription: Sendable, CustomStringConvertible {
    /// The codec described.
    var videoCodec: VideoCodec { get }
    /// The parameter sets in the order a decoder takes them in front of a sync sample (H.265: VPS, SPS,
    /// PPS; H.264: SPS, PPS), header included, emulation prevention in.
    var parameterSetNALUnits: [NALUnit] { get }
    /// Byte size of the length before each NAL unit in a sample: 1, 2 or 4.
    var nalUnitLengthSize: Int { get }
    var codedWidth: Int { get }
    var codedHeight: Int { get }
    /// Width after cropping.
    var displayWidth: Int { get }
    /// Height after cropping.
    var displayHeight: Int { get }
    /// Sample (pixel) aspect ratio; 1:1 when the stream does not say.
    var sampleAspectRatio: (width: Int, height: Int) { get }
    /// Frames per second from the VUI timing, when present.
    var frameRate: (numerator: Int, denominator: Int)? { get }
}

/// The format description a ``SampleBuffer`` carries, like Core Media's CMVideoFormatDescription: one
/// codec's description. H264Bitstream reads the H.264 case (`avc`), H265Bitstream the H.265 case (`hevc`).
///
/// Two descriptions are `==` when they are of the same codec and their parameter sets and NAL length
/// size are the same bytes.
public enum FormatDescription: Hashable, Sendable, CustomStringConvertible {
    /// An H.264 description (avcC, ISO/IEC 14496-15 5.3.3).
    case h264(any CodecFormatDescription)
    /// An H.265 description (hvcC, ISO/IEC 14496-15 8.3.3).
    case h265(any CodecFormatDescription)

    /// The codec's own description, through its codec-neutral view.
    public var codecDescription: any CodecFormatDescription {
        switch self {
        case .h264(let description), .h265(let description): description
        }
    }

    /// The codec described (what MP4 and RTP ask instead of switching on the case).
    public var videoCodec: VideoCodec { codecDescription.videoCodec }
    public var parameterSetNALUnits: [NALUnit] { codecDescription.parameterSetNALUnits }
    public var nalUnitLengthSize: Int { codecDescription.nalUnitLengthSize }
    public var codedWidth: Int { codecDescription.codedWidth }
    public var codedHeight: Int { codecDescription.codedHeight }
    public var displayWidth: Int { codecDescription.displayWidth }
    public var displayHeight: Int { codecDescription.displayHeight }
    public var sampleAspectRatio: (width: Int, height: Int) { codecDescription.sampleAspectRatio }
    public var frameRate: (numerator: Int, denominator: Int)? { codecDescription.frameRate }
    public var description: String { codecDescription.description }

    private var isH264: Bool {
        if case .h264 = self { true } else { false }
    }

    public static func == (a: FormatDescription, b: FormatDescription) -> Bool {
        a.isH264 == b.isH264 && a.nalUnitLengthSize == b.nalUnitLengthSize
            && a.parameterSetNALUnits.map(\.bytes).elementsEqual(b.parameterSetNALUnits.map(\.bytes))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(isH264)
        hasher.combine(nalUnitLengthSize)
        for unit in parameterSetNALUnits { hasher.combine(Array(unit.bytes)) }
    }
}
