import H264Bitstream
import NALStream
import VideoAcceleration
import VTKMedia

/// H.264 for stream front ends: streams ``H264StreamSupport`` refuses, 8-bit pictures only, and a session
/// that reads back NV12 or I420 as the outputs want.
extension H264Codec: StreamDecodingCodec {
    public static var videoCodec: VideoCodec { .h264 }
    public static func format(_ description: FormatDescription) -> H264FormatDescription? { description.avc }
    public static var deviceJob: VADeviceJob? { .decode(nil) }

    public static func makeSession(format: H264FormatDescription?, connection: VADisplayConnection,
                                   outputFormat: PixelFormat) throws -> H264DecompressionSession {
        try H264DecompressionSession(formatDescription: format, connection: connection, outputFormat: outputFormat)
    }

    public static var decodesTenBit: Bool { false }
    public static func bitDepth(of unit: AccessUnit) -> Int { 8 }
    public static var needsRecordParameterSets: Bool { true }

    /// Checksums, Y4M, PNG and raw I420 want I420, converted as frames leave the surface; raw NV12, or no
    /// output at all, want the surface's own NV12.
    public static func sessionOutputFormat(tenBit: Bool, nv12Wanted: Bool) -> PixelFormat { nv12Wanted ? .nv12 : .i420 }

    public static func refusal(for format: H264FormatDescription) -> String? { H264StreamSupport.refusal(for: format.sps) }
    public static func refusal(for unit: AccessUnit) -> String? { H264StreamSupport.refusal(for: unit) }
    public static func warning(for format: H264FormatDescription) -> String? { nil }
    public static func warning(for unit: AccessUnit) -> String? { nil }

    /// A coded slice (types 1 and 5) with first_mb_in_slice 0: its ue(v) code is the single bit 1 (7.3.3).
    public static func startsPicture(_ unit: NALUnit) -> Bool {
        [1, 5].contains(nalUnitType(unit)) && (firstPayloadByte(unit) ?? 0) & 0x80 != 0
    }

    public static func displaySize(ofSequenceParameterSet unit: NALUnit) -> (width: Int, height: Int)? {
        guard nalUnitType(unit) == 7, let sps = try? SequenceParameterSet(nalUnit: unit) else { return nil }
        return (sps.displayWidth, sps.displayHeight)
    }
}

extension AccessUnitAssembler: AnnexBAccessUnitAssembler {}
