import NALStream

/// One slice segment NAL unit and its parsed header.
public typealias H265SliceSegment = CodedSlice<H265SliceSegmentHeader>

/// The NAL units of one coded picture (7.4.2.4.4) with what the decoding process needs from them.
public struct H265AccessUnit: CodedAccessUnit {
    public var nalUnits: [NALUnit] = []
    public var slices: [H265SliceSegment] = []
    /// Parameter sets in force for this access unit (those before and inside it).
    public var parameterSets = H265ParameterSets()
    /// Problems found while reading it (unparsable headers, reserved NAL types ...).
    public var problems: [BitstreamError] = []
    /// recovery_poc_cnt of a recovery point SEI in it (D.2.8).
    public var recoveryPocCount: Int?
    /// An end of sequence NAL unit ends it: the next picture starts a new coded video sequence.
    public var endsSequence = false

    public init() {}
}

/// Groups H.265 NAL units into access units (7.4.2.4.4): an access unit ends before an AUD, VPS, SPS, PPS,
/// prefix SEI or NAL types 41...44 and 48...55 that follow a VCL NAL unit, and before the VCL NAL unit
/// of a new picture (first_slice_segment_in_pic_flag 1).
public struct H265AccessUnitAssembler {
    public private(set) var parameterSets = H265ParameterSets()
    private var current = AccessUnitInProgress<H265AccessUnit>()
    private var lastIndependent: H265SliceSegmentHeader?
    private var reader = AnnexBStreamReader()
    /// NAL units of layers above the base layer were met (reported once).
    private var reportedLayers = false

    public init() {}

    /// Adds a chunk of an Annex B byte stream.
    public mutating func append<C: Collection>(_ chunk: C) -> [H265AccessUnit] where C.Element == UInt8 {
        reader.append(chunk).compactMap { push($0) }
    }

    /// Ends the stream: returns what is left.
    public mutating func finish() -> [H265AccessUnit] {
        var done = reader.finish().compactMap { push($0) }
        if !current.unit.nalUnits.isEmpty { done.append(current.unit) }
        current = AccessUnitInProgress()
        current.unit.parameterSets = parameterSets
        lastIndependent = nil
        return done
    }

    /// All access units of a byte stream in memory.
    public static func accessUnits(in bytes: [UInt8]) -> [H265AccessUnit] {
        var assembler = H265AccessUnitAssembler()
        let units = AnnexBScanner.nalUnits(in: bytes).compactMap { assembler.push($0) }
        return units + assembler.finish()
    }

    /// Adds one NAL unit; returns the access unit it completed, if it begins the next one.
    public mutating func push(_ unit: NALUnit) -> H265AccessUnit? {
        var completed: H265AccessUnit?
        do { try unit.checkH265Header() } catch {
            current.unit.problems.append(error)
            current.unit.nalUnits.append(unit)
            return nil
        }
        let header = unit.h265Header
        let type = header.type.rawValue
        if header.layerID != 0 {
            // Multi-layer (SHVC, MV-HEVC) layers above the base are not decoded; they stay out of the picture.
            if !reportedLayers {
                reportedLayers = true
                current.unit.problems.append(.unsupported("multi-layer stream: NAL units of layer \(header.layerID) (first at byte \(unit.offset)) are not decoded"))
            }
            return nil
        }
        if current.hasVCL && ((32...35).contains(type) || type == 39 || (41...44).contains(type) || (48...55).contains(type)) {
            completed = current.take(parameterSets: parameterSets)
        }
        switch header.type {
        case .vps, .sps, .pps:
            do { try parameterSets.store(unit) } catch { current.unit.problems.append(error) }
        case .prefixSEI, .suffixSEI:
            let chroma = parameterSets.sps.values.first?.chromaFormatIdc ?? 1
            if let messages = try? H265SEIMessage.messages(in: unit, chromaFormatIdc: chroma) {
                for case let .recoveryPoint(count, _, _) in messages { current.unit.recoveryPocCount = count }
            }
        case .endOfSequence, .endOfBitstream:
            current.unit.endsSequence = true
        default:
            break
        }
        if header.type.isVCL {
            if header.type.isKnownSlice {
                let first = unit.bytes.count > 2 && unit.bytes[unit.bytes.startIndex + 2] & 0x80 != 0
                if first && current.hasVCL { completed = current.take(parameterSets: parameterSets) }
                do {
                    let slice = try H265SliceSegmentHeader(nalUnit: unit, parameterSets: parameterSets,
                                                           independent: first ? nil : lastIndependent)
                    if !slice.dependentSliceSegmentFlag { lastIndependent = slice }
                    if !first && current.unit.slices.isEmpty {
                        current.unit.problems.append(.malformedNALUnit(byteOffset: unit.offset, reason: "slice segment at CTB \(slice.sliceSegmentAddress) without the start of its picture"))
                    } else if current.unit.slices.contains(where: { $0.header.sliceSegmentAddress == slice.sliceSegmentAddress }) {
                        current.unit.problems.append(.malformedNALUnit(byteOffset: unit.offset, reason: "slice segment starts at CTB \(slice.sliceSegmentAddress) again in the same picture (duplicated slice)"))
                    } else {
                        current.unit.slices.append(H265SliceSegment(nalUnit: unit, header: slice))
                    }
                } catch {
                    current.unit.problems.append(error.locatedInNALUnit(at: unit.offset))
                    if first { lastIndependent = nil }
                }
            } else {
                current.unit.problems.append(.unsupported("reserved VCL NAL unit type \(type) at byte \(unit.offset)"))
            }
        }
        current.append(unit, isVCL: header.type.isVCL, parameterSets: parameterSets)
        return completed
    }
}
