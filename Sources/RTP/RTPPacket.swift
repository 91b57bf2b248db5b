/// An RTP data packet (RFC 3550 5.1): fixed header, CSRCs, an optional header extension, payload, padding.
public struct RTPPacket: Hashable, Sendable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    public var payload: [UInt8]

    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                csrcs: [UInt32] = [], payload: [UInt8]) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.payload = payload
    }

    /// Parses one datagram; the header extension is skipped and padding removed.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        guard bytes.count >= 12 else { throw .truncated(what: "RTP packet", length: bytes.count, needed: 12) }
        let version = Int(bytes[0] >> 6)
        guard version == 2 else { throw .wrongVersion(version) }
        let hasPadding = bytes[0] & 0x20 != 0
        let hasExtension = bytes[0] & 0x10 != 0
        let csrcCount = Int(bytes[0] & 0x0F)
        var headerLength = 12 + 4 * csrcCount
        guard bytes.count >= headerLength else { throw .truncated(what: "RTP packet with \(csrcCount) CSRCs", length: bytes.count, needed: headerLength) }
        csrcs = (0..<csrcCount).map { bytes.read32(12 + 4 * $0) }
        if hasExtension {  // 5.3.1: 16-bit profile field, 16-bit length in 32-bit words
            guard bytes.count >= headerLength + 4 else { throw .truncated(what: "RTP header extension", length: bytes.count, needed: headerLength + 4) }
            headerLength += 4 + 4 * Int(bytes.read16(headerLength + 2))
            guard bytes.count >= headerLength else { throw .truncated(what: "RTP packet with its header extension", length: bytes.count, needed: headerLength) }
        }
        var end = bytes.count
        if hasPadding {
            let count = Int(bytes[bytes.count - 1])
            guard count >= 1, count <= bytes.count - headerLength else { throw .badPadding(count: count, available: bytes.count - headerLength) }
            end -= count
        }
        marker = bytes[1] & 0x80 != 0
        payloadType = bytes[1] & 0x7F
        sequenceNumber = bytes.read16(2)
        timestamp = bytes.read32(4)
        ssrc = bytes.read32(8)
        payload = Array(bytes[headerLength..<end])
    }

    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = [0x80 | UInt8(min(csrcs.count, 15)), (marker ? 0x80 : 0) | (payloadType & 0x7F)]
        bytes.reserveCapacity(12 + 4 * csrcs.count + payload.count)
        bytes.append16(sequenceNumber)
        bytes.append32(timestamp)
        bytes.append32(ssrc)
        for csrc in csrcs.prefix(15) { bytes.append32(csrc) }
        bytes += payload
        return bytes
    }

    /// RTP and RTCP share a port only with RFC 5761 multiplexing; payload types 72-76 there are RTCP.
    public static func looksLikeRTCP(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && (200...206).contains(Int(bytes[1])) }
}
