import DecompressionSession
import H264Bitstream
import H264Decoding
import JSONText
import VideoDecoding

/// `vtk probe` of an H.264 stream: profile, level, entropy coder, field order, GOP pattern, and per picture
/// its slice types, frame_num, POC, size and structure.
struct H264ProbeReport: ProbeReport {
    typealias Codec = H264Codec

    struct Frame: ProbeFrame {
        var row: ProbeRow
        var idr: Bool
        var reference: Bool
        var frameNum: Int
        var width: Int
        var height: Int
        /// "frame", "MBAFF frame", "top field" or "bottom field" (7.4.3 field_pic_flag, bottom_field_flag; MbaffFrameFlag).
        var structure = "frame"
        var startsGOP: Bool { idr }
    }

    private(set) var format: H264FormatDescription?
    /// The order of the first interlaced frame: from its first field's parity, or an MBAFF/PAFF frame's POCs.
    private var fieldOrder: String?

    mutating func frame(for unit: AccessUnit, index: Int) -> Frame? {
        guard let header = unit.primarySliceHeader else { return nil }
        if format == nil { format = try? H264FormatDescription(parameterSets: unit.parameterSets) }
        let sps = unit.parameterSets.pps[header.picParameterSetId].flatMap { unit.parameterSets.sps[$0.seqParameterSetId] }
        let row = ProbeRow(decodeIndex: index, offset: unit.offset, bytes: unit.byteCount, sliceTypes: unit.slices.map { $0.header.sliceType.description })
        return Frame(row: row, idr: unit.isIDR, reference: header.nalRefIdc != 0, frameNum: header.frameNum,
                     width: sps?.displayWidth ?? 0, height: sps?.displayHeight ?? 0)
    }

    mutating func decoded(_ request: PictureDecodeRequest, into frame: inout Frame) {
        let structure = request.structure
        frame.poc = structure.isField ? request.picture.orderCount(of: structure) : request.picture.picOrderCnt
        frame.structure = structure.isField ? structure.description : (request.picture.isMbaff ? "MBAFF frame" : "frame")
        if fieldOrder == nil, !request.sps.frameMbsOnlyFlag, !request.isSecondField {
            fieldOrder = request.picture.topFieldFirst.map { $0 ? "top field first" : "bottom field first" } ?? "progressive frames"
        }
    }

    /// The first GOP's pictures in display order as letters (I, P, B reference, b not), at most 32.
    private func pattern(_ probe: StreamProbe<Self>.Result) -> String {
        let firstGOP = probe.frames.prefix(probe.gopLengths.first ?? probe.frames.count).sorted { $0.displayIndex < $1.displayIndex }
        return firstGOP.prefix(32).map { f in f.idr ? "I" : (f.sliceTypes.contains("B") ? (f.reference ? "B" : "b") : (f.sliceTypes.contains("P") ? "P" : "I")) }.joined()
            + (firstGOP.count > 32 ? "…" : "")
    }

    /// Each size and the decode index it starts at.
    private func sizes(_ frames: [Frame]) -> [(width: Int, height: Int, first: Int)] {
        var sizes: [(width: Int, height: Int, first: Int)] = []
        for f in frames where sizes.last.map({ $0.width != f.width || $0.height != f.height }) ?? true { sizes.append((f.width, f.height, f.decodeIndex)) }
        return sizes
    }

