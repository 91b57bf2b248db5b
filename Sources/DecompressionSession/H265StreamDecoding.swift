import H265Bitstream
import NALStream
import VideoAcceleration
import VTKMedia

/// H.265 for stream front ends: Main 10 gives 10-bit pictures (the session reads P010, outputs convert), hev1
/// tracks carry their parameter sets in band, and a stream whose profile is inferred gets a warning.
extension H265Codec: StreamDecodingCodec {
    public static var videoCodec: VideoCodec { .h265 }
    public static func format(_ description: FormatDescription) -> H265FormatDescription? { description.hevc }
    public static var deviceJob: VADeviceJob? { nil }

    public static func makeSession(format: H265FormatDescription?, connection: VADisplayConnection,
                                   outputFormat: PixelFormat) throws -> H265DecompressionSession {
        try H265DecompressionSession(formatDescription: format, connection: connection, outputFormat: outputFormat)
    }

    public static var decodesTenBit: Bool { true }
    public static func bitDepth(of unit: H265AccessUnit) -> Int {
        unit.parameterSets.sps.values.contains { $0.bitDepthLuma > 8 } ? 10 : 8
    }
    public static var needsRecordParameterSets: Bool { false }

    /// The surface's own layout (P010 for 10-bit, NV12 for 8-bit); outputs convert as they need.
    public static func sessionOutputFormat(tenBit: Bool, nv12Wanted: Bool) -> PixelFormat { tenBit ? .p010 : .nv12 }

    public static func refusal(for format: H265FormatDescription) -> String? { nil }
    public static func refusal(for unit: H265AccessUnit) -> String? { nil }
    public static func warning(for format: H265FormatDescription) -> String? { H265ProfileInference.warning(for: format.sps) }
    public static func warning(for unit: H265AccessUnit) -> String? {
        unit.parameterSets.sps.values.lazy.compactMap(H265ProfileInference.warning(for:)).first
    }

    /// A coded slice segment (types 0...21, 7.4.2.2) with first_slice_segment_in_pic_flag set (7.3.6.1).
    public static func startsPicture(_ unit: NALUnit) -> Bool {
        nalUnitType(unit) <= 21 && (firstPayloadByte(unit) ?? 0) & 0x80 != 0
    }

    public static func displaySize(ofSequenceParameterSet unit: NALUnit) -> (width: Int, height: Int)? {
        guard nalUnitType(unit) == 33, let sps = try? H265SequenceParameterSet(nalUnit: unit) else { return nil }
        return (sps.displayWidth, sps.displayHeight)
    }
}

extension H265AccessUnitAssembler: AnnexBAccessUnitAssembler {}
