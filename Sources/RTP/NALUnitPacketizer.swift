/// Splits an access unit's NAL units into RTP payloads: a NAL unit that fits goes alone, or with its small
/// neighbours in an aggregation packet; a larger one is cut into fragmentation units. H.264: RFC 6184
/// packetization-mode 1 (5.6, STAP-A 5.7.1, FU-A 5.8); H.265: RFC 7798 (4.4.1, AP 4.4.2, FU 4.4.3).
public struct NALUnitPacketizer<Format: NALPayloadFormat>: Sendable {
    /// The largest payload: the MTU less the 12-byte RTP header.
    public let maxPayloadSize: Int

    /// `mtu` is the largest RTP packet (header included); at least 16, so a fragment carries a byte.
    public init(mtu: Int = 1200) {
        maxPayloadSize = max(Format.headerSize + 3, mtu - 12)
    }

    /// The payloads of one access unit, in order; the caller sets the marker bit on the last.
    public func payloads<C: Collection>(for nalUnits: [C]) -> [[UInt8]] where C.Element == UInt8 {
        var payloads: [[UInt8]] = []
        var group: [[UInt8]] = []
        var groupSize = Format.headerSize
        func flush() {
            if group.count == 1 { payloads.append(group[0]) }
            if group.count > 1 {
                var packet = Format.aggregationHeader(for: group)
                for unit in group { packet.append16(UInt16(unit.count)); packet += unit }
                payloads.append(packet)
            }
            group = []
            groupSize = Format.headerSize
        }
        for nal in nalUnits where !nal.isEmpty {
            let unit = Array(nal)
            if unit.count > maxPayloadSize {
                flush()
                payloads += fragments(of: unit)
            } else if groupSize + 2 + unit.count <= maxPayloadSize, unit.count <= 0xFFFF {
                group.append(unit)
                groupSize += 2 + unit.count
            } else {
                flush()
                group.append(unit)
                groupSize += 2 + unit.count
            }
        }
        flush()
        return payloads
    }

    /// Payload header, FU header (S, E, the NAL unit type), then a piece of the unit after its header.
    private func fragments(of unit: [UInt8]) -> [[UInt8]] {
        let payloadHeader = Format.fragmentationHeader(for: unit)
        let type = Format.nalUnitType(unit)
        let chunk = maxPayloadSize - Format.headerSize - 1
        var result: [[UInt8]] = []
        var start = Format.headerSize
        while start < unit.count {
            let end = min(unit.count, start + chunk)
            let header = (start == Format.headerSize ? 0x80 : 0) | (end == unit.count ? 0x40 : 0) | type
            result.append(payloadHeader + [header] + unit[start..<end])
            start = end
        }
        return result
    }
}

public typealias H264Packetizer = NALUnitPacketizer<H264PayloadFormat>
public typealias H265Packetizer = NALUnitPacketizer<H265PayloadFormat>
