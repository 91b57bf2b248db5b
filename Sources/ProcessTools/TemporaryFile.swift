#if canImport(Glibc)
import Glibc
#endif
import VTKMedia

/// A file without a name in the temporary directory ($TMPDIR, else /tmp), open for reading and writing,
/// closed with the object: where a child's output goes, so that a chatty child never blocks on a full pipe.
public final class TemporaryFile {
    let descriptor: Int32

    /// $TMPDIR, else /tmp: where FileManager.temporaryDirectory pointed.
    public static var directory: String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// mkstemp(3) failed: the directory is missing, not writable or full.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let directory: String
        public let errorNumber: Int32
        public var description: String { "cannot make a temporary file in \(directory): \(String(cString: strerror(errorNumber)))" }
    }

    init(prefix: String, directory: String = TemporaryFile.directory) throws(Failure) {
        var template = Array("\(directory)/\(prefix)-\(getpid())-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw Failure(directory: directory, errorNumber: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(template)
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Everything written to the file, from its start.
    func contents() -> [UInt8] { FileBytes.read(descriptor: descriptor) ?? [] }
}
