import H264Bitstream
import H264Decoding
import VideoAcceleration
import VTKMedia

/// H.264 decoding through VA-API, shaped like VideoToolbox's VTDecompressionSession (see
/// ``VADecompressionSession``). New SPS/PPS that change the size or profile drain the old pictures and
/// re-create the VA context.
public typealias H264DecompressionSession = VADecompressionSession<H264Codec>

/// H.264 as ``VADecompressionSession`` decodes it: clause 8 in ``H264DecodingProcess``, VA in H264VAAccelerator.
public enum H264Codec: DecompressionCodec {
    public typealias Assembler = AccessUnitAssembler
    public typealias Process = H264DecodingProcess

    public static func parameterSets(of format: H264FormatDescription) -> [NALUnit] {
        format.sequenceParameterSets + format.pictureParameterSets
    }

    /// An encoder's samples carry their SPS/PPS in their format description.
    public static func format(of sample: SampleBuffer) -> H264FormatDescription? { sample.formatDescription?.avc }

    public static var blockName: String { "macroblock" }

    public static func skipsAccessUnit(_ problem: DecodingError) -> Bool {
        switch problem {
        case .waitingForKeyframe, .unsupportedStream: return true
        default: return false
        }
    }

    public static func note(for problem: DecodingError) -> String? { nil }
}

extension VADecompressionSession where Codec == H264Codec {
    /// - Parameters:
    ///   - formatDescription: parameter sets known before the first sample (nil when they come in band).
    ///   - device: the VA device; `.automatic` prefers hardware, then vtksoft.
    ///   - outputFormat: NV12 (VA's own layout) or I420.
    public convenience init(formatDescription: H264FormatDescription?, device: VADeviceChoice = .automatic,
                            outputFormat: PixelFormat = .nv12) throws {
        try self.init(formatDescription: formatDescription, connection: VADisplayConnection.open(device, for: .decode(nil)), outputFormat: outputFormat)
    }

    public convenience init(formatDescription: H264FormatDescription?, connection: VADisplayConnection, outputFormat: PixelFormat = .nv12) throws {
        if let formatDescription { _ = try H264VAAccelerator.profile(for: formatDescription.sps) }
        self.init(formatDescription: formatDescription, connection: connection, outputFormat: outputFormat,
                  accelerator: H264VAAccelerator(connection: connection))
    }

    /// True when this session can decode samples of `format` without being re-created.
    public func canAccept(_ format: H264FormatDescription) -> Bool {
        guard let current = formatDescription else { return true }
        return !format.requiresNewDecoder(comparedTo: current)
    }
}

extension H264FormatDescription: DecodingFormat {}
extension AccessUnit: DecodingAccessUnit {}
extension AccessUnitAssembler: DecodingAccessUnitAssembler {}
extension DecodedPicture: DecodingPicture {
    public var fieldOrder: FieldOrder? { topFieldFirst.map { $0 ? .topFieldFirst : .bottomFieldFirst } }
}
extension H264DecodingProcess: DecodingProcess {}

extension PictureDecodeRequest: DecodingPictureRequest {
    public var firstSliceOffset: Int { slices.first?.slice.nalUnit.offset ?? 0 }
}
