#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to a file by offset (pread), so that large files are read a box or a sample at a time
/// and never whole.
final class FileByteSource {
    let path: String
    let size: UInt64
    private let descriptor: Int32

    init(path: String) throws(MP4Error) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .io(path: path, operation: "stat", errno: code)
        }
        descriptor = fd
        size = UInt64(max(0, info.st_size))
    }

    deinit { close(descriptor) }

    /// Reads exactly `count` bytes at `offset`. `box` names what is being read for the error when the
    /// file ends first. Callers check `offset + count <= size` against the box structure beforehand, so
    /// `count` is never larger than the file.
    func read(at offset: UInt64, count: Int, box: String) throws(MP4Error) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw .truncated(box: box, offset: offset, needed: UInt64(count), available: offset <= size ? size - offset : 0)
        }
        let (out, done) = try preadFully(descriptor, path: path, offset: offset, count: count)
        guard done == count else {
            throw .truncated(box: box, offset: offset, needed: UInt64(count), available: UInt64(done))
        }
        return out
    }
}

/// Reads up to `count` bytes at `offset` with pread, retrying short reads and EINTR; returns the bytes
/// and how many were read (fewer only at the end of the file).
func preadFully(_ descriptor: Int32, path: String, offset: UInt64, count: Int) throws(MP4Error) -> (bytes: [UInt8], count: Int) {
    var out = [UInt8](repeating: 0, count: count)
    var done = 0
    var failure: Int32 = 0
    out.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        while done < count {
            let n = pread(descriptor, base + done, count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            if n == 0 { return }
            done += n
        }
    }
    if failure != 0 { throw .io(path: path, operation: "read", errno: failure) }
    return (out, done)
}
