import H264Bitstream
import H265Bitstream
import NALStream

/// Splits what the driver wrote for one picture (Annex B) into parameter sets and the rest, the way
/// the sample needs them: SPS and PPS for the format description, everything else length-prefixed.
struct CodedPicture {
    var sequenceParameterSets: [NALUnit] = []
    var pictureParameterSets: [NALUnit] = []
    /// H.265: VPS, SPS and PPS in the order written.
    var hevcParameterSets: [NALUnit] = []
    /// Slices and SEI, 4-byte length-prefixed.
    var sample: [UInt8] = []
    var sliceCount = 0
    /// Contains an IDR slice (nal_unit_type 5).
    var isIDR = false

    init(annexB bytes: [UInt8]) throws(CompressionError) {
        var rest: [NALUnit] = []
        for unit in AnnexBScanner.nalUnits(in: bytes) {
            switch unit.type {
            case .sequenceParameterSet: sequenceParameterSets.append(unit)
            case .pictureParameterSet: pictureParameterSets.append(unit)
            // Delimiters, end-of-sequence and filler carry nothing an MP4 sample keeps.
            case .accessUnitDelimiter, .endOfSequence, .endOfStream, .fillerData: continue
            default:
                if unit.type.isSlice { sliceCount += 1 }
                if unit.type == .idrSlice { isIDR = true }
                rest.append(unit)
            }
        }
        guard sliceCount > 0 else { throw .driverOutput("a coded picture of \(bytes.count) bytes with no slice") }
        do { sample = try LengthPrefixedSample.sample(rest, lengthSize: 4) } catch { throw .bitstream(error) }
    }
}

extension CodedPicture {
    /// What the driver wrote for one H.265 picture: VPS, SPS and PPS apart (in ``parameterSets``, for the
    /// format description), access unit delimiters and end/filler units dropped, the rest length-prefixed.
    init(hevc bytes: [UInt8]) throws(CompressionError) {
        var rest: [NALUnit] = []
        for unit in AnnexBScanner.nalUnits(in: bytes) {
            guard unit.bytes.count >= 2 else { continue }
            let type = unit.h265Header.type
            switch type {
            case .vps, .sps, .pps: hevcParameterSets.append(unit)
            case .accessUnitDelimiter, .endOfSequence, .endOfBitstream, .fillerData: continue
            default:
                if type.isVCL {
                    sliceCount += 1
                    if type.isIDR { isIDR = true }
                }
                rest.append(unit)
            }
        }
        guard sliceCount > 0 else { throw .driverOutput("a coded picture of \(bytes.count) bytes with no slice segment") }
        do { sample = try LengthPrefixedSample.sample(rest, lengthSize: 4) } catch { throw .bitstream(error) }
    }
}
