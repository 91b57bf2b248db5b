/// Turns RFC 6184 payloads (packetization-mode 1: single NAL unit, STAP-A, FU-A) back into NAL units.
///
/// Feed payloads in sequence-number order with ``push(_:sequenceNumber:continuous:)``; `continuous` is
/// false after a gap, which abandons a half-received FU-A. Nothing a packet contains can make it crash:
/// bad payloads are reported as problems and what is usable is kept.
public struct H264Depacketizer: Sendable {
    public struct Output: Sendable {
        public var nalUnits: [[UInt8]] = []
        public var problems: [RTPError] = []
    }

    /// The NAL unit being rebuilt from FU-As, and the sequence number of its first fragment.
    private var fragment: [UInt8]?
    private var fragmentStart = 0
    /// The rest of a fragmented NAL unit already reported (its start or middle was lost): skipped quietly.
    private var skippingFragments = false

    public init() {}

    public var hasOpenFragment: Bool { fragment != nil }

    public mutating func push(_ payload: [UInt8], sequenceNumber: UInt16, continuous: Bool) -> Output {
        var output = Output()
        let sequence = Int(sequenceNumber)
        func problem(_ reason: String) { output.problems.append(.badPayload(sequenceNumber: sequence, reason: reason)) }
        if !continuous, fragment != nil {
            problem("FU-A started at packet \(fragmentStart) lost its end (packets missing)")
            fragment = nil
            skippingFragments = true
        }
        guard let first = payload.first else { problem("empty payload"); return output }
        let type = first & 0x1F
        if type != 28 || payload.count > 1 && payload[1] & 0x80 != 0 { skippingFragments = false }
        if type != 28, fragment != nil {
            problem("FU-A started at packet \(fragmentStart) has no end: a \(Self.name(type)) came first")
            fragment = nil
        }
        switch type {
        case 1...23:  // 5.6 single NAL unit packet
            output.nalUnits.append(payload)
        case 24:  // 5.7.1 STAP-A: 16-bit size, NAL unit, repeated
            var offset = 1
            while offset < payload.count {
                guard offset + 2 <= payload.count else { problem("STAP-A: 1 byte left at offset \(offset) where a 2-byte size belongs"); break }
                let size = Int(payload.read16(offset))
                guard size > 0 else { problem("STAP-A: NAL unit size 0 at offset \(offset)"); break }
                guard offset + 2 + size <= payload.count else {
                    problem("STAP-A: NAL unit size \(size) at offset \(offset) overflows the \(payload.count)-byte payload")
                    break
                }
                output.nalUnits.append(Array(payload[(offset + 2)..<(offset + 2 + size)]))
                offset += 2 + size
            }
            if offset == 1 { problem("STAP-A without NAL units") }
        case 28:  // 5.8 FU-A
            guard payload.count >= 3 else { problem("FU-A of \(payload.count) bytes: needs an indicator, a header and data"); fragment = nil; return output }
            let header = payload[1]
            let start = header & 0x80 != 0, end = header & 0x40 != 0
            if start && end { problem("FU-A with both start and end bits (RFC 6184 5.8)"); fragment = nil; return output }
            if start {
                if fragment != nil { problem("FU-A started at packet \(fragmentStart) has no end: a new start came first") }
                fragment = [first & 0xE0 | header & 0x1F] + payload[2...]
                fragmentStart = sequence
            } else if var unit = fragment {
                unit += payload[2...]
                if end { output.nalUnits.append(unit); fragment = nil } else { fragment = unit }
            } else if !skippingFragments {
                problem("FU-A fragment without its start")
                skippingFragments = true
            }
        default:
            problem("\(Self.name(type)) is not allowed in packetization-mode 1")
        }
        return output
    }

    /// The end of the stream: a fragment still open is reported.
    public mutating func finish() -> [RTPError] {
        defer { fragment = nil }
        return fragment == nil ? [] : [.badPayload(sequenceNumber: fragmentStart, reason: "FU-A started here has no end (stream ended)")]
    }

    static func name(_ type: UInt8) -> String {
        switch type {
        case 0: return "NAL unit type 0"
        case 24: return "STAP-A"
        case 25: return "STAP-B"
        case 26: return "MTAP16"
        case 27: return "MTAP24"
        case 28: return "FU-A"
        case 29: return "FU-B"
        case 1...23: return "single NAL unit (type \(type))"
        default: return "payload type \(type) (reserved)"
        }
    }
}
