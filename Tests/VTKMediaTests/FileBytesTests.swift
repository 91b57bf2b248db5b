import Glibc
import Testing
import VTKMedia

/// FileBytes.read(path:) reads a file to its end in sequence, so a pipe (`<(…)`) reads as a file does, as
/// FileManager's contents(atPath:) did.
@Suite("FileBytes")
struct FileBytesTests {
    @Test("a pipe named by path is read to its end")
    func pipeByPath() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        // More than a pipe holds at once: a writer thread, as a shell's process substitution would be.
        let writer = ends[1]
        let done = DetachedThread.start {
            payload.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writer, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writer)
        }
        try #require(done)
        let read = FileBytes.read(path: "/proc/self/fd/\(ends[0])")
        close(ends[0])
        #expect(read == payload)
    }

    @Test("a file is read whole; a missing one is nil")
    func fileAndMissing() throws {
        let path = "/tmp/vtk-filebytes-\(getpid())"
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { unlink(path) }
        #expect(FileBytes.read(path: path) == bytes)
        #expect(FileBytes.read(path: path + "-missing") == nil)
    }
}
