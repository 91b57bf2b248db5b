#if canImport(Glibc)
import Glibc
#endif
import VTKMedia

/// Reads a YUV4MPEG2 stream frame by frame, from a file or a pipe (stdin), a chunk at a time: only one
/// frame is held at once. Frames come out as I420 pixel buffers stamped with their time from the frame rate.
public final class Y4MReader {
    public let header: Y4MHeader
    /// Frames read so far.
    public private(set) var frameCount = 0
    private let input: ByteInput

    /// Longest header or FRAME line accepted.
    static let lineLimit = 4096

    public convenience init(path: String) throws(Y4MError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .io(operation: "open \(path)", errno: errno) }
        try self.init(fileDescriptor: fd, closeOnDeinit: true)
    }

    /// Reads from an open descriptor, e.g. STDIN_FILENO.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool = false) throws(Y4MError) {
        input = ByteInput(descriptor: fileDescriptor, closeOnDeinit: closeOnDeinit)
        guard let line = try input.readLine(limit: Self.lineLimit) else { throw .notY4M(byteOffset: 0) }
        header = try Y4MHeader(line: line, byteOffset: 0)
    }

    /// The reader of standard input.
    public static func standardInput() throws(Y4MError) -> Y4MReader {
        try Y4MReader(fileDescriptor: STDIN_FILENO)
    }

    /// Time of frame `index` from the frame rate.
    public func presentationTime(ofFrame index: Int) -> MediaTime {
        MediaTime(value: Int64(index) * Int64(header.frameRate.denominator), timescale: Int32(header.frameRate.numerator))
    }

    /// The next frame's packed I420 bytes, or nil at the end of the stream.
    public func nextFrameBytes() throws(Y4MError) -> [UInt8]? {
        var bytes = [UInt8](unsafeUninitializedCapacity: header.frameSize) { _, initialized in initialized = header.frameSize }
        var result: Result<Bool, Y4MError> = .success(false)
        bytes.withUnsafeMutableBytes { raw in
            do throws(Y4MError) { result = .success(try readFrame(into: [raw])) } catch { result = .failure(error) }
        }
        return try result.get() ? bytes : nil
    }

    /// The next frame as an I420 pixel buffer (yuv420p10 for C420p10) with its presentation time and
    /// duration, or nil at the end.
    public func nextFrame() throws(Y4MError) -> PixelBuffer? {
        var buffer: PixelBuffer?
        return try nextFrame(reusing: &buffer)
    }

    /// ``nextFrame()`` read straight into the planes of `storage` when it has the frame's layout and nobody
    /// else holds it (the frame returned last time), so that a stream of frames is read without allocating
    /// or clearing memory per frame. `storage` keeps the frame returned.
    public func nextFrame(reusing storage: inout PixelBuffer?) throws(Y4MError) -> PixelBuffer? {
        let index = frameCount
        let format: PixelFormat = header.colorspace.bytesPerSample == 2 ? .yuv420p10 : .i420
        var buffer: PixelBuffer
        if storage?.hasPackedLayout(format: format, width: header.width, height: header.height) == true, let kept = storage.take() {
            buffer = kept  // moved out, so that `buffer` is the only reference and reading into it does not copy
        } else {
            storage = nil
            buffer = PixelBuffer(uninitializedFormat: format, width: header.width, height: header.height)
        }
        var result: Result<Bool, Y4MError> = .success(false)
        buffer.planes.withUnsafeMutableBufferPointer { planes in
            guard planes.count == 3 else { return }
            planes[0].bytes.withUnsafeMutableBytes { y in
                planes[1].bytes.withUnsafeMutableBytes { u in
                    planes[2].bytes.withUnsafeMutableBytes { v in
                        do throws(Y4MError) { result = .success(try readFrame(into: [y, u, v])) } catch { result = .failure(error) }
                    }
                }
            }
        }
        guard try result.get() else { return nil }
        buffer.presentationTime = presentationTime(ofFrame: index)
        buffer.duration = MediaTime(value: Int64(header.frameRate.denominator), timescale: Int32(header.frameRate.numerator))
        storage = buffer
        return buffer
    }

    /// Reads the next FRAME line and the frame's bytes into `parts` (together ``Y4MHeader/frameSize`` bytes,
    /// filled in order); false at the end of the stream.
    private func readFrame(into parts: [UnsafeMutableRawBufferPointer]) throws(Y4MError) -> Bool {
        let at = input.offset
        guard let line = try input.readLine(limit: Self.lineLimit) else { return false }
        // "FRAME" with optional per-frame parameters (ignored).
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == 0x20 else {
            throw .badFrameHeader(frame: frameCount, byteOffset: at)
        }
        let dataOffset = input.offset
        var got = 0
        for part in parts {
            let n = try input.read(into: part)
            got += n
            if n < part.count { break }
        }
        guard got == header.frameSize else {
            throw .truncatedFrame(frame: frameCount, byteOffset: dataOffset, expected: header.frameSize, got: got)
        }
        frameCount += 1
        return true
    }
}
