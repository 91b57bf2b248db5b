import Foundation
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

    public convenience init(url: URL) throws(Y4MError) {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { throw .io(operation: "open \(url.path)", errno: errno) }
        try self.init(fileDescriptor: fd, closeOnDeinit: true)
    }

    /// Reads from an open descriptor, e.g. `FileHandle.standardInput.fileDescriptor`.
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
        let at = input.offset
        guard let line = try input.readLine(limit: Self.lineLimit) else { return nil }
        // "FRAME" with optional per-frame parameters (ignored).
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == 0x20 else {
            throw .badFrameHeader(frame: frameCount, byteOffset: at)
        }
        let dataOffset = input.offset
        var bytes = [UInt8](repeating: 0, count: header.frameSize)
        var result: Result<Int, Y4MError> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            do throws(Y4MError) { result = .success(try input.read(into: raw)) } catch { result = .failure(error) }
        }
        let got = try result.get()
        guard got == bytes.count else {
            throw .truncatedFrame(frame: frameCount, byteOffset: dataOffset, expected: bytes.count, got: got)
        }
        frameCount += 1
        return bytes
    }

    /// The next frame as an I420 pixel buffer (yuv420p10 for C420p10) with its presentation time and
    /// duration, or nil at the end.
    public func nextFrame() throws(Y4MError) -> PixelBuffer? {
        let index = frameCount
        let format: PixelFormat = header.colorspace.bytesPerSample == 2 ? .yuv420p10 : .i420
        guard let bytes = try nextFrameBytes(),
              var buffer = PixelBuffer(format: format, width: header.width, height: header.height, packed: bytes[...]) else { return nil }
        buffer.presentationTime = presentationTime(ofFrame: index)
        buffer.duration = MediaTime(value: Int64(header.frameRate.denominator), timescale: Int32(header.frameRate.numerator))
        return buffer
    }
}