    func json(_ probe: StreamProbe<Self>.Result, format: H264FormatDescription) -> JSONValue {
        let rate = probe.rate
        let fields: [(String, JSONValue)] = [
            ("file", .string(probe.input.displayName)),
            ("codec", .string("h264")),
            ("profile", .string(format.profileName)),
            ("profile_idc", .int(Int(format.profileIdc))),
            ("level", .double(Double(format.levelIdc) / 10)),
        ] + probe.sizeJSON(format, crop: format.cleanAperture) + [
            ("frame_rate", rate.map { .double(Double($0.numerator) / Double($0.denominator)) } ?? .null),
            ("r_frame_rate", rate.map { .string("\($0.numerator)/\($0.denominator)") } ?? .null),
            ("sizes", .array(sizes(probe.frames).map { .object([("width", .int($0.width)), ("height", .int($0.height)), ("first_frame", .int($0.first))]) })),
            ("frames", .int(fieldOrder != nil ? probe.displayCount : probe.frames.count)),
            ("pictures", .int(probe.frames.count)),
            ("field_order", .string(fieldOrder ?? "progressive")),
            ("frame_mbs_only", .bool(fieldOrder == nil)),
            ("entropy", .string(format.pictureParameterSets.isEmpty ? "?" : Self.entropy(format))),
            ("gop", .object([("idr_count", .int(probe.gopStarts.count)), ("lengths", .array(probe.gopLengths.map(JSONValue.int))), ("pattern", .string(pattern(probe)))])),
            ("per_frame", .array(probe.frames.map { f in
                .object([("decode_index", .int(f.decodeIndex)), ("display_index", .int(f.displayIndex)), ("offset", .int(f.offset)),
                         ("bytes", .int(f.bytes)), ("idr", .bool(f.idr)), ("reference", .bool(f.reference)),
                         ("slice_types", .array(f.sliceTypes.map(JSONValue.string))), ("poc", .int(f.poc)), ("frame_num", .int(f.frameNum)),
                         ("width", .int(f.width)), ("height", .int(f.height)), ("structure", .string(f.structure))])
            })),
        ] + probe.problemsJSON(leftOut: true)
        return .object(fields)
    }

    func text(_ probe: StreamProbe<Self>.Result, format: H264FormatDescription) -> String {
        let frames = probe.frames, sar = format.sampleAspectRatio
        var text = "file:        \(probe.input.displayName)\n"
        text += "codec:       H.264 \(format.profileName) (profile_idc \(format.profileIdc)), level \(String(format1: Double(format.levelIdc) / 10))\n"
        text += "size:        " + probe.sizeText(format, crop: format.cleanAperture)
        text += "SAR:         \(sar.width):\(sar.height)\n"
        text += "frame rate:  " + (probe.rate.map { "\(String(format2: Double($0.numerator) / Double($0.denominator))) fps (\($0.numerator)/\($0.denominator))" } ?? "not signalled") + "\n"
        text += "entropy:     \(Self.entropy(format))\n"
        if let fieldOrder { text += "interlaced:  \(fieldOrder)\n" }
        text += fieldOrder != nil ? "frames:      \(probe.displayCount) (\(frames.count) pictures: frames and fields, \(probe.gopStarts.count) IDR)\n"
            : "frames:      \(frames.count) (\(probe.gopStarts.count) IDR)\n"
        let sizes = sizes(frames)
        if sizes.count > 1 {
            text += "size change: " + sizes.map { "\($0.width)x\($0.height) from frame \($0.first)" }.joined(separator: ", ") + "\n"
        }
        // GOP lengths in stream order, as in the JSON.
        let gopLengths = probe.gopLengths
        let lengths = gopLengths.prefix(16).map(String.init).joined(separator: ", ") + (gopLengths.count > 16 ? ", …" : "")
        text += "GOP:         " + (gopLengths.isEmpty ? "no IDR" : "lengths \(lengths), pattern \(pattern(probe))") + "\n\n"
        // Interlaced streams get a structure column (frame, MBAFF frame, top or bottom field).
        let structures = fieldOrder != nil
        text += "decode display  type    ref  POC    frame_num  size       " + (structures ? "structure     " : "") + "bytes\n"
        for f in frames {
            let type = (f.idr ? "IDR " : "") + Set(f.sliceTypes).sorted().joined(separator: "/")
            text += "\(String(f.decodeIndex).padding(6)) \(String(f.displayIndex).padding(7)) \(type.padding(7)) \((f.reference ? "yes" : "no").padding(4)) \(String(f.poc).padding(6)) \(String(f.frameNum).padding(10)) \("\(f.width)x\(f.height)".padding(10)) "
                + (structures ? f.structure.padding(13) + " " : "") + "\(f.bytes)\n"
        }
        return text + probe.problemsText(leftOut: true)
    }

    static func entropy(_ format: H264FormatDescription) -> String {
        var sets = ParameterSets()
        for unit in format.sequenceParameterSets + format.pictureParameterSets { _ = try? sets.store(unit) }
        return sets.pps.values.first.map { $0.entropyCodingModeFlag ? "CABAC" : "CAVLC" } ?? "?"
    }
}
