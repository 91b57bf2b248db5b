/// A four-character code: a box type or a sample entry format such as `avc1`.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From four ASCII characters; other lengths are padded with spaces or cut.
    public init(_ text: String) {
        var value: UInt32 = 0
        let bytes = Array(text.utf8.prefix(4)) + Array(repeating: UInt8(ascii: " "), count: max(0, 4 - text.utf8.count))
        for byte in bytes { value = value << 8 | UInt32(byte) }
        rawValue = value
    }

    public init(stringLiteral value: String) { self.init(value) }

    public var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * $0)) } }

    /// The four characters, or hex digits when they are not printable ASCII.
    public var description: String {
        let b = bytes
        if b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: b, as: UTF8.self) }
        return "0x" + String(rawValue, radix: 16)
    }
}
