import DecompressionSession
import H264Bitstream
import H265Bitstream
import RTP
import VideoAcceleration
import VTKMedia

/// An access unit as `vtk receive` sees it: enough to flag damage and to decide on keyframe requests.
protocol ReceivedAccessUnit {
    var nalUnits: [NALUnit] { get }
    var hasPicture: Bool { get }
    var offset: Int { get }
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

/// The codec's end of `vtk receive`: NAL units -> access units -> a decompression session.
protocol RTPPictureDecoder: AnyObject {
    associatedtype PayloadFormat: NALPayloadFormat
    associatedtype Unit: ReceivedAccessUnit
    /// Adds one NAL unit; returns the access unit it completed.
    func push(_ unit: NALUnit) -> Unit?
    /// The access units still open (the end of an RTP frame).
    func finishUnits() -> [Unit]
    func decode(_ unit: Unit, presentationTime: MediaTime) throws -> [DecodedFrame]
    func finishDelayedFrames() throws -> [DecodedFrame]
    var statistics: DecodeStatistics { get }
    /// For a Y4M header, once the stream's parameter sets are known.
    var frameRate: (Int, Int)? { get }
    var sampleAspectRatio: (width: Int, height: Int)? { get }
    func invalidate()
}

/// H.264 (RFC 6184) into ``H264DecompressionSession``, frames as I420 (or the layout asked).
final class H264RTPDecoder: RTPPictureDecoder {
    typealias PayloadFormat = H264PayloadFormat
    private let session: H264DecompressionSession
    private var assembler = AccessUnitAssembler()

    init(connection: VADisplayConnection, outputFormat: PixelFormat = .i420) throws {
        session = try H264DecompressionSession(formatDescription: nil, connection: connection, outputFormat: outputFormat)
    }

    func push(_ unit: NALUnit) -> AccessUnit? { assembler.push(unit) }
    func finishUnits() -> [AccessUnit] { assembler.finish() }
    func decode(_ unit: AccessUnit, presentationTime: MediaTime) throws -> [DecodedFrame] { try session.decode(accessUnit: unit, presentationTime: presentationTime) }
    func finishDelayedFrames() throws -> [DecodedFrame] { try session.finishDelayedFrames() }
    var statistics: DecodeStatistics { session.statistics }
    var frameRate: (Int, Int)? { session.formatDescription?.frameRate.map { ($0.numerator, $0.denominator) } }
    var sampleAspectRatio: (width: Int, height: Int)? { session.formatDescription?.sampleAspectRatio }
    func invalidate() { session.invalidate() }
}

extension AccessUnit: ReceivedAccessUnit {
    var isIntact: Bool { problems.isEmpty }
    var isKeyframe: Bool { isIDR }
    var startsAtFirstSlice: Bool { slices.first?.header.firstMbInSlice == 0 }
    var isReference: Bool { isIDR || slices.contains { $0.header.nalRefIdc != 0 } }
    mutating func flagDamage(_ reason: String) { problems.append(.malformedNALUnit(byteOffset: offset, reason: reason)) }
}

/// H.265 (RFC 7798) into ``H265DecompressionSession``, frames as I420, or yuv420p10 for Main 10 (unless a
/// layout is asked): the session is made at the first picture, when the SPS's bit depth is known.
final class H265RTPDecoder: RTPPictureDecoder {
    typealias PayloadFormat = H265PayloadFormat
    private let connection: VADisplayConnection
    private var session: H265DecompressionSession?
    private var assembler = H265AccessUnitAssembler()
    /// Problems of access units met before the session was made.
    private var early = DecodeStatistics()
    private let outputFormat: PixelFormat?

    init(connection: VADisplayConnection, outputFormat: PixelFormat? = nil) {
        self.connection = connection
        self.outputFormat = outputFormat
    }

    func push(_ unit: NALUnit) -> H265AccessUnit? { assembler.push(unit) }
    func finishUnits() -> [H265AccessUnit] { assembler.finish() }

    func decode(_ unit: H265AccessUnit, presentationTime: MediaTime) throws -> [DecodedFrame] {
        if session == nil {
            guard unit.hasPicture else {
                for problem in unit.problems { early.problemCount += 1; early.problems.append("byte \(unit.offset): \(problem)") }
                return []
            }
            let tenBit = unit.parameterSets.sps.values.contains { $0.bitDepthLuma > 8 }
            let made = try H265DecompressionSession(formatDescription: nil, connection: connection, outputFormat: outputFormat ?? (tenBit ? .yuv420p10 : .i420))
            for problem in early.problems { made.noteProblem(problem) }
            session = made
        }
        return try session?.decode(accessUnit: unit, presentationTime: presentationTime) ?? []
    }

    func finishDelayedFrames() throws -> [DecodedFrame] { try session?.finishDelayedFrames() ?? [] }
    var statistics: DecodeStatistics { session?.statistics ?? early }
    var frameRate: (Int, Int)? { session?.formatDescription?.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) } }
    var sampleAspectRatio: (width: Int, height: Int)? { session?.formatDescription?.sampleAspectRatio }
    func invalidate() { session?.invalidate() }
}

extension H265AccessUnit: ReceivedAccessUnit {
    var isIntact: Bool { problems.isEmpty }
    var isKeyframe: Bool { slices.first?.header.nalUnitType.isIRAP ?? false }
    var startsAtFirstSlice: Bool { slices.first?.header.firstSliceSegmentInPicFlag ?? false }
    var isReference: Bool { slices.contains { !$0.header.nalUnitType.isSubLayerNonReference } }
    mutating func flagDamage(_ reason: String) { problems.append(.malformedNALUnit(byteOffset: offset, reason: reason)) }
}
