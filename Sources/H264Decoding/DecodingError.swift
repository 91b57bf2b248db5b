import H264Bitstream

/// Why the decoding process refused or marked a picture.
public enum DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A field whose pair never came (lost, or a field of the same parity followed): its frame is output
    /// with the other field's lines undefined, and flagged damaged.
    case unpairedField(byteOffset: Int, field: String)
    /// A profile or chroma format vtk does not decode.
    case unsupportedStream(String)
    /// The access unit could not be parsed.
    case bitstream(BitstreamError, byteOffset: Int)
    /// A P or B picture before the first IDR or recovery point: it has nothing to refer to and is skipped.
    case waitingForKeyframe(byteOffset: Int)
    /// A reference the slice needs is not in the DPB (lost or damaged picture).
    case missingReference(byteOffset: Int, detail: String)
    /// frame_num jumped although gaps_in_frame_num_value_allowed_flag is 0: pictures were lost. No count is
    /// given: frame_num counts modulo MaxFrameNum and restarts at an IDR, so a lost IDR makes any gap (7.4.3).
    case lostPictures(byteOffset: Int, previousFrameNum: Int, frameNum: Int)
    /// A non-IDR picture with the frame_num of the previous reference picture (7.4.3 forbids it for
    /// frames): a repeated picture.
    case repeatedFrameNum(byteOffset: Int, frameNum: Int)

    public var description: String {
        switch self {
        case let .unpairedField(offset, field):
            return "the \(field) at byte \(offset) has no second field: its frame is output with the other field missing"
        case let .unsupportedStream(what):
            return what
        case let .bitstream(error, offset):
            return "access unit at byte \(offset): \(error)"
        case let .waitingForKeyframe(offset):
            return "picture at byte \(offset) skipped: no IDR or recovery point yet"
        case let .missingReference(offset, detail):
            return "picture at byte \(offset) refers to a missing picture: \(detail)"
        case let .lostPictures(offset, previous, frameNum):
            return "picture(s) lost before byte \(offset): frame_num gap from \(previous) to \(frameNum)"
        case let .repeatedFrameNum(offset, frameNum):
            return "picture at byte \(offset) repeats frame_num \(frameNum) of the previous reference picture (duplicated picture?)"
        }
    }
}
