/// MD5 (RFC 1321), for the frame checksums that conformance references and FFmpeg's `-f md5` /
/// `-f framemd5` use. Not for security.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476)
    private var buffer = [UInt8]()
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }

    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4294967296.0).rounded(.down)))
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length += UInt64(bytes.count)
        var rest = bytes[...]
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, rest.count)
            buffer.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if buffer.count == 64 {
                let block = buffer
                block.withUnsafeBytes { compress($0) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        while rest.count >= 64 {
            let end = rest.index(rest.startIndex, offsetBy: 64)
            let chunk = rest[rest.startIndex..<end]
            if let done = chunk.withContiguousStorageIfAvailable({ compress(UnsafeRawBufferPointer($0)) }) {
                _ = done
            } else {
                Array(chunk).withUnsafeBytes { compress($0) }
            }
            rest = rest[end...]
        }
        buffer.append(contentsOf: rest)
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var m = [UInt32](repeating: 0, count: 16)
        for i in 0..<16 { m[i] = block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).littleEndian }
        var (a, b, c, d) = state
        for i in 0..<64 {
            var f: UInt32
            var g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
            default: f = c ^ (b | ~d); g = (7 * i) % 16
            }
            f = f &+ a &+ Self.constants[i] &+ m[g]
            a = d; d = c; c = b
            b = b &+ ((f << Self.shifts[i]) | (f >> (32 - Self.shifts[i])))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    /// The digest as 32 lowercase hex digits.
    public mutating func finalize() -> String {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        while (buffer.count + tail.count) % 64 != 56 { tail.append(0) }
        for i in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }
        let savedLength = length
        update(tail)
        length = savedLength
        var out = ""
        for word in [state.0, state.1, state.2, state.3] {
            for i in 0..<4 {
                let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))
                out += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }
        }
        return out
    }

    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
