/// MD5 (RFC 1321), for the frame checksums that conformance references and FFmpeg's `-f md5` /
/// `-f framemd5` use. Not for security.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476)
    private var buffer = [UInt8]()
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }


    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Hashes bytes in place: whole 64-byte blocks straight from the caller's memory.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length += UInt64(bytes.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: bytes[0..<take])
            offset = take
            if buffer.count == 64 {
                let block = buffer
                block.withUnsafeBytes { compress($0.baseAddress!) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        guard let base = bytes.baseAddress else { return }
        while bytes.count - offset >= 64 {
            compress(base + offset)
            offset += 64
        }
        if offset < bytes.count { buffer.append(contentsOf: bytes[offset...]) }
    }

    /// One 64-byte block (RFC 1321 3.4), fully unrolled: 64 steps with the constants of 3.4 inline.
    private mutating func compress(_ block: UnsafeRawPointer) {
        let p = block
        @inline(__always) func rotl(_ x: UInt32, _ s: UInt32) -> UInt32 { (x << s) | (x >> (32 - s)) }
        var words = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                     UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: 64)) }
        var (a, b, c, d) = state
        withUnsafeBytes(of: &words) { raw in
            let w = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
        a = b &+ rotl(a &+ ((b & c) | (~b & d)) &+ 0xd76aa478 &+ w[0], 7)
        d = a &+ rotl(d &+ ((a & b) | (~a & c)) &+ 0xe8c7b756 &+ w[1], 12)
        c = d &+ rotl(c &+ ((d & a) | (~d & b)) &+ 0x242070db &+ w[2], 17)
        b = c &+ rotl(b &+ ((c & d) | (~c & a)) &+ 0xc1bdceee &+ w[3], 22)
        a = b &+ rotl(a &+ ((b & c) | (~b & d)) &+ 0xf57c0faf &+ w[4], 7)
        d = a &+ rotl(d &+ ((a & b) | (~a & c)) &+ 0x4787c62a &+ w[5], 12)
        c = d &+ rotl(c &+ ((d & a) | (~d & b)) &+ 0xa8304613 &+ w[6], 17)
        b = c &+ rotl(b &+ ((c & d) | (~c & a)) &+ 0xfd469501 &+ w[7], 22)
        a = b &+ rotl(a &+ ((b & c) | (~b & d)) &+ 0x698098d8 &+ w[8], 7)
        d = a &+ rotl(d &+ ((a & b) | (~a & c)) &+ 0x8b44f7af &+ w[9], 12)
        c = d &+ rotl(c &+ ((d & a) | (~d & b)) &+ 0xffff5bb1 &+ w[10], 17)
        b = c &+ rotl(b &+ ((c & d) | (~c & a)) &+ 0x895cd7be &+ w[11], 22)
        a = b &+ rotl(a &+ ((b & c) | (~b & d)) &+ 0x6b901122 &+ w[12], 7)
        d = a &+ rotl(d &+ ((a & b) | (~a & c)) &+ 0xfd987193 &+ w[13], 12)
        c = d &+ rotl(c &+ ((d & a) | (~d & b)) &+ 0xa679438e &+ w[14], 17)
        b = c &+ rotl(b &+ ((c & d) | (~c & a)) &+ 0x49b40821 &+ w[15], 22)
        a = b &+ rotl(a &+ ((d & b) | (~d & c)) &+ 0xf61e2562 &+ w[1], 5)
        d = a &+ rotl(d &+ ((c & a) | (~c & b)) &+ 0xc040b340 &+ w[6], 9)
        c = d &+ rotl(c &+ ((b & d) | (~b & a)) &+ 0x265e5a51 &+ w[11], 14)
        b = c &+ rotl(b &+ ((a & c) | (~a & d)) &+ 0xe9b6c7aa &+ w[0], 20)
        a = b &+ rotl(a &+ ((d & b) | (~d & c)) &+ 0xd62f105d &+ w[5], 5)
        d = a &+ rotl(d &+ ((c & a) | (~c & b)) &+ 0x02441453 &+ w[10], 9)
        c = d &+ rotl(c &+ ((b & d) | (~b & a)) &+ 0xd8a1e681 &+ w[15], 14)
        b = c &+ rotl(b &+ ((a & c) | (~a & d)) &+ 0xe7d3fbc8 &+ w[4], 20)
        a = b &+ rotl(a &+ ((d & b) | (~d & c)) &+ 0x21e1cde6 &+ w[9], 5)
        d = a &+ rotl(d &+ ((c & a) | (~c & b)) &+ 0xc33707d6 &+ w[14], 9)
        c = d &+ rotl(c &+ ((b & d) | (~b & a)) &+ 0xf4d50d87 &+ w[3], 14)
        b = c &+ rotl(b &+ ((a & c) | (~a & d)) &+ 0x455a14ed &+ w[8], 20)
        a = b &+ rotl(a &+ ((d & b) | (~d & c)) &+ 0xa9e3e905 &+ w[13], 5)
        d = a &+ rotl(d &+ ((c & a) | (~c & b)) &+ 0xfcefa3f8 &+ w[2], 9)
        c = d &+ rotl(c &+ ((b & d) | (~b & a)) &+ 0x676f02d9 &+ w[7], 14)
        b = c &+ rotl(b &+ ((a & c) | (~a & d)) &+ 0x8d2a4c8a &+ w[12], 20)
        a = b &+ rotl(a &+ (b ^ c ^ d) &+ 0xfffa3942 &+ w[5], 4)
        d = a &+ rotl(d &+ (a ^ b ^ c) &+ 0x8771f681 &+ w[8], 11)
        c = d &+ rotl(c &+ (d ^ a ^ b) &+ 0x6d9d6122 &+ w[11], 16)
        b = c &+ rotl(b &+ (c ^ d ^ a) &+ 0xfde5380c &+ w[14], 23)
        a = b &+ rotl(a &+ (b ^ c ^ d) &+ 0xa4beea44 &+ w[1], 4)
        d = a &+ rotl(d &+ (a ^ b ^ c) &+ 0x4bdecfa9 &+ w[4], 11)
        c = d &+ rotl(c &+ (d ^ a ^ b) &+ 0xf6bb4b60 &+ w[7], 16)
        b = c &+ rotl(b &+ (c ^ d ^ a) &+ 0xbebfbc70 &+ w[10], 23)
        a = b &+ rotl(a &+ (b ^ c ^ d) &+ 0x289b7ec6 &+ w[13], 4)
        d = a &+ rotl(d &+ (a ^ b ^ c) &+ 0xeaa127fa &+ w[0], 11)
        c = d &+ rotl(c &+ (d ^ a ^ b) &+ 0xd4ef3085 &+ w[3], 16)
        b = c &+ rotl(b &+ (c ^ d ^ a) &+ 0x04881d05 &+ w[6], 23)
        a = b &+ rotl(a &+ (b ^ c ^ d) &+ 0xd9d4d039 &+ w[9], 4)
        d = a &+ rotl(d &+ (a ^ b ^ c) &+ 0xe6db99e5 &+ w[12], 11)
        c = d &+ rotl(c &+ (d ^ a ^ b) &+ 0x1fa27cf8 &+ w[15], 16)
        b = c &+ rotl(b &+ (c ^ d ^ a) &+ 0xc4ac5665 &+ w[2], 23)
        a = b &+ rotl(a &+ (c ^ (b | ~d)) &+ 0xf4292244 &+ w[0], 6)
        d = a &+ rotl(d &+ (b ^ (a | ~c)) &+ 0x432aff97 &+ w[7], 10)
        c = d &+ rotl(c &+ (a ^ (d | ~b)) &+ 0xab9423a7 &+ w[14], 15)
        b = c &+ rotl(b &+ (d ^ (c | ~a)) &+ 0xfc93a039 &+ w[5], 21)
        a = b &+ rotl(a &+ (c ^ (b | ~d)) &+ 0x655b59c3 &+ w[12], 6)
        d = a &+ rotl(d &+ (b ^ (a | ~c)) &+ 0x8f0ccc92 &+ w[3], 10)
        c = d &+ rotl(c &+ (a ^ (d | ~b)) &+ 0xffeff47d &+ w[10], 15)
        b = c &+ rotl(b &+ (d ^ (c | ~a)) &+ 0x85845dd1 &+ w[1], 21)
        a = b &+ rotl(a &+ (c ^ (b | ~d)) &+ 0x6fa87e4f &+ w[8], 6)
        d = a &+ rotl(d &+ (b ^ (a | ~c)) &+ 0xfe2ce6e0 &+ w[15], 10)
        c = d &+ rotl(c &+ (a ^ (d | ~b)) &+ 0xa3014314 &+ w[6], 15)
        b = c &+ rotl(b &+ (d ^ (c | ~a)) &+ 0x4e0811a1 &+ w[13], 21)
        a = b &+ rotl(a &+ (c ^ (b | ~d)) &+ 0xf7537e82 &+ w[4], 6)
        d = a &+ rotl(d &+ (b ^ (a | ~c)) &+ 0xbd3af235 &+ w[11], 10)
        c = d &+ rotl(c &+ (a ^ (d | ~b)) &+ 0x2ad7d2bb &+ w[2], 15)
        b = c &+ rotl(b &+ (d ^ (c | ~a)) &+ 0xeb86d391 &+ w[9], 21)
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

