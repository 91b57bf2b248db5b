import H264Bitstream
import H265Bitstream
import H265Decoding
import VideoAcceleration
import VTKMedia

/// H.265 decoding through VA-API, shaped like ``H264DecompressionSession`` (and VideoToolbox's
/// VTDecompressionSession made from CMVideoFormatDescriptionCreateFromHEVCParameterSets).
///
/// Hand it access units (``VADecompressionSession/decode(accessUnit:presentationTime:)``) or samples in
/// decoding order; frames come out in display order, cropped to the conformance window: NV12 or I420 for
/// 8-bit streams, and for Main 10 whatever `outputFormat` asks (P010, yuv420p10, or 8-bit layouts shifted down).
public typealias H265DecompressionSession = VADecompressionSession<H265Codec>

/// H.265 as ``VADecompressionSession`` decodes it: clause 8 in ``H265DecodingProcess``, VA in H265VAAccelerator.
public enum H265Codec: DecompressionCodec {
    public typealias Assembler = H265AccessUnitAssembler
    public typealias Process = H265DecodingProcess

    public static func parameterSets(of format: H265FormatDescription) -> [NALUnit] {
        format.videoParameterSets + format.sequenceParameterSets + format.pictureParameterSets
    }

    /// The sample's H.265 description, when it carries one (else the parameter sets come in band).
    public static func format(of sample: SampleBuffer) -> H265FormatDescription? { sample.formatDescription?.hevc }

    /// VA counts coding blocks, not macroblocks, for H.265.
    public static var blockName: String { "block" }

    public static func skipsAccessUnit(_ problem: H265DecodingProblem) -> Bool {
        switch problem {
        case .waitingForKeyframe, .unsupportedStream, .skippedRASL: return true
        default: return false
        }
    }

    /// RASL pictures are not a problem: a decoder starting at a CRA must skip them (8.1.3).
    public static func note(for problem: H265DecodingProblem) -> String? {
        guard case let .skippedRASL(offset, poc) = problem else { return nil }
        return "RASL picture at byte \(offset) (POC \(poc)) skipped: decoding started at its CRA"
    }
}

extension VADecompressionSession where Codec == H265Codec {
    public convenience init(formatDescription: H265FormatDescription?, connection: VADisplayConnection, outputFormat: PixelFormat = .nv12) throws {
        if let formatDescription { _ = try H265VAAccelerator.profile(for: formatDescription.sps) }
        self.init(formatDescription: formatDescription, connection: connection, outputFormat: outputFormat,
                  accelerator: H265VAAccelerator(connection: connection))
    }

    /// True when the stream is 10-bit (frames come in the 10-bit layouts unless asked otherwise).
    public var isTenBit: Bool { (formatDescription?.bitDepth ?? 8) > 8 }
}

extension H265FormatDescription: DecodingFormat {}
extension H265AccessUnit: DecodingAccessUnit {}
extension H265AccessUnitAssembler: DecodingAccessUnitAssembler {}
extension H265DecodedPicture: DecodingPicture {}
extension H265DecodingProcess: DecodingProcess {}

extension H265PictureDecodeRequest: DecodingPictureRequest {
    public var firstSliceOffset: Int { slices.first?.segment.nalUnit.offset ?? 0 }
}
