import DecompressionSession
import VideoAcceleration
import VTKMedia

/// A receiver's decoder: access units into the codec's decompression session, frames out in display order.
/// The session is made at once, or at the first picture when its SPS decides the layout (10-bit H.265);
/// problems of the access units before it are kept and handed to it.
public final class RTPPictureDecoder<Codec: RTPCodec> {
    public typealias Unit = Codec.Assembler.AccessUnit
    private let connection: VADisplayConnection
    private var session: VADecompressionSession<Codec>?
    /// Problems of access units met before the session was made.
    private var early = DecodeStatistics()
    private let outputFormat: PixelFormat?

    /// `outputFormat`: the frames' layout; nil for the codec's default (I420, or yuv420p10 for 10-bit H.265).
    public init(connection: VADisplayConnection, outputFormat: PixelFormat? = nil) throws {
        self.connection = connection
        self.outputFormat = outputFormat
        if !Codec.sessionWaitsForFirstPicture {
            session = try Codec.makeSession(connection: connection, outputFormat: outputFormat ?? Codec.defaultOutputFormat(firstPicture: nil))
        }
    }

    public func decode(_ unit: Unit, presentationTime: MediaTime) throws -> [DecodedFrame] {
        if session == nil {
            guard unit.hasPicture else {
                for problem in unit.problems { early.problemCount += 1; early.problems.append("byte \(unit.offset): \(problem)") }
                return []
            }
            let made = try Codec.makeSession(connection: connection, outputFormat: outputFormat ?? Codec.defaultOutputFormat(firstPicture: unit))
            for problem in early.problems { made.noteProblem(problem) }
            session = made
        }
        return try session?.decode(accessUnit: unit, presentationTime: presentationTime) ?? []
    }

    public func finishDelayedFrames() throws -> [DecodedFrame] { try session?.finishDelayedFrames() ?? [] }
    public var statistics: DecodeStatistics { session?.statistics ?? early }
    /// For a Y4M header, once the stream's parameter sets are known.
    public var frameRate: (Int, Int)? { session?.formatDescription.flatMap(Codec.headerFrameRate) }
    public var sampleAspectRatio: (width: Int, height: Int)? { session?.formatDescription?.sampleAspectRatio }
    public func invalidate() { session?.invalidate() }
}
