import DecompressionSession
import H265Bitstream
import H265Decoding
import JSONText

/// `vtk probe` of an H.265 stream: profile, tier, level, bit depth, CTB size, and per picture its NAL unit
/// type, temporal id, slice types and POC.
struct H265ProbeReport: ProbeReport {
    typealias Codec = H265Codec

    /// A picture's row: the common columns, and its first slice segment's header (NAL unit type, temporal id).
    struct Frame: ProbeFrame {
        var row: ProbeRow
        let firstSlice: H265SliceSegmentHeader
        var startsGOP: Bool { firstSlice.nalUnitType.isIRAP }
    }

    private(set) var format: H265FormatDescription?

    mutating func frame(for unit: H265AccessUnit, index: Int) -> Frame? {
        guard let first = unit.slices.first else { return nil }
        if format == nil { format = try? H265FormatDescription(parameterSets: unit.parameterSets) }
        let types = unit.slices.filter { !$0.header.dependentSliceSegmentFlag }.map { "\($0.header.sliceType)".uppercased() }
        let row = ProbeRow(decodeIndex: index, offset: unit.offset, bytes: unit.nalUnits.reduce(0) { $0 + $1.bytes.count }, sliceTypes: types)
        return Frame(row: row, firstSlice: first.header)
    }

    mutating func decoded(_ request: H265PictureDecodeRequest, into frame: inout Frame) { frame.poc = request.picture.poc }

    func json(_ probe: StreamProbe<Self>.Result, format: H265FormatDescription) -> JSONValue {
        let ptl = format.sps.profileTierLevel
        let fields: [(String, JSONValue)] = [
            ("file", .string(probe.input.displayName)),
            ("codec", .string("h265")),
            ("profile", .string(format.profileName)),
            ("profile_idc", .int(ptl.generalProfileIdc)),
            ("tier", .string(ptl.generalTierFlag ? "High" : "Main")),
            ("level", .double(Double(format.levelIdc) / 30)),
            ("bit_depth", .int(format.bitDepth)),
            ("chroma_format_idc", .int(format.sps.chromaFormatIdc)),
        ] + probe.sizeJSON(format, crop: format.cleanAperture) + [
            ("frame_rate", probe.rate.map { .double(Double($0.numerator) / Double($0.denominator)) } ?? .null),
            ("ctb_size", .int(format.sps.ctbSize)),
            ("frames", .int(probe.frames.count)),
            ("gop", .object([("irap_count", .int(probe.gopStarts.count)), ("lengths", .array(probe.gopLengths.map(JSONValue.int)))])),
            ("per_frame", .array(probe.frames.map { f in
                .object([("decode_index", .int(f.decodeIndex)), ("display_index", .int(f.displayIndex)), ("offset", .int(f.offset)),
                         ("bytes", .int(f.bytes)), ("nal_unit_type", .string(f.firstSlice.nalUnitType.description)), ("temporal_id", .int(f.firstSlice.temporalID)),
                         ("slice_types", .array(f.sliceTypes.map(JSONValue.string))), ("poc", .int(f.poc))])
            })),
        ] + probe.problemsJSON(leftOut: false)
        return .object(fields)
    }

    func text(_ probe: StreamProbe<Self>.Result, format: H265FormatDescription) -> String {
        let ptl = format.sps.profileTierLevel, sar = format.sampleAspectRatio
        var text = "file:        \(probe.input.displayName)\n"
        text += "codec:       H.265 \(format.profileName) (general_profile_idc \(ptl.generalProfileIdc)), \(ptl.generalTierFlag ? "High" : "Main") tier, "
            + "level \(String(format1: Double(format.levelIdc) / 30))\n"
        text += "size:        " + probe.sizeText(format, crop: format.cleanAperture)
        text += "bit depth:   \(format.bitDepth), CTB \(format.sps.ctbSize)x\(format.sps.ctbSize)\n"
        text += "SAR:         \(sar.width):\(sar.height)\n"
        text += "frame rate:  " + (probe.rate.map { "\(String(format2: Double($0.numerator) / Double($0.denominator))) fps" } ?? "not signalled") + "\n"
        text += "frames:      \(probe.frames.count) (\(probe.gopStarts.count) IRAP)\n\n"
        text += "decode display  type        tid  slices  POC    bytes\n"
        for f in probe.frames {
            text += "\(String(f.decodeIndex).padding(6)) \(String(f.displayIndex).padding(7)) \(f.firstSlice.nalUnitType.description.padding(11)) \(String(f.firstSlice.temporalID).padding(4)) \(Set(f.sliceTypes).sorted().joined(separator: "/").padding(7)) \(String(f.poc).padding(6)) \(f.bytes)\n"
        }
        return text + probe.problemsText(leftOut: false)
    }
}
