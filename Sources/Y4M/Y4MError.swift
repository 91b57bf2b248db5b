#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A problem reading or writing a YUV4MPEG2 stream. Offsets are byte offsets from the start of the stream.
public enum Y4MError: Error, Hashable, Sendable, CustomStringConvertible {
    case io(operation: String, errno: Int32)
    /// The stream does not start with `YUV4MPEG2 `.
    case notY4M(byteOffset: Int)
    /// A header line longer than the reader accepts (no newline found).
    case lineTooLong(byteOffset: Int, limit: Int)
    /// A header parameter with a value the reader cannot use.
    case badParameter(name: String, value: String, byteOffset: Int)
    /// A chroma layout vtk does not read (it reads the 8-bit 4:2:0 ones).
    case unsupportedColorspace(String)
    /// Something other than `FRAME` where a frame should start.
    case badFrameHeader(frame: Int, byteOffset: Int)
    /// The stream ends inside a frame.
    case truncatedFrame(frame: Int, byteOffset: Int, expected: Int, got: Int)
    /// A pixel buffer that does not match the stream's size.
    case frameSizeMismatch(expected: String, got: String)

    public var description: String {
        switch self {
        case let .io(operation, code): return "Y4M \(operation) failed: \(String(cString: strerror(code)))"
        case let .notY4M(offset): return "not a YUV4MPEG2 stream: no 'YUV4MPEG2 ' signature at byte \(offset)"
        case let .lineTooLong(offset, limit): return "Y4M header line at byte \(offset) is longer than \(limit) bytes"
        case let .badParameter(name, value, offset): return "Y4M header parameter \(name)\(value) at byte \(offset) is invalid"
        case let .unsupportedColorspace(name):
            return "Y4M colorspace C\(name) is not supported: vtk reads 4:2:0 (C420jpeg, C420paldv, C420mpeg2, C420, C420p10)"
        case let .badFrameHeader(frame, offset): return "Y4M frame \(frame) at byte \(offset) does not start with 'FRAME'"
        case let .truncatedFrame(frame, offset, expected, got):
            return "Y4M frame \(frame) at byte \(offset) is cut short: \(got) of \(expected) bytes"
        case let .frameSizeMismatch(expected, got): return "Y4M frame size \(got) does not match the stream's \(expected)"
        }
    }
}
