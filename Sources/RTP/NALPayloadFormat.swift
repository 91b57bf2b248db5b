/// What the RTP payload formats of H.264 (RFC 6184, packetization-mode 1) and H.265 (RFC 7798, without
/// DONL) differ in. Both start every payload with a NAL unit header as payload header, aggregate small NAL
/// units as 16-bit size + NAL unit, and fragment large ones behind an FU header with S and E bits.
public protocol NALPayloadFormat: Sendable {
    /// Bytes of the NAL unit header, which is also the payload header: 1 for H.264, 2 for H.265.
    static var headerSize: Int { get }
    /// Packet types of the aggregation packet (STAP-A, AP) and of the fragmentation unit (FU-A, FU).
    static var aggregationType: UInt8 { get }
    static var fragmentationType: UInt8 { get }
    /// The FU header bits that hold the fragmented NAL unit's type (below S, E and, for H.264, R).
    static var fragmentTypeMask: UInt8 { get }
    /// The packet type in a payload header (the NAL unit type for a single NAL unit packet).
    static func packetType(_ payloadHeader: ArraySlice<UInt8>) -> UInt8
    /// True for the types a single NAL unit packet may have.
    static func isNALUnitType(_ type: UInt8) -> Bool
    /// The payload header of an aggregation packet carrying `units`.
    static func aggregationHeader(for units: [[UInt8]]) -> [UInt8]
    /// The payload header of the fragments of `unit`.
    static func fragmentationHeader(for unit: [UInt8]) -> [UInt8]
    /// The NAL unit type of `unit`, as the FU header carries it.
    static func nalUnitType(_ unit: [UInt8]) -> UInt8
    /// The NAL unit header rebuilt from a fragment's payload header and the type in its FU header.
    static func nalUnitHeader(payloadHeader: ArraySlice<UInt8>, type: UInt8) -> [UInt8]
    /// False when a payload surely carries no data that later pictures refer to (a gap before it need not
    /// ask for a keyframe at once).
    static func mayCarryReference(_ payload: [UInt8]) -> Bool
    /// Why a packet type is refused, naming the RFC.
    static func refusal(_ type: UInt8) -> String
    /// A packet type's name in messages.
    static func name(_ type: UInt8) -> String
    /// The other codec's name ("H.265") when `payload` is refused by this format but is a sure start of the
    /// other's: the receiver was set to the wrong codec.
    static func otherCodec(_ payload: [UInt8]) -> String?
}

extension NALPayloadFormat {
    static var aggregationName: String { name(aggregationType) }
    static var fragmentationName: String { name(fragmentationType) }
}

/// RFC 6184 packetization-mode 1: single NAL unit (types 1-23), STAP-A (24), FU-A (28).
public enum H264PayloadFormat: NALPayloadFormat {
    public static let headerSize = 1
    public static let aggregationType: UInt8 = 24
    public static let fragmentationType: UInt8 = 28
    public static let fragmentTypeMask: UInt8 = 0x1F

    public static func packetType(_ payloadHeader: ArraySlice<UInt8>) -> UInt8 { (payloadHeader.first ?? 0) & 0x1F }
    public static func isNALUnitType(_ type: UInt8) -> Bool { (1...23).contains(type) }

    /// 5.7.1: F is the OR and NRI the maximum of the aggregated units'.
    public static func aggregationHeader(for units: [[UInt8]]) -> [UInt8] {
        let f = units.reduce(UInt8(0)) { $0 | ($1.first ?? 0) & 0x80 }
        let nri = units.reduce(UInt8(0)) { max($0, ($1.first ?? 0) & 0x60) }
        return [f | nri | aggregationType]
    }

    /// 5.8: the FU indicator keeps F and NRI.
    public static func fragmentationHeader(for unit: [UInt8]) -> [UInt8] { [(unit.first ?? 0) & 0xE0 | fragmentationType] }
    public static func nalUnitType(_ unit: [UInt8]) -> UInt8 { (unit.first ?? 0) & 0x1F }
    public static func nalUnitHeader(payloadHeader: ArraySlice<UInt8>, type: UInt8) -> [UInt8] { [(payloadHeader.first ?? 0) & 0xE0 | type] }

    /// A payload H.264 refuses (type 0, 30, 31) or that only Extended profile would send (data partitions,
    /// types 2-4) which reads as an RFC 7798 payload an H.265 sender starts with: VPS, SPS, PPS, AP, FU, a
    /// TRAIL_R, IDR or CRA slice, with forbidden bit 0, LayerId 0 and TID at least 1 (4.4). VPS 0x40 0x01 is
    /// H.264 type 0, an AP 0x60 too, an FU 0x62 type 2.
    public static func otherCodec(_ payload: [UInt8]) -> String? {
        guard payload.count > 2, [0, 2, 3, 4, 30, 31].contains(packetType(payload[...])) else { return nil }
        let h265Type = payload[0] >> 1 & 0x3F
        let layer = (payload[0] & 0x01) << 5 | payload[1] >> 3
        guard payload[0] & 0x80 == 0, layer == 0, payload[1] & 0x07 != 0, [1, 19, 20, 21, 32, 33, 34, 48, 49].contains(h265Type) else { return nil }
        return "H.265"
    }

