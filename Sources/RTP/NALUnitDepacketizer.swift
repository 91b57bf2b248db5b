/// Turns RTP payloads back into NAL units: single NAL unit packets, aggregation packets (STAP-A, AP) and
/// fragmentation units (FU-A, FU), for H.264 (RFC 6184 5.6-5.8) and H.265 (RFC 7798 4.4.1-4.4.3).
///
/// Feed payloads in sequence-number order with ``push(_:sequenceNumber:continuous:)``; `continuous` is
/// false after a gap, which abandons a half-received fragmented unit. Nothing a packet contains can make it
/// crash: bad payloads are reported as problems and what is usable is kept.
public struct NALUnitDepacketizer<Format: NALPayloadFormat>: Sendable {
    public struct Output: Sendable {
        public var nalUnits: [[UInt8]] = []
        public var problems: [RTPError] = []
    }

    /// The NAL unit being rebuilt from fragments, and the sequence number of its first fragment.
    private var fragment: [UInt8]?
    private var fragmentStart = 0
    /// The rest of a fragmented NAL unit already reported (its start or middle was lost): skipped quietly.
    private var skippingFragments = false

    public init() {}

    public var hasOpenFragment: Bool { fragment != nil }

    public mutating func push(_ payload: [UInt8], sequenceNumber: UInt16, continuous: Bool) -> Output {
        var output = Output()
        let sequence = Int(sequenceNumber)
        let fu = Format.fragmentationName, headerSize = Format.headerSize
        func problem(_ reason: String) { output.problems.append(.badPayload(sequenceNumber: sequence, reason: reason)) }
        if !continuous, fragment != nil {
            problem("\(fu) started at packet \(fragmentStart) lost its end (packets missing)")
            fragment = nil
            skippingFragments = true
        }
        guard payload.count >= headerSize else {
            problem(payload.isEmpty ? "empty payload" : "payload of \(payload.count) byte(s) is shorter than its \(headerSize)-byte header")
            return output
        }
        let type = Format.packetType(payload[...])
        let isFragment = type == Format.fragmentationType
        if !isFragment || payload.count > headerSize && payload[headerSize] & 0x80 != 0 { skippingFragments = false }
        if !isFragment, fragment != nil {
            problem("\(fu) started at packet \(fragmentStart) has no end: a \(Format.name(type)) came first")
            fragment = nil
        }
        if Format.isNALUnitType(type) {
            output.nalUnits.append(payload)
        } else if type == Format.aggregationType {
            // 16-bit size, NAL unit, repeated.
            let name = Format.aggregationName
            var offset = headerSize
            while offset < payload.count {
                guard offset + 2 <= payload.count else { problem("\(name): 1 byte left at offset \(offset) where a 2-byte size belongs"); break }
                let size = Int(payload.read16(offset))
                guard size >= headerSize else { problem("\(name): NAL unit size \(size) at offset \(offset) is less than a NAL unit header"); break }
                guard offset + 2 + size <= payload.count else {
                    problem("\(name): NAL unit size \(size) at offset \(offset) overflows the \(payload.count)-byte payload")
                    break
                }
                output.nalUnits.append(Array(payload[(offset + 2)..<(offset + 2 + size)]))
                offset += 2 + size
            }
            if offset == headerSize { problem("\(name) without NAL units") }
        } else if isFragment {
            // Payload header, FU header (S, E, the unit's type), a piece of the unit after its header.
            guard payload.count >= headerSize + 2 else {
                problem("\(fu) of \(payload.count) bytes: needs a \(headerSize)-byte payload header, an FU header and data")
                fragment = nil
                return output
            }
            let header = payload[headerSize]
            let start = header & 0x80 != 0, end = header & 0x40 != 0
            let unitType = header & Format.fragmentTypeMask
            if start && end { problem("\(fu) with both start and end bits"); fragment = nil; return output }
            if start {
                if fragment != nil { problem("\(fu) started at packet \(fragmentStart) has no end: a new start came first") }
                guard Format.isNALUnitType(unitType) else { problem("\(fu) carrying a \(Format.name(unitType))"); fragment = nil; return output }
                fragment = Format.nalUnitHeader(payloadHeader: payload.prefix(headerSize), type: unitType) + payload[(headerSize + 1)...]
                fragmentStart = sequence
            } else if var unit = fragment {
                unit += payload[(headerSize + 1)...]
                if end { output.nalUnits.append(unit); fragment = nil } else { fragment = unit }
            } else if !skippingFragments {
                problem("\(fu) fragment without its start")
                skippingFragments = true
            }
        } else {
            problem(Format.refusal(type))
        }
        return output
    }

    /// The end of the stream: a fragment still open is reported.
    public mutating func finish() -> [RTPError] {
        defer { fragment = nil }
        return fragment == nil ? [] : [.badPayload(sequenceNumber: fragmentStart, reason: "\(Format.fragmentationName) started here has no end (stream ended)")]
    }
}

public typealias H264Depacketizer = NALUnitDepacketizer<H264PayloadFormat>
public typealias H265Depacketizer = NALUnitDepacketizer<H265PayloadFormat>
