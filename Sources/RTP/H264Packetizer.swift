/// Splits an access unit's NAL units into RTP payloads by RFC 6184 packetization-mode 1: a NAL unit that
/// fits goes alone (5.6) or with its small neighbours in a STAP-A (5.7.1); a larger one is cut into FU-As (5.8).
public struct H264Packetizer: Sendable {
    /// The largest payload: the MTU less the 12-byte RTP header.
    public let maxPayloadSize: Int

    /// `mtu` is the largest RTP packet (header included); at least 16, so an FU-A carries a byte.
    public init(mtu: Int = 1200) {
        maxPayloadSize = max(4, mtu - 12)
    }

    /// The payloads of one access unit, in order; the caller sets the marker bit on the last (5.1).
    public func payloads<C: Collection>(for nalUnits: [C]) -> [[UInt8]] where C.Element == UInt8 {
        var payloads: [[UInt8]] = []
        var group: [[UInt8]] = []
        var groupSize = 1  // the STAP-A NAL header
        func flush() {
            if group.count == 1 { payloads.append(group[0]) }
            if group.count > 1 {
                // 5.7.1: F is the OR and NRI the maximum of the aggregated units'.
                let f = group.reduce(UInt8(0)) { $0 | ($1[0] & 0x80) }
                let nri = group.reduce(UInt8(0)) { max($0, $1[0] & 0x60) }
                var stap: [UInt8] = [f | nri | 24]
                for unit in group { stap.append16(UInt16(unit.count)); stap += unit }
                payloads.append(stap)
            }
            group = []
            groupSize = 1
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

    /// 5.8: FU indicator (F, NRI, type 28), FU header (S, E, R = 0, the NAL type), then a piece of the payload.
    private func fragments(of unit: [UInt8]) -> [[UInt8]] {
        let indicator = unit[0] & 0xE0 | 28
        let type = unit[0] & 0x1F
        let chunk = maxPayloadSize - 2
        var result: [[UInt8]] = []
        var start = 1
        while start < unit.count {
            let end = min(unit.count, start + chunk)
            let header = (start == 1 ? 0x80 : 0) | (end == unit.count ? 0x40 : 0) | type
            result.append([indicator, header] + unit[start..<end])
            start = end
        }
        return result
    }
}
