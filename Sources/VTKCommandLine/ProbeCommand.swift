import H264Bitstream
import H264Decoding
import JSONText

/// `vtk probe`: what is in an H.264 stream, without decoding pixels.
enum ProbeCommand {
    static let name = "probe"
    static let summary = "profile, level, size, cropping, SAR, frame rate, GOP, slice types and POC per frame"
    static let usage = "vtk probe INPUT [--json]"
    static let options: [OptionSpec] = [
        .flag("--json", help: "print one JSON object with a per-frame array"),
        .value("--codec", valueName: "h264|h265", help: "the codec of INPUT (default: told from its NAL unit headers)"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = "INPUT is an H.264 or H.265 Annex B byte stream, or - for standard input. Needs no VA device."

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
    }

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk probe: no INPUT given\nusage: \(usage)" : "vtk probe: one INPUT expected")
        }
        let input = try InputFile(parsed.positionals[0], command: name)
        if try H265DecodeCommand.isH265(parsed, input: input, command: name) { return try H265ProbeCommand.run(parsed, input: input) }
        var assembler = AccessUnitAssembler()
        var process = H264DecodingProcess()
        var frames: [FrameInfo] = []
        var problems: [String] = []
        var displayIndex = 0
        var format: FormatDescription?
        func handle(_ units: [AccessUnit]) {
            for unit in units {
                for problem in unit.problems where problems.count < 20 { problems.append("byte \(unit.offset): \(problem)") }
                guard let header = unit.primarySliceHeader else { continue }
                if format == nil { format = try? FormatDescription(parameterSets: unit.parameterSets) }
                let index = frames.count
                frames.append(FrameInfo(decodeIndex: index, offset: unit.offset, bytes: unit.byteCount, idr: unit.isIDR,
                                        reference: header.nalRefIdc != 0, sliceTypes: unit.slices.map { $0.header.sliceType.description },
                                        frameNum: header.frameNum))
                for event in process.decode(unit) { record(event) }
            }
        }
        func record(_ event: H264DecoderEvent) {
            switch event {
            case .decode(let request):
                if request.picture.decodeIndex < frames.count { frames[request.picture.decodeIndex].poc = request.picture.picOrderCnt }
            case .output(let picture):
                if picture.decodeIndex < frames.count { frames[picture.decodeIndex].displayIndex = displayIndex }
                displayIndex += 1
            case .problem(let problem):
                if problems.count < 20 { problems.append(problem.description) }
            default:
                break
            }
        }
        while true {
            let chunk = try input.read()
            if chunk.isEmpty { break }
            handle(assembler.append(chunk))
        }
        handle(assembler.finish())
        for event in process.flush() { record(event) }
        guard let format else {
            throw CommandFailure(.input, "vtk probe: no decodable H.264 pictures in \(input.displayName)" + (problems.first.map { ": \($0)" } ?? ""))
        }

        // GOP: distances between IDRs (and I pictures), and the pattern of the first GOP in display order.
        let idrs = frames.filter(\.idr).map(\.decodeIndex)
        let gopLengths = zip(idrs, idrs.dropFirst() + [frames.count]).map { $1 - $0 }
        let firstGOP = frames.prefix(gopLengths.first ?? frames.count).sorted { $0.displayIndex < $1.displayIndex }
        let pattern = firstGOP.prefix(32).map { f in f.idr ? "I" : (f.sliceTypes.contains("B") ? (f.reference ? "B" : "b") : (f.sliceTypes.contains("P") ? "P" : "I")) }.joined()
        let rate = format.frameRate
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
                ("frames", .int(frames.count)),
                ("entropy", .string(format.pictureParameterSets.isEmpty ? "?" : entropy(format))),
                ("gop", .object([("idr_count", .int(idrs.count)), ("lengths", .array(gopLengths.map(JSONValue.int))), ("pattern", .string(pattern))])),
                ("per_frame", .array(frames.map { f in
                    .object([("decode_index", .int(f.decodeIndex)), ("display_index", .int(f.displayIndex)), ("offset", .int(f.offset)),
                             ("bytes", .int(f.bytes)), ("idr", .bool(f.idr)), ("reference", .bool(f.reference)),
                             ("slice_types", .array(f.sliceTypes.map(JSONValue.string))), ("poc", .int(f.poc)), ("frame_num", .int(f.frameNum))])
                })),
                ("problems", .array(problems.map(JSONValue.string))),
            ])
            StandardStreams.out(json.text + "\n")
        } else {
            var text = "file:        \(input.displayName)\n"
            text += "codec:       H.264 \(format.profileName) (profile_idc \(format.profileIdc)), level \(String(format1: Double(format.levelIdc) / 10))\n"
            text += "size:        \(format.displayWidth)x\(format.displayHeight)"
            text += format.displayWidth != format.codedWidth || format.displayHeight != format.codedHeight
                ? " (coded \(format.codedWidth)x\(format.codedHeight), crop left \(crop.x) top \(crop.y))\n" : "\n"
            text += "SAR:         \(sar.width):\(sar.height)\n"
            text += "frame rate:  " + (rate.map { "\(String(format2: Double($0.numerator) / Double($0.denominator))) fps" } ?? "not signalled") + "\n"
            text += "entropy:     \(entropy(format))\n"
            text += "frames:      \(frames.count) (\(idrs.count) IDR)\n"
            text += "GOP:         " + (gopLengths.isEmpty ? "no IDR" : "lengths \(Set(gopLengths).sorted().map(String.init).joined(separator: ", ")), pattern \(pattern)") + "\n\n"
            text += "decode display  type    ref  POC    frame_num  bytes\n"
            for f in frames {
                let type = (f.idr ? "IDR " : "") + Set(f.sliceTypes).sorted().joined(separator: "/")
                text += "\(String(f.decodeIndex).padding(6)) \(String(f.displayIndex).padding(7)) \(type.padding(7)) \((f.reference ? "yes" : "no").padding(4)) \(String(f.poc).padding(6)) \(String(f.frameNum).padding(10)) \(f.bytes)\n"
            }
            if !problems.isEmpty { text += "\nproblems:\n" + problems.map { "  \($0)\n" }.joined() }
            StandardStreams.out(text)
        }
        return problems.isEmpty ? .success : .input
    }

    static func entropy(_ format: FormatDescription) -> String {
        var sets = ParameterSets()
        for unit in format.sequenceParameterSets + format.pictureParameterSets { _ = try? sets.store(unit) }
        return sets.pps.values.first.map { $0.entropyCodingModeFlag ? "CABAC" : "CAVLC" } ?? "?"
    }
}
