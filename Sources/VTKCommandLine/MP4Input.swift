import H264Bitstream
import MP4

/// An input file that is an MP4: recognised by its `ftyp` box, not its name.
struct MP4Input {
    let reader: MP4Reader
    var formatDescription: FormatDescription? { reader.formatDescription }

    /// The MP4 reader for `input` when it is an MP4 file, nil when it is something else (or a pipe).
    static func open(_ input: InputFile, command: String) throws(CommandFailure) -> MP4Input? {
        guard input.path != "-", input.startsWithFileTypeBox else { return nil }
        do {
            return MP4Input(reader: try MP4Reader(path: input.path))
        } catch {
            throw CommandFailure(.input, "vtk \(command): \(input.path): \(error)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension InputFile {
    /// True when bytes 4...7 of the file are "ftyp" (ISO/IEC 14496-12 4.3). Reads with pread, so the
    /// read position is unchanged.
    var startsWithFileTypeBox: Bool {
        guard path != "-" else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 8)
        guard pread(fd, &head, 8, 0) == 8 else { return false }
        return Array(head[4..<8]) == Array("ftyp".utf8)
    }
}
