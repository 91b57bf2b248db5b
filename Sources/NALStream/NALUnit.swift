/// One NAL unit of any codec: its header and payload, emulation prevention bytes still in them, as it
/// stands in the byte stream. `offset` is where the first header byte was in the source (byte stream or
/// sample). The codec modules read the header: H.264's one byte (7.3.1), H.265's two (7.3.1.2).
public struct NALUnit: Hashable, Sendable {
    /// The NAL unit's bytes, header included, with emulation prevention (the "EBSP").
    public var bytes: ArraySlice<UInt8>
    /// Byte offset of the first header byte in the stream it came from.
    public var offset: Int

    public init(bytes: ArraySlice<UInt8>, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes[...]
        self.offset = offset
    }

    /// The unit without trailing zero bytes, keeping at least `headerSize` bytes. A NAL unit never ends in
    /// 0x00 (7.4.1), but some writers (FFmpeg's avcC among them) keep the zero byte of the next 4-byte start
    /// code; dropping it makes equal parameter sets compare equal.
    public func withoutTrailingZeroBytes(headerSize: Int) -> NALUnit {
        var trimmed = Array(bytes)
        while trimmed.count > headerSize && trimmed.last == 0 { trimmed.removeLast() }
        return NALUnit(trimmed)
    }

    public static func == (a: NALUnit, b: NALUnit) -> Bool { a.bytes.elementsEqual(b.bytes) }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes.count); for b in bytes.prefix(16) { hasher.combine(b) } }
}
