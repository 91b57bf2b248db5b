import NALStream

/// Why the H.265 decoding process skipped, refused or flagged a picture.
public enum H265DecodingProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stream vtk does not decode (4:2:2, 4:4:4, 12-bit, range or SCC tools, several layers).
    case unsupportedStream(String)
    /// The access unit could not be parsed.
    case bitstream(BitstreamError, byteOffset: Int)
    /// A picture before the first IRAP picture: it has nothing to refer to and is skipped.
    case waitingForKeyframe(byteOffset: Int)
    /// RASL pictures of a CRA or BLA picture decoding started at (NoRaslOutputFlag 1): they refer to
    /// pictures before it, and are skipped (8.1.3).
    case skippedRASL(byteOffset: Int, poc: Int)
    /// A reference picture the current one uses is not in the DPB (lost or damaged picture).
    case missingReference(byteOffset: Int, detail: String)

    public var description: String {
        switch self {
        case let .unsupportedStream(what): "unsupported stream: \(what)"
        case let .bitstream(error, offset): "access unit at byte \(offset): \(error)"
        case let .waitingForKeyframe(offset): "picture at byte \(offset) skipped: no IRAP picture (IDR, CRA, BLA) yet"
        case let .skippedRASL(offset, poc): "RASL picture at byte \(offset) (POC \(poc)) skipped: it refers to pictures before the random access point"
        case let .missingReference(offset, detail): "picture at byte \(offset) refers to a missing picture: \(detail)"
        }
    }
}
