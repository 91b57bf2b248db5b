import H264Bitstream
import VideoDecoding
import VTKMedia

/// What one codec brings to ``VADecompressionSession``: its access units and their assembler, its decoding
/// process, and how its problems count. The session does everything else the same way for every codec.
public protocol DecompressionCodec {
    associatedtype Assembler: DecodingAccessUnitAssembler
    associatedtype Process: DecodingProcess where Process.AccessUnit == Assembler.AccessUnit
    typealias Format = Process.Format

    /// The parameter-set NAL units of a format description, in the order the assembler needs them.
    static func parameterSets(of format: Format) -> [NALUnit]
    /// The format description a sample carries, for codecs whose samples carry one (nil otherwise).
    static func format(of sample: SampleBuffer) -> Format?
    /// The blocks whose errors a driver counts ("macroblock", "block"), for the concealment problem.
    static var blockName: String { get }
    /// True when the problem means an access unit was skipped.
    static func skipsAccessUnit(_ problem: Process.Problem) -> Bool
    /// A note to report instead of a problem, for what a decoder must do and is no fault of the stream.
    static func note(for problem: Process.Problem) -> String?
}

/// A format description as the session sees it.
public protocol DecodingFormat: Hashable, Sendable {
    /// The display rectangle in the coded picture.
    var cleanAperture: (x: Int, y: Int, width: Int, height: Int) { get }
}

/// An access unit as the session sees it.
public protocol DecodingAccessUnit {
    var hasPicture: Bool { get }
    /// Problems met while assembling it.
    var problems: [BitstreamError] { get }
    /// Byte offset of its first NAL unit.
    var offset: Int { get }
}

/// Gathers NAL units in decoding order into access units.
public protocol DecodingAccessUnitAssembler {
    associatedtype AccessUnit: DecodingAccessUnit
    init()
    /// Takes one NAL unit; returns the access unit it completed, if any.
    mutating func push(_ unit: NALUnit) -> AccessUnit?
    /// Ends the stream: the access units still gathered.
    mutating func finish() -> [AccessUnit]
}

/// A picture of a decoding process, as the session outputs it.
public protocol DecodingPicture: Hashable, Sendable {
    associatedtype ID: Hashable & Sendable
    var id: ID { get }
    var decodeIndex: Int { get }
    var presentationTime: MediaTime { get }
    var isDamaged: Bool { get }
    /// The order of an interlaced frame's fields; nil for progressive content.
    var fieldOrder: FieldOrder? { get }
}

extension DecodingPicture {
    public var fieldOrder: FieldOrder? { nil }
}

/// A decoding process's request to decode one picture.
public protocol DecodingPictureRequest: Hashable, Sendable {
    associatedtype Picture: DecodingPicture
    var picture: Picture { get }
    /// Byte offset of the picture's first slice, for problems.
    var firstSliceOffset: Int { get }
}

/// A codec's decoding process without VA: access units in, ``DecoderEvent``s out.
public protocol DecodingProcess {
    associatedtype AccessUnit
    associatedtype Format: DecodingFormat
    associatedtype Request: DecodingPictureRequest
    associatedtype Problem: Hashable & Sendable & CustomStringConvertible
    typealias Event = DecoderEvent<Format, Request, Request.Picture, Request.Picture.ID, Problem>
    init()
    mutating func decode(_ unit: AccessUnit, presentationTime: MediaTime) -> [Event]
    /// Outputs what the DPB still holds (end of stream).
    mutating func flush() -> [Event]
    /// Flags a picture the driver concealed errors in, so that pictures predicted from it are flagged too.
    mutating func markDamaged(_ id: Request.Picture.ID)
}

/// The VA half of a codec's decoder: turns its decode requests into VA buffers, owns the surfaces, reads
/// pictures back.
protocol VADecodingAccelerator<Codec>: AnyObject {
    associatedtype Codec: DecompressionCodec
    typealias PictureID = Codec.Process.Request.Picture.ID
    /// What every codec does the same way: configuration, surfaces, rendering, readback and sync errors.
    var decoder: VADecoder { get }
    /// (Re)creates the configuration, surfaces and context for a sequence.
    func configure(format: Codec.Format, surfaceCount: Int) throws
    /// Sends one picture to the hardware.
    func decode(_ request: Codec.Process.Request) throws
    /// A decoded picture's surface, waited for, with the codec's way of reading it back (cropped).
    func picture(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int)) throws -> SurfacePicture
    /// Blocks the driver reports in error (0 when clean; nil when it does not say).
    func macroblocksInError(_ picture: PictureID) -> Int?
    /// The picture left the DPB and has been output: its surface is free again.
    func release(_ picture: PictureID)
    func releaseAll()
    /// Destroys the context, surfaces and configuration.
    func shutdown()
}

extension VADecodingAccelerator where Codec.Process.Request.Picture.ID == VideoDecoding.PictureID {
    func macroblocksInError(_ picture: PictureID) -> Int? { decoder.macroblocksInError(picture) }
    func release(_ picture: PictureID) { decoder.release(picture) }
    func releaseAll() { decoder.releaseAll() }
    func shutdown() { decoder.shutdown() }
}
