/// One reception report block of an SR or RR (RFC 3550 6.4.1).
public struct ReportBlock: Hashable, Sendable {
    public var ssrc: UInt32
    /// Packets lost since the last report, as a fixed-point fraction of 256.
    public var fractionLost: UInt8
    /// Cumulative packets lost (24-bit signed on the wire).
    public var cumulativeLost: Int32
    /// Cycles of the sequence number in the high 16 bits, highest sequence number received in the low.
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units (A.8).
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR received, and the delay since, in 1/65536 s.
    public var lastSenderReport: UInt32
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32, jitter: UInt32,
                lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

/// The RTCP packets vtk sends and reads: SR, RR, SDES CNAME, BYE (RFC 3550 6.4-6.6) and PLI (RFC 4585 6.3.1).
public enum RTCPPacket: Hashable, Sendable {
    case senderReport(ssrc: UInt32, ntpTime: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32, reports: [ReportBlock])
    case receiverReport(ssrc: UInt32, reports: [ReportBlock])
    case sourceDescription(ssrc: UInt32, cname: String)
    case goodbye(ssrcs: [UInt32])
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
    /// Packet types vtk does not use (APP, other feedback); skipped.
    case other(packetType: UInt8, count: UInt8)

    /// Parses a compound RTCP packet (6.1): every packet's length must fit the datagram.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTPError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw .truncated(what: "RTCP header at byte \(offset)", length: bytes.count - offset, needed: 4) }
            let version = Int(bytes[offset] >> 6)
            guard version == 2 else { throw .wrongVersion(version) }
            let count = bytes[offset] & 0x1F
            let type = bytes[offset + 1]
            let length = 4 * (Int(bytes.read16(offset + 2)) + 1)
            guard offset + length <= bytes.count else { throw .truncated(what: "RTCP packet type \(type) at byte \(offset)", length: bytes.count - offset, needed: length) }
            var body = Array(bytes[(offset + 4)..<(offset + length)])
            if bytes[offset] & 0x20 != 0 {
                let padding = Int(body.last ?? 0)
                guard padding >= 1, padding <= body.count else { throw .badPadding(count: padding, available: body.count) }
                body.removeLast(padding)
            }
            packets.append(try parse(type: type, count: count, body: body, at: offset))
            offset += length
        }
        return packets
    }

    private static func parse(type: UInt8, count: UInt8, body: [UInt8], at offset: Int) throws(RTPError) -> RTCPPacket {
        func need(_ n: Int, _ what: String) throws(RTPError) {
            if body.count < n { throw .truncated(what: "RTCP \(what) at byte \(offset)", length: body.count + 4, needed: n + 4) }
        }
        func blocks(from start: Int) throws(RTPError) -> [ReportBlock] {
            try need(start + 24 * Int(count), "report blocks")
            return (0..<Int(count)).map { i in
                let b = start + 24 * i
                let lost24 = body.read32(b + 4) & 0xFFFFFF
                return ReportBlock(ssrc: body.read32(b), fractionLost: body[b + 4], cumulativeLost: Int32(bitPattern: lost24 << 8) >> 8,
                                   extendedHighestSequence: body.read32(b + 8), jitter: body.read32(b + 12),
                                   lastSenderReport: body.read32(b + 16), delaySinceLastSenderReport: body.read32(b + 20))
            }
        }
        switch type {
        case 200:
            try need(24, "sender report")
            return .senderReport(ssrc: body.read32(0), ntpTime: UInt64(body.read32(4)) << 32 | UInt64(body.read32(8)),
                                 rtpTimestamp: body.read32(12), packetCount: body.read32(16), octetCount: body.read32(20), reports: try blocks(from: 24))
        case 201:
            try need(4, "receiver report")
            return .receiverReport(ssrc: body.read32(0), reports: try blocks(from: 4))
        case 202:
            // 6.5: chunks of SSRC then items; only the first chunk's CNAME is kept.
            guard count > 0, body.count >= 4 else { return .other(packetType: type, count: count) }
            var i = 4
            while i + 2 <= body.count, body[i] != 0 {
                let itemLength = Int(body[i + 1])
                guard i + 2 + itemLength <= body.count else { throw .truncated(what: "SDES item at byte \(offset + 4 + i)", length: body.count - i, needed: 2 + itemLength) }
                if body[i] == 1 { return .sourceDescription(ssrc: body.read32(0), cname: String(decoding: body[(i + 2)..<(i + 2 + itemLength)], as: UTF8.self)) }
                i += 2 + itemLength
            }
            return .other(packetType: type, count: count)
        case 203:
            try need(4 * Int(count), "BYE")
            return .goodbye(ssrcs: (0..<Int(count)).map { body.read32(4 * $0) })
        case 206 where count == 1:
            try need(8, "PLI")
            return .pictureLossIndication(senderSSRC: body.read32(0), mediaSSRC: body.read32(4))
        default:
            return .other(packetType: type, count: count)
        }
    }

    /// The packet on the wire (no padding).
    public func serialized() -> [UInt8] {
        var body: [UInt8] = []
        let type: UInt8
        var count = 0
        func append(_ blocks: [ReportBlock]) {
            for block in blocks.prefix(31) {
                body.append32(block.ssrc)
                body.append32(UInt32(block.fractionLost) << 24 | UInt32(bitPattern: block.cumulativeLost) & 0xFFFFFF)
                body.append32(block.extendedHighestSequence)
                body.append32(block.jitter)
                body.append32(block.lastSenderReport)
                body.append32(block.delaySinceLastSenderReport)
            }
            count = min(blocks.count, 31)
        }
        switch self {
        case let .senderReport(ssrc, ntp, rtp, packets, octets, reports):
            type = 200
            body.append32(ssrc)
            body.append32(UInt32(ntp >> 32))
            body.append32(UInt32(ntp & 0xFFFF_FFFF))
            body.append32(rtp)
            body.append32(packets)
            body.append32(octets)
            append(reports)
        case let .receiverReport(ssrc, reports):
            type = 201
            body.append32(ssrc)
            append(reports)
        case let .sourceDescription(ssrc, cname):
            type = 202
            count = 1
            body.append32(ssrc)
            let text = Array(cname.utf8.prefix(255))
            body += [1, UInt8(text.count)] + text + [0]
            while body.count % 4 != 0 { body.append(0) }
        case let .goodbye(ssrcs):
            type = 203
            for ssrc in ssrcs.prefix(31) { body.append32(ssrc) }
            count = min(ssrcs.count, 31)
        case let .pictureLossIndication(sender, media):
            type = 206
            count = 1  // FMT 1 = PLI
            body.append32(sender)
            body.append32(media)
        case let .other(packetType, otherCount):
            type = packetType
            count = Int(otherCount & 0x1F)
        }
        var bytes: [UInt8] = [0x80 | UInt8(count), type]
        bytes.append16(UInt16(body.count / 4))
        return bytes + body
    }

    public static func compound(_ packets: [RTCPPacket]) -> [UInt8] { packets.flatMap { $0.serialized() } }
}

/// NTP time (RFC 3550 4): seconds since 1900 in the high 32 bits, the fraction in the low.
public enum NTPTime {
    public static func from(unixSeconds: Double) -> UInt64 {
        let seconds = unixSeconds + 2_208_988_800
        let whole = UInt64(max(0, seconds))
        return whole << 32 | UInt64((seconds - Double(whole)) * 4_294_967_296)
    }

    public static func unixSeconds(_ ntp: UInt64) -> Double {
        Double(ntp >> 32) - 2_208_988_800 + Double(ntp & 0xFFFF_FFFF) / 4_294_967_296
    }

    /// The middle 32 bits, as in LSR (6.4.1).
    public static func middle(_ ntp: UInt64) -> UInt32 { UInt32((ntp >> 16) & 0xFFFF_FFFF) }
}
