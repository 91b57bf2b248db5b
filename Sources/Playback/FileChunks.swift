#if canImport(Glibc)
import Glibc
#endif

/// A file read in chunks from any offset (pread), for sources that stream their input.
final class FileChunks {
    let path: String
    /// Bytes a reader asks for at a time.
    let chunkSize: Int
    private let descriptor: Int32

    init(path: String, chunkSize: Int = 1 << 16) throws(PlaybackError) {
        self.path = path
        self.chunkSize = max(1, chunkSize)
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable("cannot open '\(path)': \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset`; empty at the end of the file.
    func read(at offset: Int, count: Int) throws(PlaybackError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        while true {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            if got >= 0 {
                bytes.removeSubrange(got...)
                return bytes
            }
            guard errno == EINTR else { throw .unreadable("\(path): reading at byte \(offset): \(String(cString: strerror(errno)))") }
        }
    }
}
