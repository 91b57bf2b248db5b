/// The header of one box (ISO/IEC 14496-12, 4.2): its type and extent in the file. A 32-bit size of 1
/// means a 64-bit size follows; 0 means the box runs to the end of the file (top level only).
public struct BoxHeader: Hashable, Sendable {
    public let type: FourCC
    /// File offset of the box's first byte.
    public let offset: UInt64
    /// 8, 16 (64-bit size), or 24/32 with a `uuid` user type.
    public let headerSize: Int
    /// Whole box size, header included.
    public let size: UInt64

    public var payloadOffset: UInt64 { offset + UInt64(headerSize) }
    public var payloadSize: UInt64 { size - UInt64(headerSize) }
    public var end: UInt64 { offset + size }

    /// Parses a header from `bytes` (which start at the header and hold at least 32 bytes or all of
    /// `spaceLeft`). `spaceLeft` is the number of bytes from `offset` to the end of the parent box (or the
    /// file); the box must fit in it. `parent` names the enclosing box for errors (nil at top level).
    static func parse(_ bytes: ArraySlice<UInt8>, offset: UInt64, spaceLeft: UInt64, parent: FourCC?) throws(MP4Error) -> BoxHeader {
        let where_ = parent?.description ?? "file"
        guard spaceLeft >= 8, bytes.count >= 8 else {
            throw .truncated(box: "header in \(where_)", offset: offset, needed: 8, available: min(spaceLeft, UInt64(bytes.count)))
        }
        let s = bytes.startIndex
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[s + at]) << 24 | UInt32(bytes[s + at + 1]) << 16 | UInt32(bytes[s + at + 2]) << 8 | UInt32(bytes[s + at + 3])
        }
        let size32 = u32(0)
        let type = FourCC(rawValue: u32(4))
        var headerSize = 8
        var size = UInt64(size32)
        if size32 == 1 {
            guard spaceLeft >= 16, bytes.count >= 16 else {
                throw .truncated(box: type.description, offset: offset, needed: 16, available: min(spaceLeft, UInt64(bytes.count)))
            }
            size = UInt64(u32(8)) << 32 | UInt64(u32(12))
            headerSize = 16
        } else if size32 == 0 {
            guard parent == nil else {
                throw .badBoxSize(box: type.description, offset: offset, size: 0, reason: "size 0 (to end of file) inside '\(where_)'")
            }
            size = spaceLeft
        }
        if type == "uuid" {
            guard spaceLeft >= UInt64(headerSize + 16), bytes.count >= headerSize + 16 else {
                throw .truncated(box: "uuid", offset: offset, needed: UInt64(headerSize + 16), available: min(spaceLeft, UInt64(bytes.count)))
            }
            headerSize += 16
        }
        guard size >= UInt64(headerSize) else {
            throw .badBoxSize(box: type.description, offset: offset, size: size, reason: "smaller than its \(headerSize)-byte header")
        }
        guard size <= spaceLeft else {
            throw .badBoxSize(box: type.description, offset: offset, size: size,
                              reason: "runs past the end of '\(where_)' (\(spaceLeft) byte(s) left)")
        }
        return BoxHeader(type: type, offset: offset, headerSize: headerSize, size: size)
    }
}
