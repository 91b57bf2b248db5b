#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// read(2), reachable from a type with a `read` of its own.
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, p, n) }

/// Buffered reading from a file descriptor (a file or a pipe such as stdin), chunk by chunk.
final class ByteInput {
    private let descriptor: Int32
    private let closeOnDeinit: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes consumed from the stream so far.
    private(set) var offset = 0
    static let chunkSize = 1 << 16

    init(descriptor: Int32, closeOnDeinit: Bool) {
        self.descriptor = descriptor
        self.closeOnDeinit = closeOnDeinit
    }

    deinit { if closeOnDeinit { close(descriptor) } }

    /// Reads up to `count` bytes from the descriptor into `pointer`; 0 at end of stream.
    private func readSome(_ pointer: UnsafeMutableRawPointer, _ count: Int) throws(Y4MError) -> Int {
        while true {
            let n = systemRead(descriptor, pointer, count)
            if n >= 0 { return n }
            if errno != EINTR { throw .io(operation: "read", errno: errno) }
        }
    }

    /// Refills the buffer; false at end of stream.
    private func fill() throws(Y4MError) -> Bool {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
        var got = 0
        var failure: Y4MError?
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            do throws(Y4MError) { got = try readSome(base + old, Self.chunkSize) } catch { failure = error }
        }
        buffer.removeLast(Self.chunkSize - got)
        if let failure { throw failure }
        return got > 0
    }

    /// The bytes up to the next newline (not included; the newline is consumed). nil at end of stream
    /// with nothing read. Throws when no newline comes within `limit` bytes.
    func readLine(limit: Int) throws(Y4MError) -> [UInt8]? {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                offset += newline + 1 - start
                start = newline + 1
                return line
            }
            searched = buffer.count
            guard buffer.count - start <= limit else { throw .lineTooLong(byteOffset: offset, limit: limit) }
            let before = buffer.count - start
            if try !fill() {
                if before == 0 { return nil }
                let line = Array(buffer[start...])
                offset += buffer.count - start
                start = buffer.count
                return line
            }
            searched = start + before
        }
    }

    /// Fills `destination` completely unless the stream ends; returns the bytes read.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(Y4MError) -> Int {
        guard let base = destination.baseAddress else { return 0 }
        var done = min(destination.count, buffer.count - start)
        if done > 0 {
            buffer.withUnsafeBytes { src in if let from = src.baseAddress { base.copyMemory(from: from + start, byteCount: done) } }
            start += done
        }
        while done < destination.count {
            let n = try readSome(base + done, destination.count - done)
            if n == 0 { break }
            done += n
        }
        offset += done
        return done
    }
}
