#if canImport(Glibc)
import Glibc
#endif

/// Reading whole files with read(2).
public enum FileBytes {
    /// The bytes of `descriptor` (a file) from offset 0 to its end; nil when it cannot be read (a directory).
    public static func read(descriptor: Int32) -> [UInt8]? {
        readAll { chunk, offset in pread(descriptor, chunk.baseAddress, chunk.count, off_t(offset)) }
    }

    /// The bytes of the file at `path`, or nil when it cannot be opened or read (FileManager's contents(atPath:)).
    /// Read in sequence, so a pipe (`<(…)`, /dev/stdin) reads as well as a file.
    public static func read(path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll { chunk, _ in Glibc.read(fd, chunk.baseAddress, chunk.count) }
    }

    /// Chunks from `next` (given where the next one starts) until it returns 0; nil at an error other than EINTR.
    private static func readAll(_ next: (UnsafeMutableRawBufferPointer, Int) -> Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { next($0, bytes.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            guard n > 0 else { return bytes }
            bytes += chunk[..<n]
        }
    }
}

extension FileBytes {
    /// The file at `path` as UTF-8 text; nil when it cannot be read or is not UTF-8 (String(contentsOf:encoding:)).
    public static func text(path: String) -> String? {
        read(path: path).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
