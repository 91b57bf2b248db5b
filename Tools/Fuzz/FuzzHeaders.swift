// libFuzzer target: SPS, PPS, slice header, SEI and AUD parsing, and parameter-set storage. The input is
// one or more NAL units in Annex B (the seed corpus holds an SPS, a PPS and one slice per file), so the
// slice header is parsed with the parameter sets that precede it. A lone NAL unit without a start code is
// parsed as one unit.
import H264Bitstream

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var nalUnits = AnnexBScanner.nalUnits(in: bytes)
    if nalUnits.isEmpty && !bytes.isEmpty { nalUnits = [NALUnit(bytes)] }
    var sets = ParameterSets()
    for unit in nalUnits {
        _ = unit.rbsp
        switch unit.type {
        case .sequenceParameterSet:
            if let sps = try? SequenceParameterSet(nalUnit: unit) {
                _ = (sps.codedWidth, sps.codedHeight, sps.displayWidth, sps.displayHeight, sps.maxFrameNum, sps.maxPicOrderCntLsb)
                _ = sps.vui.sampleAspectRatio
                // What is parsed must write back and parse to the same values.
                let again = try? SequenceParameterSet(nalUnit: sps.nalUnit())
                precondition(again == nil || again == sps || sps.vui.isTruncated, "SPS does not round-trip")
            }
            _ = try? sets.store(unit)
        case .pictureParameterSet:
            _ = try? sets.store(unit)
        case .sei:
            _ = try? SEIMessage.messages(in: unit)
            _ = try? RecoveryPoint.find(in: unit)
        case .accessUnitDelimiter:
            _ = try? AccessUnitDelimiter(nalUnit: unit)
        case .nonIDRSlice, .idrSlice:
            if let header = try? SliceHeader(nalUnit: unit, parameterSets: sets) {
                _ = header.sliceType
                let position = header.sliceDataPosition
                precondition(position.vaBitOffset >= 8 && position.vaBitOffset <= position.escapedBitOffset
                             && position.escapedBitOffset <= 8 * unit.bytes.count + 8,
                             "slice_data_bit_offset \(position.vaBitOffset) (\(position.escapedBitOffset) with EPBs) outside a \(unit.bytes.count)-byte NAL unit")
            }
        default:
            break
        }
    }
    if let format = try? H264FormatDescription(parameterSets: sets) {
        _ = format.description
        _ = format.profileName
        _ = format.frameRate
        _ = try? AVCDecoderConfigurationRecord(bytes: format.avcC.bytes)
    }
    return 0
}
