import CLibAVUtil

/// MD5 (RFC 1321), for the frame checksums that conformance references and FFmpeg's `-f md5` /
/// `-f framemd5` use. Not for security. The hashing is libavutil's `av_md5` (FFmpeg's own, about 1.5x
/// the speed of a plain Swift version); its context lives in a value-typed buffer, so copies are
/// independent.
public struct MD5: Sendable {
    /// libavutil's AVMD5 context (opaque, `av_md5_size` bytes), 8-byte aligned.
    private var context: [UInt64]

    public init() {
        context = [UInt64](repeating: 0, count: (Int(av_md5_size) + 7) / 8)
        withContext { av_md5_init($0) }
    }

    /// The context's address for a libavutil call (the buffer is never empty, so the call always runs).
    private mutating func withContext(_ body: (OpaquePointer) -> Void) {
        context.withUnsafeMutableBytes { buffer in buffer.baseAddress.map { body(OpaquePointer($0)) } }
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Hashes bytes in place, straight from the caller's memory.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {  // av_md5_update takes a size_t; chunks keep any Int count safe
            let count = min(bytes.count - offset, 1 << 30)
            withContext { av_md5_update($0, base.assumingMemoryBound(to: UInt8.self) + offset, count) }
            offset += count
        }
    }

    /// The digest as 32 lowercase hex digits.
    public mutating func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { out in
            guard let address = out.baseAddress else { return }
            withContext { av_md5_final($0, address) }
        }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize()
    }
}
