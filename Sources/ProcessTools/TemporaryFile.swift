#if canImport(Glibc)
import Glibc
#endif

/// A file without a name in the temporary directory ($TMPDIR, else /tmp), open for reading and writing,
/// closed with the object: where a child's output goes, so that a chatty child never blocks on a full pipe.
final class TemporaryFile {
    let descriptor: Int32

    /// $TMPDIR, else /tmp: where FileManager.temporaryDirectory pointed.
    static var directory: String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    init(prefix: String) throws(SpawnFailure) {
        var template = Array("\(Self.directory)/\(prefix)-\(getpid())-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw SpawnFailure(errorNumber: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(template)
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Everything written to the file, from its start.
    func contents() -> [UInt8] { FileBytes.read(descriptor: descriptor) }
}

/// Reading whole files with read(2).
enum FileBytes {
    /// The bytes of `descriptor` from offset 0 to its end.
    static func read(descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return bytes }
            bytes += chunk[..<n]
        }
    }

    /// The bytes of the file at `path`, or nil when it cannot be opened.
    static func read(path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(descriptor: fd)
    }
}
