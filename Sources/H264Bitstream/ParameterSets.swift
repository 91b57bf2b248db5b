/// The active sequence and picture parameter sets of a stream, by id, with the NAL units they came from.
///
/// Storing an SPS or PPS replaces the one with the same id (7.4.1.2.1).
public struct ParameterSets: Hashable, Sendable {
    public var sps: [Int: SequenceParameterSet] = [:]
    public var pps: [Int: PictureParameterSet] = [:]
    public var spsNALUnits: [Int: NALUnit] = [:]
    public var ppsNALUnits: [Int: NALUnit] = [:]

    public init() {}

    /// Parses and stores an SPS or PPS NAL unit; other types are ignored. Returns true when it stored one.
    @discardableResult
    public mutating func store(_ unit: NALUnit) throws(BitstreamError) -> Bool {
        switch unit.type {
        case .sequenceParameterSet:
            let parsed = try SequenceParameterSet(nalUnit: unit)
            sps[parsed.seqParameterSetId] = parsed
            spsNALUnits[parsed.seqParameterSetId] = NALUnit(Array(unit.bytes), offset: unit.offset)
            return true
        case .pictureParameterSet:
            let table = sps
            let parsed = try PictureParameterSet(nalUnit: unit) { table[$0] }
            pps[parsed.picParameterSetId] = parsed
            ppsNALUnits[parsed.picParameterSetId] = NALUnit(Array(unit.bytes), offset: unit.offset)
            return true
        default:
            return false
        }
    }
}
