/// nal_unit_type (Table 7-1).
public struct NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    public static let unspecified = NALUnitType(rawValue: 0)
    public static let nonIDRSlice = NALUnitType(rawValue: 1)
    public static let sliceDataPartitionA = NALUnitType(rawValue: 2)
    public static let sliceDataPartitionB = NALUnitType(rawValue: 3)
    public static let sliceDataPartitionC = NALUnitType(rawValue: 4)
    public static let idrSlice = NALUnitType(rawValue: 5)
    public static let sei = NALUnitType(rawValue: 6)
    public static let sequenceParameterSet = NALUnitType(rawValue: 7)
    public static let pictureParameterSet = NALUnitType(rawValue: 8)
    public static let accessUnitDelimiter = NALUnitType(rawValue: 9)
    public static let endOfSequence = NALUnitType(rawValue: 10)
    public static let endOfStream = NALUnitType(rawValue: 11)
    public static let fillerData = NALUnitType(rawValue: 12)
    public static let sequenceParameterSetExtension = NALUnitType(rawValue: 13)
    public static let prefixNALUnit = NALUnitType(rawValue: 14)
    public static let subsetSequenceParameterSet = NALUnitType(rawValue: 15)
    public static let depthParameterSet = NALUnitType(rawValue: 16)
    public static let auxiliarySlice = NALUnitType(rawValue: 19)
    public static let sliceExtension = NALUnitType(rawValue: 20)
    public static let depthSliceExtension = NALUnitType(rawValue: 21)

    /// Coded slice of a primary picture (types 1 to 5): the VCL NAL units that make a picture.
    public var isVCL: Bool { (1...5).contains(rawValue) }
    public var isSlice: Bool { rawValue == 1 || rawValue == 5 }

    public var description: String {
        switch rawValue {
        case 1: return "slice"
        case 5: return "IDR slice"
        case 6: return "SEI"
        case 7: return "SPS"
        case 8: return "PPS"
        case 9: return "AUD"
        case 10: return "end of sequence"
        case 11: return "end of stream"
        case 12: return "filler"
        case 15: return "subset SPS"
        case 20: return "slice extension"
        default: return "NAL type \(rawValue)"
        }
    }
}

/// The one-byte NAL unit header (7.3.1).
public struct NALUnitHeader: Hashable, Sendable {
    public var forbiddenZeroBit: Bool
    public var nalRefIdc: UInt8
    public var nalUnitType: NALUnitType

    public init(nalRefIdc: UInt8, nalUnitType: NALUnitType) {
        self.forbiddenZeroBit = false
        self.nalRefIdc = nalRefIdc & 3
        self.nalUnitType = nalUnitType
    }

    public init(byte: UInt8) {
        forbiddenZeroBit = byte & 0x80 != 0
        nalRefIdc = (byte >> 5) & 3
        nalUnitType = NALUnitType(rawValue: byte & 0x1F)
    }

    public var byte: UInt8 { (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc << 5) | nalUnitType.rawValue }
}

extension NALUnit {
    /// The NAL unit read as H.264: its one-byte header (7.3.1).
    public var header: NALUnitHeader { NALUnitHeader(byte: bytes.first ?? 0) }
    public var type: NALUnitType { header.nalUnitType }
    public var nalRefIdc: UInt8 { header.nalRefIdc }

    /// The payload after the header, emulation prevention removed: the RBSP.
    /// (Types 14, 20 and 21 have 3 more header bytes, which stay in the RBSP here.)
    public var rbsp: [UInt8] { EmulationPrevention.remove(bytes.dropFirst()) }
}
