/// The NAL units of one access unit (H.264 7.4.1.2, H.265 7.4.2.4.4) as an assembler delivers them: every NAL
/// unit in stream order, the coded slices with their headers, the parameter sets in force, and the problems
/// met while reading it (the access unit is still delivered, so that a decoder can decide what to do).
public protocol CodedAccessUnit: Hashable, Sendable {
    associatedtype ParameterSetStore
    associatedtype SliceHeader: Hashable & Sendable
    init()
    var nalUnits: [NALUnit] { get set }
    var slices: [CodedSlice<SliceHeader>] { get set }
    var parameterSets: ParameterSetStore { get set }
    var problems: [BitstreamError] { get set }
}

extension CodedAccessUnit {
    /// Byte offset of its first NAL unit in the stream.
    public var offset: Int { nalUnits.first?.offset ?? 0 }
    public var hasPicture: Bool { !slices.isEmpty }
}

/// The access unit an assembler is gathering, and whether a VCL NAL unit (parsable or not) is in it yet: what
/// decides, for both codecs, that a parameter set, SEI or new picture starts the next one.
public struct AccessUnitInProgress<Unit: CodedAccessUnit> {
    public var unit = Unit()
    public private(set) var hasVCL = false

    public init() {}

    /// Adds a NAL unit; `parameterSets`: those in force once it has been read.
    public mutating func append(_ nalUnit: NALUnit, isVCL: Bool, parameterSets: Unit.ParameterSetStore) {
        if isVCL { hasVCL = true }
        unit.nalUnits.append(nalUnit)
        unit.parameterSets = parameterSets
    }

    /// Ends the access unit: returns it and starts the next, with the parameter sets in force.
    public mutating func take(parameterSets: Unit.ParameterSetStore) -> Unit {
        let done = unit
        unit = Unit()
        unit.parameterSets = parameterSets
        hasVCL = false
        return done
    }
}
