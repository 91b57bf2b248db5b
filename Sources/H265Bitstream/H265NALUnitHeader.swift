import NALStream

/// nal_unit_type of H.265 (Table 7-1).
public struct H265NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x3F }

    public static let trailN = H265NALUnitType(rawValue: 0)
    public static let trailR = H265NALUnitType(rawValue: 1)
    public static let radlN = H265NALUnitType(rawValue: 6)
    public static let radlR = H265NALUnitType(rawValue: 7)
    public static let raslN = H265NALUnitType(rawValue: 8)
    public static let raslR = H265NALUnitType(rawValue: 9)
    public static let blaWLP = H265NALUnitType(rawValue: 16)
    public static let blaWRADL = H265NALUnitType(rawValue: 17)
    public static let blaNLP = H265NALUnitType(rawValue: 18)
    public static let idrWRADL = H265NALUnitType(rawValue: 19)
    public static let idrNLP = H265NALUnitType(rawValue: 20)
    public static let cra = H265NALUnitType(rawValue: 21)
    public static let vps = H265NALUnitType(rawValue: 32)
    public static let sps = H265NALUnitType(rawValue: 33)
    public static let pps = H265NALUnitType(rawValue: 34)
    public static let accessUnitDelimiter = H265NALUnitType(rawValue: 35)
    public static let endOfSequence = H265NALUnitType(rawValue: 36)
    public static let endOfBitstream = H265NALUnitType(rawValue: 37)
    public static let fillerData = H265NALUnitType(rawValue: 38)
    public static let prefixSEI = H265NALUnitType(rawValue: 39)
    public static let suffixSEI = H265NALUnitType(rawValue: 40)

    /// Coded slice segments (types 0 to 31; 22...31 reserved).
    public var isVCL: Bool { rawValue < 32 }
    /// Slice segment types this decoder knows (0...9, 16...21); the others are reserved.
    public var isKnownSlice: Bool { rawValue <= 9 || (16...21).contains(rawValue) }
    /// IRAP picture (16...23).
    public var isIRAP: Bool { (16...23).contains(rawValue) }
    public var isIDR: Bool { rawValue == 19 || rawValue == 20 }
    public var isBLA: Bool { (16...18).contains(rawValue) }
    public var isCRA: Bool { rawValue == 21 }
    public var isRASL: Bool { rawValue == 8 || rawValue == 9 }
    public var isRADL: Bool { rawValue == 6 || rawValue == 7 }
    /// Sub-layer non-reference picture (types 0, 2, ..., 14 below 16).
    public var isSubLayerNonReference: Bool { rawValue < 16 && rawValue % 2 == 0 }

    public var description: String {
        switch rawValue {
        case 0: "TRAIL_N"
        case 1: "TRAIL_R"
        case 2: "TSA_N"
        case 3: "TSA_R"
        case 4: "STSA_N"
        case 5: "STSA_R"
        case 6: "RADL_N"
        case 7: "RADL_R"
        case 8: "RASL_N"
        case 9: "RASL_R"
        case 16: "BLA_W_LP"
        case 17: "BLA_W_RADL"
        case 18: "BLA_N_LP"
        case 19: "IDR_W_RADL"
        case 20: "IDR_N_LP"
        case 21: "CRA"
        case 32: "VPS"
        case 33: "SPS"
        case 34: "PPS"
        case 35: "AUD"
        case 36: "EOS"
        case 37: "EOB"
        case 38: "FD"
        case 39: "prefix SEI"
        case 40: "suffix SEI"
        default: "NAL type \(rawValue)"
        }
    }
}

/// The two-byte NAL unit header of H.265 (7.3.1.2).
public struct H265NALUnitHeader: Hashable, Sendable {
    public var forbiddenZeroBit: Bool
    public var type: H265NALUnitType
    public var layerID: Int
    /// nuh_temporal_id_plus1 - 1; -1 for the forbidden value 0.
    public var temporalID: Int

    public init(type: H265NALUnitType, layerID: Int = 0, temporalID: Int = 0) {
        forbiddenZeroBit = false
        self.type = type
        self.layerID = layerID
        self.temporalID = temporalID
    }

    public init(_ b0: UInt8, _ b1: UInt8) {
        forbiddenZeroBit = b0 & 0x80 != 0
        type = H265NALUnitType(rawValue: (b0 >> 1) & 0x3F)
        layerID = Int((b0 & 1) << 5) | Int(b1 >> 3)
        temporalID = Int(b1 & 7) - 1
    }

    public var bytes: [UInt8] {
        [(forbiddenZeroBit ? 0x80 : 0) | (type.rawValue << 1) | UInt8((layerID >> 5) & 1),
         UInt8((layerID & 31) << 3) | UInt8((temporalID + 1) & 7)]
    }
}

extension NALUnit {
    /// The NAL unit read as H.265: its two-byte header (7.3.1.2). A one-byte unit reads a zero second byte.
    public var h265Header: H265NALUnitHeader {
        let start = bytes.startIndex
        return H265NALUnitHeader(bytes.first ?? 0, bytes.count > 1 ? bytes[start + 1] : 0)
    }

    /// The H.265 RBSP: the payload after the two-byte header, emulation prevention removed.
    public var h265RBSP: [UInt8] { EmulationPrevention.remove(bytes.dropFirst(2)) }

    /// Checks the two-byte header: present, forbidden_zero_bit 0, nuh_temporal_id_plus1 not 0.
    public func checkH265Header() throws(BitstreamError) {
        guard bytes.count >= 2 else { throw .malformedNALUnit(byteOffset: offset, reason: "H.265 NAL unit shorter than its 2-byte header") }
        let header = h265Header
        if header.forbiddenZeroBit { throw .malformedNALUnit(byteOffset: offset, reason: "forbidden_zero_bit is 1") }
        if header.temporalID < 0 { throw .malformedNALUnit(byteOffset: offset, reason: "nuh_temporal_id_plus1 is 0") }
    }
}
