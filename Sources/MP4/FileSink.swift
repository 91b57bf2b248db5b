#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// close(2), reachable from types that have a `close()` method of their own.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }

/// A file opened for writing: appends, writes at an offset, reads back (for the faststart rewrite).
final class FileSink {
    let path: String
    private var descriptor: Int32
    private(set) var position: UInt64 = 0

    init(path: String) throws(MP4Error) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
    }

    deinit { if descriptor >= 0 { _ = closeDescriptor(descriptor) } }

    func write(_ bytes: [UInt8]) throws(MP4Error) {
        try write(bytes, at: position)
        position += UInt64(bytes.count)
    }

    func write(_ bytes: [UInt8], at offset: UInt64) throws(MP4Error) {
        var done = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while done < buffer.count {
                let n = pwrite(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure != 0 { throw .io(path: path, operation: "write", errno: failure) }
    }

    func read(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        let (out, done) = try preadFully(descriptor, path: path, offset: offset, count: count)
        return done == count ? out : Array(out.prefix(done))
    }

    func close() throws(MP4Error) {
        guard descriptor >= 0 else { return }
        let result = closeDescriptor(descriptor)
        descriptor = -1
        if result != 0 { throw .io(path: path, operation: "close", errno: errno) }
    }
}
