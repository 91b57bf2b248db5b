/// Reads big-endian fields from a box's payload. Every read checks the bytes left and throws an error
/// naming the box and the file offset of the field.
struct BoxReader {
    let type: FourCC
    let bytes: ArraySlice<UInt8>
    /// File offset of `bytes.startIndex`.
    let fileOffset: UInt64
    private(set) var index: Int

    init(_ box: Box) {
        type = box.type
        bytes = box.payload
        fileOffset = box.header.payloadOffset
        index = box.payload.startIndex
    }

    init(type: FourCC, bytes: ArraySlice<UInt8>, fileOffset: UInt64) {
        self.type = type
        self.bytes = bytes
        self.fileOffset = fileOffset
        index = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - index }
    /// File offset of the next byte.
    var position: UInt64 { fileOffset + UInt64(index - bytes.startIndex) }

    private mutating func need(_ count: Int) throws(MP4Error) {
        guard count <= remaining else {
            throw .truncated(box: type.description, offset: position, needed: UInt64(count), available: UInt64(remaining))
        }
    }

    mutating func u8() throws(MP4Error) -> UInt8 {
        try need(1)
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() throws(MP4Error) -> UInt16 {
        try need(2)
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    mutating func u24() throws(MP4Error) -> UInt32 {
        try need(3)
        defer { index += 3 }
        return UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
    }

    mutating func u32() throws(MP4Error) -> UInt32 {
        try need(4)
        defer { index += 4 }
        return UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }

    mutating func u64() throws(MP4Error) -> UInt64 {
        let high = try u32()
        return UInt64(high) << 32 | UInt64(try u32())
    }

    mutating func i32() throws(MP4Error) -> Int32 { Int32(bitPattern: try u32()) }
    mutating func i64() throws(MP4Error) -> Int64 { Int64(bitPattern: try u64()) }

    mutating func fourCC() throws(MP4Error) -> FourCC { FourCC(rawValue: try u32()) }

    mutating func skip(_ count: Int) throws(MP4Error) {
        try need(count)
        index += count
    }

    mutating func take(_ count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        try need(count)
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    /// The rest of the payload.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }

    /// A full box's version and flags (4.2).
    mutating func fullBoxHeader() throws(MP4Error) -> (version: UInt8, flags: UInt32) {
        let word = try u32()
        return (UInt8(word >> 24), word & 0xFF_FFFF)
    }

    /// `mvhd` and `mdhd` after their full box header: creation and modification times skipped, then the
    /// timescale and the duration, 64-bit times in version 1 (8.2.2, 8.4.2).
    mutating func timescaleAndDuration(version: UInt8) throws(MP4Error) -> (timescale: UInt32, duration: UInt64) {
        let wide = version == 1
        try skip(wide ? 16 : 8)
        let timescale = try u32()
        return (timescale, wide ? try u64() : UInt64(try u32()))
    }

    /// Checks that `count` entries of `entrySize` bytes fit in what is left, before anything is reserved
    /// for them: counts come from the file and cannot be trusted.
    func checkCount(_ count: UInt64, entrySize: Int, what: String) throws(MP4Error) {
        let (total, overflow) = count.multipliedReportingOverflow(by: UInt64(entrySize))
        guard !overflow, total <= UInt64(remaining) else {
            throw .malformed(box: type.description, offset: position,
                             reason: "\(count) \(what) of \(entrySize) bytes do not fit in the \(remaining) byte(s) left")
        }
    }

    func malformed(_ reason: String) -> MP4Error { .malformed(box: type.description, offset: position, reason: reason) }
}