    /// 5.3: NRI 0 marks data no other picture uses.
    public static func mayCarryReference(_ payload: [UInt8]) -> Bool { (payload.first ?? 0x60) & 0x60 != 0 }

    public static func refusal(_ type: UInt8) -> String { "\(name(type)) is not allowed in packetization-mode 1 (RFC 6184 6.3)" }

    public static func name(_ type: UInt8) -> String {
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

/// RFC 7798 without DONL (sprop-max-don-diff 0): single NAL unit (types 0-47), AP (48), FU (49).
public enum H265PayloadFormat: NALPayloadFormat {
    public static let headerSize = 2
    public static let aggregationType: UInt8 = 48
    public static let fragmentationType: UInt8 = 49
    public static let fragmentTypeMask: UInt8 = 0x3F

    /// 4.4: the payload header is a NAL unit header, F(1) Type(6) LayerId(6) TID(3).
    public static func packetType(_ payloadHeader: ArraySlice<UInt8>) -> UInt8 { (payloadHeader.first ?? 0) >> 1 & 0x3F }
    public static func isNALUnitType(_ type: UInt8) -> Bool { type <= 47 }

    /// 4.4.2: F is the OR, LayerId and TID the lowest of the aggregated units'.
    public static func aggregationHeader(for units: [[UInt8]]) -> [UInt8] {
        let f = units.reduce(UInt8(0)) { $0 | ($1.first ?? 0) & 0x80 }
        let layer = units.map(layerID).min() ?? 0
        let tid = units.map { ($0.count > 1 ? $0[1] : 1) & 0x07 }.min() ?? 1
        return header(f: f, type: aggregationType, layer: layer, tid: tid)
    }

    /// 4.4.3: F, LayerId and TID of the fragmented NAL unit.
    public static func fragmentationHeader(for unit: [UInt8]) -> [UInt8] {
        header(f: (unit.first ?? 0) & 0x80, type: fragmentationType, layer: layerID(unit), tid: (unit.count > 1 ? unit[1] : 1) & 0x07)
    }

    public static func nalUnitType(_ unit: [UInt8]) -> UInt8 { packetType(unit[...]) }

    public static func nalUnitHeader(payloadHeader: ArraySlice<UInt8>, type: UInt8) -> [UInt8] {
        let b0 = payloadHeader.first ?? 0, b1 = payloadHeader.dropFirst().first ?? 1
        return [b0 & 0x81 | (type & 0x3F) << 1, b1]
    }

    /// A fragment carries its unit's type in the FU header; sub-layer non-reference pictures (7.4.2.2,
    /// even types below 16) are used by no later picture of their sub-layer.
    public static func mayCarryReference(_ payload: [UInt8]) -> Bool {
        var type = packetType(payload[...])
        if type == fragmentationType, payload.count > 2 { type = payload[2] & fragmentTypeMask }
        return !(type < 16 && type % 2 == 0)
    }

    /// A payload RFC 7798 refuses (types 51-63, or TID 0) that reads as what an H.264 sender sends (RFC 6184: a
    /// slice, IDR, SEI, SPS, PPS or AUD, STAP-A, FU-A): SPS 0x67 is H.265 type 51, STAP-A 0x78 type 60, FU-A 0x7C 62.
    public static func otherCodec(_ payload: [UInt8]) -> String? {
        guard let first = payload.first, payload.count > 1 else { return nil }
        let refused = packetType(payload[...]) > 50 || payload[1] & 0x07 == 0
        guard refused, first & 0x80 == 0, [1, 5, 6, 7, 8, 9, 24, 28].contains(first & 0x1F) else { return nil }
        return "H.264"
    }

    public static func refusal(_ type: UInt8) -> String {
        type == 50 ? "PACI (type 50) is not supported (RFC 7798 4.4.4)" : "\(name(type)) is not an RTP payload type of RFC 7798 4.4"
    }

    public static func name(_ type: UInt8) -> String {
        switch type {
        case 48: return "AP"
        case 49: return "FU"
        case 50: return "PACI"
        case 0...47: return "single NAL unit (type \(type))"
        default: return "payload type \(type) (reserved)"
        }
    }

    private static func layerID(_ unit: [UInt8]) -> UInt8 {
        guard unit.count > 1 else { return 0 }
        return (unit[0] & 0x01) << 5 | unit[1] >> 3
    }

    private static func header(f: UInt8, type: UInt8, layer: UInt8, tid: UInt8) -> [UInt8] {
        [f | type << 1 | layer >> 5, (layer & 0x1F) << 3 | tid]
    }
}
