import NALStream

/// The VPS, SPS and PPS seen so far, parsed and as NAL units, by id. A new set with an id replaces the old.
public struct H265ParameterSets: Hashable, Sendable {
    public private(set) var vps: [Int: VideoParameterSet] = [:]
    public private(set) var sps: [Int: H265SequenceParameterSet] = [:]
    public private(set) var pps: [Int: H265PictureParameterSet] = [:]
    public private(set) var vpsNALUnits: [Int: NALUnit] = [:]
    public private(set) var spsNALUnits: [Int: NALUnit] = [:]
    public private(set) var ppsNALUnits: [Int: NALUnit] = [:]

    public init() {}

    /// Parses and keeps a VPS, SPS or PPS NAL unit; other types are ignored.
    public mutating func store(_ unit: NALUnit) throws(BitstreamError) {
        try unit.checkH265Header()
        let reportAt = unit.offset
        do {
            switch unit.h265Header.type {
            case .vps:
                let set = try VideoParameterSet(nalUnit: unit)
                vps[set.id] = set
                vpsNALUnits[set.id] = unit
            case .sps:
                let set = try H265SequenceParameterSet(nalUnit: unit)
                sps[set.id] = set
                spsNALUnits[set.id] = unit
            case .pps:
                let set = try H265PictureParameterSet(nalUnit: unit)
                pps[set.id] = set
                ppsNALUnits[set.id] = unit
            default:
                break
            }
        } catch {
            throw error.locatedInNALUnit(at: reportAt)
        }
    }
}

extension BitstreamError {
    /// The error with a bit offset inside an RBSP turned into a byte offset of the stream, where the
    /// NAL unit began at `offset` (its header at that byte; the RBSP starts 2 bytes later).
    public func locatedInNALUnit(at offset: Int) -> BitstreamError {
        switch self {
        case let .overrun(bit, needed):
            return .malformedNALUnit(byteOffset: offset + 2 + bit / 8, reason: "ends early: \(needed) more bit(s) needed")
        case let .expGolombTooLong(bit):
            return .malformedNALUnit(byteOffset: offset + 2 + bit / 8, reason: "Exp-Golomb code longer than 32 bits")
        case let .invalidValue(element, value, bit):
            return .malformedNALUnit(byteOffset: offset + 2 + bit / 8, reason: "\(element) = \(value) is out of range")
        default:
            return self
        }
    }
}
