#if canImport(Glibc)
import Glibc
#endif
import VTKMedia

/// Writes a YUV4MPEG2 stream to a file or to a descriptor (stdout, a pipe into FFmpeg or x264).
public final class Y4MWriter {
    public let header: Y4MHeader
    public private(set) var frameCount = 0
    private var descriptor: Int32
    private let closeWhenDone: Bool
    private static let frameLine = Array("FRAME\n".utf8)

    public convenience init(path: String, header: Y4MHeader) throws(Y4MError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw .io(operation: "create \(path)", errno: errno) }
        try self.init(fileDescriptor: fd, header: header, closeWhenDone: true)
    }

    public init(fileDescriptor: Int32, header: Y4MHeader, closeWhenDone: Bool = false) throws(Y4MError) {
        self.header = header
        descriptor = fileDescriptor
        self.closeWhenDone = closeWhenDone
        try write(Array(header.line.utf8))
    }

    /// The writer of standard output.
    public static func standardOutput(header: Y4MHeader) throws(Y4MError) -> Y4MWriter {
        try Y4MWriter(fileDescriptor: STDOUT_FILENO, header: header)
    }

    deinit { if closeWhenDone && descriptor >= 0 { _ = closeFile(descriptor) } }

    /// Writes one frame: an I420 or NV12 buffer of the header's size (yuv420p10 for C420p10).
    public func write(_ frame: PixelBuffer) throws(Y4MError) {
        guard frame.width == header.width, frame.height == header.height else {
            throw .frameSizeMismatch(expected: "\(header.width)x\(header.height)", got: "\(frame.width)x\(frame.height)")
        }
        var bytes = frame.packedBytes
        if frame.format == .nv12 {
            // Split the interleaved chroma plane into U then V.
            let luma = frame.width * frame.height
            let chroma = bytes[luma...]
            bytes = Array(bytes[..<luma]) + stride(from: chroma.startIndex, to: chroma.endIndex, by: 2).map { chroma[$0] }
                + stride(from: chroma.startIndex + 1, to: chroma.endIndex, by: 2).map { chroma[$0] }
        }
        try write(packedI420: bytes)
    }

    /// Writes one frame of packed I420 bytes.
    public func write(packedI420 bytes: [UInt8]) throws(Y4MError) {
        guard bytes.count == header.frameSize else {
            throw .frameSizeMismatch(expected: "\(header.frameSize) bytes", got: "\(bytes.count) bytes")
        }
        try write(Self.frameLine)
        try write(bytes)
        frameCount += 1
    }

    /// Closes the file (a descriptor passed in with `closeWhenDone: false` is left open).
    public func close() throws(Y4MError) {
        guard descriptor >= 0 else { return }
        if closeWhenDone, closeFile(descriptor) != 0 { throw .io(operation: "close", errno: errno) }
        descriptor = -1
    }

    private func write(_ bytes: [UInt8]) throws(Y4MError) {
        guard descriptor >= 0 else { throw .io(operation: "write after close", errno: EBADF) }
        var done = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < raw.count {
                let n = Glibc.write(descriptor, base + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure != 0 { throw .io(operation: "write", errno: failure) }
    }
}

/// close(2), reachable from a type with a `close()` of its own.
private func closeFile(_ fd: Int32) -> Int32 { close(fd) }
