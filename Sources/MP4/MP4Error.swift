/// A problem met while reading or writing an MP4 (ISO BMFF) file.
///
/// Every reading error names the box (its four-character type) and the byte offset in the file where the
/// problem is, so a user can be told exactly where a file is damaged.
public enum MP4Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed (open, read, write, rename).
    case io(path: String, operation: String, errno: Int32)
    /// The data ends before a box or field does.
    case truncated(box: String, offset: UInt64, needed: UInt64, available: UInt64)
    /// A box size that is too small, overflows, or points past the end of its parent or the file.
    case badBoxSize(box: String, offset: UInt64, size: UInt64, reason: String)
    /// Boxes nested deeper than the reader allows.
    case nestingTooDeep(box: String, offset: UInt64, depth: Int)
    /// A box that must be there is missing (`parent` is the box it should be in, at `offset`).
    case missingBox(box: String, parent: String, offset: UInt64)
    /// A field with a value the format does not allow, or a count that the box's bytes cannot hold.
    case malformed(box: String, offset: UInt64, reason: String)
    /// Sample tables that disagree with each other (sample counts, chunk coverage).
    case inconsistentSampleTables(box: String, offset: UInt64, reason: String)
    /// A track whose codec vtk cannot handle yet (hvc1, mp4a, ...).
    case unsupportedCodec(fourcc: String, trackID: UInt32, offset: UInt64)
    /// No track in the movie.
    case noTracks(offset: UInt64)
    /// A sample whose bytes lie outside the file.
    case sampleOutsideFile(sampleIndex: Int, offset: UInt64, size: UInt64, fileSize: UInt64)
    /// The writer was used wrongly (timestamps out of order, no samples, after finish).
    case invalidWriterInput(String)

    /// The four-character type of the box the problem is in, when there is one.
    public var box: String? {
        switch self {
        case let .truncated(box, _, _, _), let .badBoxSize(box, _, _, _), let .nestingTooDeep(box, _, _),
             let .missingBox(box, _, _), let .malformed(box, _, _), let .inconsistentSampleTables(box, _, _):
            return box
        case let .unsupportedCodec(fourcc, _, _): return fourcc
        case .io, .noTracks, .sampleOutsideFile, .invalidWriterInput: return nil
        }
    }

    /// The file offset of the problem, when there is one.
    public var offset: UInt64? {
        switch self {
        case let .truncated(_, offset, _, _), let .badBoxSize(_, offset, _, _), let .nestingTooDeep(_, offset, _),
             let .missingBox(_, _, offset), let .malformed(_, offset, _), let .inconsistentSampleTables(_, offset, _),
             let .unsupportedCodec(_, _, offset), let .noTracks(offset), let .sampleOutsideFile(_, offset, _, _):
            return offset
        case .io, .invalidWriterInput: return nil
        }
    }

    public var description: String {
        switch self {
        case let .io(path, operation, code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code)))"
        case let .truncated(box, offset, needed, available):
            return "'\(box)' at byte \(offset) is cut short: \(needed) byte(s) needed, \(available) left"
        case let .badBoxSize(box, offset, size, reason):
            return "'\(box)' at byte \(offset) has a bad size \(size): \(reason)"
        case let .nestingTooDeep(box, offset, depth):
            return "'\(box)' at byte \(offset) is nested \(depth) boxes deep, more than the reader allows"
        case let .missingBox(box, parent, offset):
            return "'\(parent)' at byte \(offset) has no '\(box)' box"
        case let .malformed(box, offset, reason):
            return "'\(box)' at byte \(offset) is malformed: \(reason)"
        case let .inconsistentSampleTables(box, offset, reason):
            return "sample tables disagree ('\(box)' at byte \(offset)): \(reason)"
        case let .unsupportedCodec(fourcc, trackID, offset):
            return "codec '\(fourcc)' (track \(trackID), sample entry at byte \(offset)) is not supported yet: vtk reads H.264 ('avc1', 'avc3') and H.265 ('hvc1', 'hev1') video"
        case let .noTracks(offset):
            return "the movie ('moov' at byte \(offset)) has no track"
        case let .sampleOutsideFile(index, offset, size, fileSize):
            return "sample \(index) (\(size) bytes at byte \(offset)) lies outside the file (\(fileSize) bytes)"
        case let .invalidWriterInput(reason):
            return "MP4 writer: \(reason)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
