/// What is wrong with a packet, an SDP or a socket; each case names the problem and where it is.
public enum RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A packet shorter than its fixed header, or than what its header declares.
    case truncated(what: String, length: Int, needed: Int)
    /// RTP and RTCP are version 2 (RFC 3550 5.1, 6.4.1).
    case wrongVersion(Int)
    /// The padding count in the last byte is 0 or runs past the header (RFC 3550 5.1).
    case badPadding(count: Int, available: Int)
    case wrongPayloadType(got: Int, expected: Int)
    /// A payload the depacketiser cannot use (RFC 6184 5.2-5.8, RFC 7798 4.4), with the packet's sequence number.
    case badPayload(sequenceNumber: Int, reason: String)
    case sdp(line: Int, reason: String)
    case address(String)
    case socket(call: String, errno: Int32, detail: String)

    public var description: String {
        switch self {
        case let .truncated(what, length, needed): return "\(what) of \(length) bytes is too short: it needs \(needed)"
        case let .wrongVersion(version): return "RTP version \(version), not 2 (RFC 3550 5.1)"
        case let .badPadding(count, available): return "padding length \(count) does not fit the \(available) bytes after the header"
        case let .wrongPayloadType(got, expected): return "payload type \(got), expected \(expected)"
        case let .badPayload(sequence, reason): return "packet \(sequence): \(reason)"
        case let .sdp(line, reason): return line > 0 ? "SDP line \(line): \(reason)" : "SDP: \(reason)"
        case let .address(reason): return reason
        case let .socket(call, errno, detail): return "\(call): \(detail) (errno \(errno))"
        }
    }
}

/// Big-endian reads and writes, bounds-checked by the callers.
extension Array where Element == UInt8 {
    mutating func append16(_ value: UInt16) { append(UInt8(value >> 8)); append(UInt8(value & 0xFF)) }
    mutating func append32(_ value: UInt32) { append16(UInt16(value >> 16)); append16(UInt16(value & 0xFFFF)) }
}

extension Collection where Element == UInt8, Index == Int {
    func read16(_ at: Int) -> UInt16 { UInt16(self[startIndex + at]) << 8 | UInt16(self[startIndex + at + 1]) }
    func read32(_ at: Int) -> UInt32 { UInt32(read16(at)) << 16 | UInt32(read16(at + 2)) }
}
