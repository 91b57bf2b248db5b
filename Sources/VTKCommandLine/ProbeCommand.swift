import H264Bitstream
import H264Decoding
import JSONText
import MP4
import VideoDecoding

/// `vtk probe`: what is in an H.264 stream, without decoding pixels.
enum ProbeCommand {
    static let name = "probe"
    static let summary = "H.264/H.265: profile, level, size, cropping, SAR, frame rate, GOP, slice types and POC per frame"
    static let usage = "vtk probe INPUT [--json] [-n N]"
    static let examples = [
        "vtk probe in.h264",
        "vtk probe in.mp4 --json -n 50",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input]
    static let options: [OptionSpec] = [
        .flag("--json", help: "print one JSON object with a per-frame array"),
        .value("-n", "--frames", valueName: "N", help: "read at most N pictures"),
        .value("--codec", valueName: "h264|h265", help: "the codec of an Annex B INPUT (default: told from its NAL unit headers)"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = "INPUT is an H.264 or H.265 Annex B byte stream, an MP4 or MOV file (avc1/avc3, hvc1/hev1, fragmented too), or - for standard input (Annex B). Needs no VA device."

    struct FrameInfo {
        var decodeIndex: Int
        var displayIndex = -1
        var offset: Int
        var bytes: Int
        var idr: Bool
        var reference: Bool
        var sliceTypes: [String]
        var poc = 0
        var frameNum: Int
        var width: Int
        var height: Int
        /// "frame", "MBAFF frame", "top field" or "bottom field" (7.4.3 field_pic_flag, bottom_field_flag; MbaffFrameFlag).
        var structure = "frame"
    }

    /// Problems kept for the report; the rest are counted.
    static let problemLimit = 20

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk probe: no INPUT given\nusage: \(usage)" : "vtk probe: one INPUT expected")
        }
        let values = OptionValues(parsed: parsed, command: name)
        let limit = try values.int("frames", range: 1...Int(Int32.max)) ?? Int.max
        let input = try InputFile(parsed.positionals[0], command: name)
        if try CodecDetection.codec(of: input, parsed, command: name) == .h265 { return try H265ProbeCommand.run(parsed, input: input, limit: limit) }
        if let message = input.signature?.notMessage(input.displayName, codec: .h264) { throw CommandFailure(.input, "vtk probe: \(message)") }
        let mp4 = try MP4Input.open(input, command: name)
        var assembler = AccessUnitAssembler()
        var process = H264DecodingProcess()
        var frames: [FrameInfo] = []
        var problems: [String] = []
        var problemCount = 0
        var displayIndex = 0
        var format: H264FormatDescription?
        /// The access units (pictures) decoded into each frame store: one, or a field pair's two.
        var unitsOf: [PictureID: [Int]] = [:]
        /// The order of the first interlaced frame: from its first field's parity, or an MBAFF/PAFF frame's POCs.
        var fieldOrder: String?
        func note(_ problem: String) {
            problemCount += 1
            if problems.count < problemLimit { problems.append(problem) }
        }
        func handle(_ units: [AccessUnit]) {
            for unit in units where frames.count < limit {
                for problem in unit.problems { note("byte \(unit.offset): \(problem)") }
                guard let header = unit.primarySliceHeader else { continue }
                if format == nil { format = try? H264FormatDescription(parameterSets: unit.parameterSets) }
                let sps = unit.parameterSets.pps[header.picParameterSetId].flatMap { unit.parameterSets.sps[$0.seqParameterSetId] }
                let index = frames.count
                frames.append(FrameInfo(decodeIndex: index, offset: unit.offset, bytes: unit.byteCount, idr: unit.isIDR,
                                        reference: header.nalRefIdc != 0, sliceTypes: unit.slices.map { $0.header.sliceType.description },
                                        frameNum: header.frameNum, width: sps?.displayWidth ?? 0, height: sps?.displayHeight ?? 0))
                for event in process.decode(unit) { record(event) }
            }
        }
        func record(_ event: H264DecoderEvent) {
            switch event {
            case .decode(let request):
                // The request is for the access unit just appended.
                let index = frames.count - 1
                guard index >= 0 else { break }
                unitsOf[request.picture.id, default: []].append(index)
                let structure = request.structure
                frames[index].poc = structure.isField ? request.picture.orderCount(of: structure) : request.picture.picOrderCnt
                frames[index].structure = structure.isField ? structure.description : (request.picture.isMbaff ? "MBAFF frame" : "frame")
                if fieldOrder == nil, !request.sps.frameMbsOnlyFlag, !request.isSecondField {
                    fieldOrder = request.picture.topFieldFirst.map { $0 ? "top field first" : "bottom field first" } ?? "progressive frames"
                }
            case .output(let picture):
                for index in unitsOf.removeValue(forKey: picture.id) ?? [] where index < frames.count { frames[index].displayIndex = displayIndex }
                displayIndex += 1
            case .released(let id):
                unitsOf[id] = nil
            case .problem(let problem):
                note(problem.description)
            default:
                break
            }
        }
        /// The container's frame rate (an MP4's timescale over its first sample's duration).
        var containerRate: (Int, Int)?
        if let mp4 {
            // Each sample is one access unit; the avcC's parameter sets come first, file offsets are kept.
            let parameterSets = (mp4.formatDescription?.sequenceParameterSets ?? []) + (mp4.formatDescription?.pictureParameterSets ?? [])
            containerRate = mp4.readSamples(parameterSets: parameterSets, while: { frames.count < limit }, problem: note,
                                            unit: { if let done = assembler.push($0) { handle([done]) } },
                                            endOfSample: { handle(assembler.finish()) })
        } else {
            while frames.count < limit {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                if input.bytesRead == chunk.count, let message = InputSignature(head: chunk).notMessage(input.displayName, codec: .h264) {
                    throw CommandFailure(.input, "vtk probe: \(message)")
                }
                handle(assembler.append(chunk))
            }
            handle(assembler.finish())
        }
        for event in process.flush() { record(event) }
        guard let format else {
            throw CommandFailure(.input, "vtk probe: no decodable H.264 pictures in \(input.displayName)" + (problems.first.map { ": \($0)" } ?? ""))
        }

        // GOP: distances between IDRs (and I pictures), and the pattern of the first GOP in display order.
        let idrs = frames.filter(\.idr).map(\.decodeIndex)
        let gopLengths = zip(idrs, idrs.dropFirst() + [frames.count]).map { $1 - $0 }
        let firstGOP = frames.prefix(gopLengths.first ?? frames.count).sorted { $0.displayIndex < $1.displayIndex }
        let pattern = firstGOP.prefix(32).map { f in f.idr ? "I" : (f.sliceTypes.contains("B") ? (f.reference ? "B" : "b") : (f.sliceTypes.contains("P") ? "P" : "I")) }.joined()
            + (firstGOP.count > 32 ? "…" : "")
        let rate: (numerator: Int, denominator: Int)? = containerRate.map { ($0.0, $0.1) }
            ?? format.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) }.map { ($0.0, $0.1) }
        // Each size and the decode index it starts at.
        var sizes: [(width: Int, height: Int, first: Int)] = []
        for f in frames where sizes.last.map({ $0.width != f.width || $0.height != f.height }) ?? true { sizes.append((f.width, f.height, f.decodeIndex)) }
        let crop = format.cleanAperture
        let sar = format.sampleAspectRatio

        if parsed.has("json") {
            let json = JSONValue.object([
                ("file", .string(input.displayName)),
                ("codec", .string("h264")),
                ("profile", .string(format.profileName)),
                ("profile_idc", .int(Int(format.profileIdc))),
                ("level", .double(Double(format.levelIdc) / 10)),
                ("width", .int(format.displayWidth)), ("height", .int(format.displayHeight)),
                ("coded_width", .int(format.codedWidth)), ("coded_height", .int(format.codedHeight)),
                ("crop", .object([("left", .int(crop.x)), ("top", .int(crop.y)),
                                  ("right", .int(format.codedWidth - crop.x - crop.width)), ("bottom", .int(format.codedHeight - crop.y - crop.height))])),
                ("sar", .string("\(sar.width):\(sar.height)")),
                ("frame_rate", rate.map { .double(Double($0.numerator) / Double($0.denominator)) } ?? .null),
                ("r_frame_rate", rate.map { .string("\($0.numerator)/\($0.denominator)") } ?? .null),
                ("sizes", .array(sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height)), ("first_frame", .int($0.first))]) })),
                ("frames", .int(fieldOrder != nil ? displayIndex : frames.count)),
                ("pictures", .int(frames.count)),
                ("field_order", .string(fieldOrder ?? "progressive")),
                ("frame_mbs_only", .bool(fieldOrder == nil)),
                ("entropy", .string(format.pictureParameterSets.isEmpty ? "?" : entropy(format))),
                ("gop", .object([("idr_count", .int(idrs.count)), ("lengths", .array(gopLengths.map(JSONValue.int))), ("pattern", .string(pattern))])),
                ("per_frame", .array(frames.map { f in
                    .object([("decode_index", .int(f.decodeIndex)), ("display_index", .int(f.displayIndex)), ("offset", .int(f.offset)),
                             ("bytes", .int(f.bytes)), ("idr", .bool(f.idr)), ("reference", .bool(f.reference)),
                             ("slice_types", .array(f.sliceTypes.map(JSONValue.string))), ("poc", .int(f.poc)), ("frame_num", .int(f.frameNum)),
                             ("width", .int(f.width)), ("height", .int(f.height)), ("structure", .string(f.structure))])
                })),
                ("problems", .array(problems.map(JSONValue.string))),
                ("problems_left_out", .int(problemCount - problems.count)),
            ])
            StandardStreams.out(json.text + "\n")
        } else {
            var text = "file:        \(input.displayName)\n"
            text += "codec:       H.264 \(format.profileName) (profile_idc \(format.profileIdc)), level \(String(format1: Double(format.levelIdc) / 10))\n"
            text += "size:        \(format.displayWidth)x\(format.displayHeight)"
            text += format.displayWidth != format.codedWidth || format.displayHeight != format.codedHeight
                ? " (coded \(format.codedWidth)x\(format.codedHeight), crop left \(crop.x) top \(crop.y))\n" : "\n"
            text += "SAR:         \(sar.width):\(sar.height)\n"
            text += "frame rate:  " + (rate.map { "\(String(format2: Double($0.numerator) / Double($0.denominator))) fps (\($0.numerator)/\($0.denominator))" } ?? "not signalled") + "\n"
            text += "entropy:     \(entropy(format))\n"
            if let fieldOrder { text += "interlaced:  \(fieldOrder)\n" }
            text += fieldOrder != nil ? "frames:      \(displayIndex) (\(frames.count) pictures: frames and fields, \(idrs.count) IDR)\n"
                : "frames:      \(frames.count) (\(idrs.count) IDR)\n"
            if sizes.count > 1 {
                text += "size change: " + sizes.map { "\($0.width)x\($0.height) from frame \($0.first)" }.joined(separator: ", ") + "\n"
            }
            // GOP lengths in stream order, as in the JSON.
            let lengths = gopLengths.prefix(16).map(String.init).joined(separator: ", ") + (gopLengths.count > 16 ? ", …" : "")
            text += "GOP:         " + (gopLengths.isEmpty ? "no IDR" : "lengths \(lengths), pattern \(pattern)") + "\n\n"
            // Interlaced streams get a structure column (frame, MBAFF frame, top or bottom field).
            let structures = fieldOrder != nil
            text += "decode display  type    ref  POC    frame_num  size       " + (structures ? "structure     " : "") + "bytes\n"
            for f in frames {
                let type = (f.idr ? "IDR " : "") + Set(f.sliceTypes).sorted().joined(separator: "/")
                text += "\(String(f.decodeIndex).padding(6)) \(String(f.displayIndex).padding(7)) \(type.padding(7)) \((f.reference ? "yes" : "no").padding(4)) \(String(f.poc).padding(6)) \(String(f.frameNum).padding(10)) \("\(f.width)x\(f.height)".padding(10)) "
                    + (structures ? f.structure.padding(13) + " " : "") + "\(f.bytes)\n"
            }
            if !problems.isEmpty {
                text += "\nproblems:\n" + problems.map { "  \($0)\n" }.joined()
                if problemCount > problems.count { text += "  … and \(problemCount - problems.count) more\n" }
            }
            StandardStreams.out(text)
        }
        return problemCount == 0 ? .success : .input
    }

    static func entropy(_ format: H264FormatDescription) -> String {
        var sets = ParameterSets()
        for unit in format.sequenceParameterSets + format.pictureParameterSets { _ = try? sets.store(unit) }
        return sets.pps.values.first.map { $0.entropyCodingModeFlag ? "CABAC" : "CAVLC" } ?? "?"
    }
}
