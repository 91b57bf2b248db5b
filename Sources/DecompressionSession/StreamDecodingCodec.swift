import NALStream
import VideoAcceleration
import VTKMedia

/// What a front end that decodes or inspects whole streams (`vtk decode`, `vtk probe`) needs of one codec
/// beyond ``DecompressionCodec``: its ``VideoCodec``, what vtk refuses or warns about before decoding,
/// the bit depth, how a quick scan finds pictures and sizes, and how to make its session. Such front ends
/// are written once against it; ``H264Codec`` and ``H265Codec`` conform.
public protocol StreamDecodingCodec: DecompressionCodec where Format: CodecFormatDescription, Assembler: AnnexBAccessUnitAssembler {
    /// The codec's bitstream facts (name, parameter-set types, configuration record).
    static var videoCodec: VideoCodec { get }
    /// This codec's description in a ``FormatDescription`` of any codec; nil for another codec's.
    static func format(_ description: FormatDescription) -> Format?
    /// The job `--device auto` picks a device for (nil: the first device that initialises).
    static var deviceJob: VADeviceJob? { get }
    /// Makes a session; `format` is known before the first sample (an MP4's record), else nil.
    static func makeSession(format: Format?, connection: VADisplayConnection, outputFormat: PixelFormat) throws
        -> VADecompressionSession<Self>
    /// True when the codec can give 10-bit pictures (H.265 Main 10).
    static var decodesTenBit: Bool { get }
    /// Bits per luma sample of the pictures of an access unit's sequence (8 when it has no SPS yet).
    static func bitDepth(of unit: Assembler.AccessUnit) -> Int
    /// True when an MP4 track of the codec must carry its parameter sets in its configuration record
    /// (H.264 avc1); false when the samples may carry them (H.265 hev1).
    static var needsRecordParameterSets: Bool { get }
    /// The layout a session reads pictures back in: `nv12Wanted` when the caller's outputs take VA's NV12 as is.
    static func sessionOutputFormat(tenBit: Bool, nv12Wanted: Bool) -> PixelFormat
    /// Why vtk does not decode streams of `format` (nil when it does).
    static func refusal(for format: Format) -> String?
    /// Why vtk does not decode an access unit (nil when it does), told before any picture of it.
    static func refusal(for unit: Assembler.AccessUnit) -> String?
    /// A warning, once per stream, about what vtk had to infer from `format`'s parameter sets.
    static func warning(for format: Format) -> String?
    /// The same warning, from an access unit's parameter sets.
    static func warning(for unit: Assembler.AccessUnit) -> String?
    /// For a quick scan without decoding: true when the NAL unit is the first slice of a picture.
    static func startsPicture(_ unit: NALUnit) -> Bool
    /// For a quick scan without decoding: the display size of an SPS NAL unit (nil for other units).
    static func displaySize(ofSequenceParameterSet unit: NALUnit) -> (width: Int, height: Int)?
}

extension StreamDecodingCodec {
    /// The first NAL unit type of the codec's header (7.3.1 of H.264: one byte; 7.3.1.2 of H.265: two).
    static func nalUnitType(_ unit: NALUnit) -> UInt8 { videoCodec.nalUnitType(unit) }

    /// The byte after the NAL unit header: where a slice header starts.
    static func firstPayloadByte(_ unit: NALUnit) -> UInt8? {
        let bytes = unit.bytes, header = videoCodec.nalUnitHeaderSize
        return bytes.count > header ? bytes[bytes.startIndex + header] : nil
    }
}

/// An assembler that also takes an Annex B byte stream in chunks of any size.
public protocol AnnexBAccessUnitAssembler: DecodingAccessUnitAssembler {
    /// Adds a chunk of the stream; returns the access units it completed.
    mutating func append<C: Collection>(_ chunk: C) -> [AccessUnit] where C.Element == UInt8
}
