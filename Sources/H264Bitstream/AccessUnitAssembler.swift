/// Groups NAL units into access units by the rules of 7.4.1.2.3 (order of NAL units) and 7.4.1.2.4
/// (detection of the first VCL NAL unit of a primary coded picture).
///
/// Feed it NAL units with ``push(_:)`` or raw byte-stream chunks with ``append(_:)``; it returns each
/// access unit once the first NAL unit of the next one has arrived, and the last at ``finish()``.
/// Parameter sets are parsed as they pass, because the slice-header comparison needs them.
public struct AccessUnitAssembler {
    public private(set) var parameterSets = ParameterSets()
    private var current = AccessUnitInProgress<AccessUnit>()
    private var lastSliceHeader: SliceHeader?
    private var reader = AnnexBStreamReader()

    public init() {}

    /// Adds a chunk of an Annex B byte stream.
    public mutating func append<C: Collection>(_ chunk: C) -> [AccessUnit] where C.Element == UInt8 {
        var done: [AccessUnit] = []
        for unit in reader.append(chunk) { if let au = push(unit) { done.append(au) } }
        return done
    }

    /// Ends the stream: returns what is left.
    public mutating func finish() -> [AccessUnit] {
        var done: [AccessUnit] = []
        for unit in reader.finish() { if let au = push(unit) { done.append(au) } }
        if !current.unit.nalUnits.isEmpty { done.append(current.unit) }
        current = AccessUnitInProgress()
        lastSliceHeader = nil
        return done
    }

    /// All access units of a whole byte stream held in memory (NAL units are slices of `bytes`).
    public static func accessUnits(in bytes: [UInt8]) -> [AccessUnit] {
        var assembler = AccessUnitAssembler()
        var done: [AccessUnit] = []
        for unit in AnnexBScanner.nalUnits(in: bytes) { if let au = assembler.push(unit) { done.append(au) } }
        return done + assembler.finish()
    }

    /// Adds one NAL unit; returns the access unit it completed, if it starts a new one.
    public mutating func push(_ unit: NALUnit) -> AccessUnit? {
        var completed: AccessUnit?
        let type = unit.type.rawValue
        let hasVCL = current.hasVCL

        if unit.header.forbiddenZeroBit {
            current.unit.problems.append(.malformedNALUnit(byteOffset: unit.offset, reason: "forbidden_zero_bit is 1"))
            current.unit.nalUnits.append(unit)
            return nil
        }

        // 7.4.1.2.3: AUD, SPS, PPS, SEI and types 14...18 after the last VCL NAL unit begin the next one.
        if hasVCL && (type == 6 || type == 7 || type == 8 || type == 9 || (14...18).contains(type)) {
            completed = current.take(parameterSets: parameterSets)
        }

        switch unit.type {
        case .sequenceParameterSet, .pictureParameterSet:
            do { try parameterSets.store(unit) } catch { current.unit.problems.append(error) }
        case .sei:
            do {
                if let point = try RecoveryPoint.find(in: unit) { current.unit.recoveryPoint = point }
                if let timing = try SEIMessage.messages(in: unit).first(where: { $0.payloadType == PictureTiming.payloadType }) {
                    current.unit.pictureTimingPayload = timing.payload
                }
            } catch {
                current.unit.problems.append(error)
            }
        default:
            break
        }

        if unit.type.isVCL {
            if unit.type.isSlice {
                do {
                    let header = try SliceHeader(nalUnit: unit, parameterSets: parameterSets)
                    if current.hasVCL {
                        // After an unparsable slice only first_mb_in_slice == 0 can tell a new picture.
                        let isNew = lastSliceHeader.map { Self.startsNewPicture(header, after: $0) } ?? (header.firstMbInSlice == 0)
                        if isNew { completed = current.take(parameterSets: parameterSets) }
                    }
                    // A second slice starting at the same macroblock of a primary picture is a duplicate
                    // (a repeated packet): report it; the decoder still gets it.
                    if header.redundantPicCnt == 0,
                       current.unit.slices.contains(where: { $0.header.firstMbInSlice == header.firstMbInSlice && $0.header.redundantPicCnt == 0 }) {
                        current.unit.problems.append(.malformedNALUnit(byteOffset: unit.offset,
                                                                  reason: "slice starts at macroblock \(header.firstMbInSlice) again in the same picture (duplicated slice)"))
                    }
                    current.unit.slices.append(CodedSlice(nalUnit: unit, header: header))
                    lastSliceHeader = header
                } catch {
                    // Without a parsable header only first_mb_in_slice == 0 can tell a new picture.
                    if current.hasVCL, Self.firstMbInSlice(unit) == 0 { completed = current.take(parameterSets: parameterSets) }
                    current.unit.problems.append(error)
                    lastSliceHeader = nil
                }
            } else {
                current.unit.problems.append(.unsupported("slice data partitioning (NAL type \(type)) at byte \(unit.offset)"))
            }
        }
        current.append(unit, isVCL: unit.type.isVCL, parameterSets: parameterSets)
        return completed
    }

    private static func firstMbInSlice(_ unit: NALUnit) -> Int? {
        var r = BitReader(EmulationPrevention.remove(unit.bytes.dropFirst().prefix(8)))
        return (try? r.ue()).map { Int($0) }
    }

    /// 7.4.1.2.4: does `slice` begin a new primary coded picture after `previous`?
    static func startsNewPicture(_ slice: SliceHeader, after previous: SliceHeader) -> Bool {
        if slice.redundantPicCnt > 0 { return false }  // redundant slices belong to the primary picture
        if slice.frameNum != previous.frameNum { return true }
        if slice.picParameterSetId != previous.picParameterSetId { return true }
        if slice.fieldPicFlag != previous.fieldPicFlag { return true }
        if slice.fieldPicFlag && slice.bottomFieldFlag != previous.bottomFieldFlag { return true }
        if (slice.nalRefIdc == 0) != (previous.nalRefIdc == 0) { return true }
        if slice.picOrderCntLsb != previous.picOrderCntLsb || slice.deltaPicOrderCntBottom != previous.deltaPicOrderCntBottom { return true }
        if slice.deltaPicOrderCnt != previous.deltaPicOrderCnt { return true }
        if slice.idrPicFlag != previous.idrPicFlag { return true }
        if slice.idrPicFlag && previous.idrPicFlag && slice.idrPicId != previous.idrPicId { return true }
        return false
    }
}
