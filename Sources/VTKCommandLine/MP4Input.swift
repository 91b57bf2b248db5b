import H264Bitstream
import MP4

/// An input file that is an MP4: recognised by its `ftyp` box, not its name.
struct MP4Input {
    let reader: MP4Reader
    var formatDescription: H264FormatDescription? { reader.formatDescription }

    /// The MP4 reader for `input` when it is an MP4 file, nil when it is something else (or a pipe).
    static func open(_ input: InputFile, command: String) throws(CommandFailure) -> MP4Input? {
        guard input.signature == .mp4 else { return nil }
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
    /// What the file is by its first bytes (pread, so the read position is unchanged); nil for a pipe.
    var signature: InputSignature? {
        guard path != "-" else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: InputSignature.headLength)
        let got = pread(fd, &head, head.count, 0)
        return InputSignature(head: head.prefix(max(got, 0)))
    }
}
