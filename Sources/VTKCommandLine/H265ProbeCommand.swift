import H264Bitstream
import H265Bitstream
import H265Decoding
import JSONText
import MP4

/// `vtk probe` for H.265 streams: profile, tier, level, sizes, bit depth, and per picture its NAL unit
/// type, slice types, POC and display position (from the decoding process, without VA).
enum H265ProbeCommand {
    struct FrameInfo {
        var decodeIndex: Int
        var displayIndex = -1
        var offset: Int
        var bytes: Int
        var nalType: H265NALUnitType
        var temporalID: Int
        var sliceTypes: [String]
        var poc = 0
    }

    static func run(_ parsed: ParsedArguments, input: InputFile, limit: Int = Int.max) throws(CommandFailure) -> ExitCode {
        var assembler = H265AccessUnitAssembler()
        var process = H265DecodingProcess()
        var frames: [FrameInfo] = [], problems: [String] = []
        var displayIndex = 0
        var format: H265FormatDescription?
        /// The decoding process counts the pictures it decodes; probe lists every picture (skipped ones too).
        var frameOf: [Int: Int] = [:]
        func record(_ event: H265DecoderEvent) {
            switch event {
            case .decode(let request):
                frameOf[request.picture.decodeIndex] = frames.count - 1
                frames[frames.count - 1].poc = request.picture.poc
            case .output(let picture):
                if let index = frameOf[picture.decodeIndex] { frames[index].displayIndex = displayIndex }
                displayIndex += 1
            case .problem(let problem):
                if problems.count < 20 { problems.append(problem.description) }
            default:
                break
            }
        }
        func handle(_ units: [H265AccessUnit]) {
            for unit in units where frames.count < limit {
                for problem in unit.problems where problems.count < 20 { problems.append("byte \(unit.offset): \(problem)") }
                guard let first = unit.slices.first else { continue }
                if format == nil { format = try? H265FormatDescription(parameterSets: unit.parameterSets) }
                let types = unit.slices.filter { !$0.header.dependentSliceSegmentFlag }.map { "\($0.header.sliceType)".uppercased() }
                frames.append(FrameInfo(decodeIndex: frames.count, offset: unit.offset, bytes: unit.nalUnits.reduce(0) { $0 + $1.bytes.count },
                                        nalType: first.header.nalUnitType, temporalID: first.header.temporalID, sliceTypes: types))
                for event in process.decode(unit) { record(event) }
            }
        }
        /// The container's frame rate (an MP4's timescale over its first sample's duration).
        var containerRate: (Int, Int)?
        if let mp4 = try MP4Input.open(input, command: ProbeCommand.name) {
            // hvc1/hev1, fragmented or not: each sample is one access unit, its NAL units length-prefixed; the
            // hvcC's parameter sets (hev1 may also repeat them in the samples) come first. File offsets are kept.
            let format = mp4.reader.hevcFormatDescription
            let parameterSets = (format?.videoParameterSets ?? []) + (format?.sequenceParameterSets ?? []) + (format?.pictureParameterSets ?? [])
            containerRate = mp4.readSamples(parameterSets: parameterSets, while: { frames.count < limit },
                                            problem: { if problems.count < 20 { problems.append($0) } },
                                            unit: { if let done = assembler.push($0) { handle([done]) } },
                                            endOfSample: { handle(assembler.finish()) })
        } else {
            while frames.count < limit {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                handle(assembler.append(chunk))
            }
        }
        handle(assembler.finish())
        for event in process.flush() { record(event) }
        guard let format else {
            throw CommandFailure(.input, "vtk probe: no decodable H.265 pictures in \(input.displayName)" + (problems.first.map { ": \($0)" } ?? ""))
        }
        let irap = frames.filter { $0.nalType.isIRAP }.map(\.decodeIndex)
        let gopLengths = zip(irap, irap.dropFirst() + [frames.count]).map { $1 - $0 }
        let rate = containerRate.map { (numerator: $0.0, denominator: $0.1) } ?? format.frameRate.map { (numerator: $0.numerator, denominator: $0.denominator) }, crop = format.cleanAperture, sar = format.sampleAspectRatio
        let ptl = format.sps.profileTierLevel
        let level = Double(format.levelIdc) / 30

        if parsed.has("json") {
            let json = JSONValue.object([
                ("file", .string(input.displayName)),
                ("codec", .string("h265")),
                ("profile", .string(format.profileName)),
                ("profile_idc", .int(ptl.generalProfileIdc)),
                ("tier", .string(ptl.generalTierFlag ? "High" : "Main")),
                ("level", .double(level)),
                ("bit_depth", .int(format.bitDepth)),
                ("chroma_format_idc", .int(format.sps.chromaFormatIdc)),
                ("width", .int(format.displayWidth)), ("height", .int(format.displayHeight)),
                ("coded_width", .int(format.codedWidth)), ("coded_height", .int(format.codedHeight)),
                ("crop", .object([("left", .int(crop.x)), ("top", .int(crop.y)),
                                  ("right", .int(format.codedWidth - crop.x - crop.width)), ("bottom", .int(format.codedHeight - crop.y - crop.height))])),
                ("sar", .string("\(sar.width):\(sar.height)")),
                ("frame_rate", rate.map { .double(Double($0.numerator) / Double($0.denominator)) } ?? .null),
                ("ctb_size", .int(format.sps.ctbSize)),
                ("frames", .int(frames.count)),
                ("gop", .object([("irap_count", .int(irap.count)), ("lengths", .array(gopLengths.map(JSONValue.int)))])),
                ("per_frame", .array(frames.map { f in
                    .object([("decode_index", .int(f.decodeIndex)), ("display_index", .int(f.displayIndex)), ("offset", .int(f.offset)),
                             ("bytes", .int(f.bytes)), ("nal_unit_type", .string(f.nalType.description)), ("temporal_id", .int(f.temporalID)),
                             ("slice_types", .array(f.sliceTypes.map(JSONValue.string))), ("poc", .int(f.poc))])
                })),
                ("problems", .array(problems.map(JSONValue.string))),
            ])
            StandardStreams.out(json.text + "\n")
        } else {
            var text = "file:        \(input.displayName)\n"
            text += "codec:       H.265 \(format.profileName) (general_profile_idc \(ptl.generalProfileIdc)), \(ptl.generalTierFlag ? "High" : "Main") tier, level \(String(format1: level))\n"
            text += "size:        \(format.displayWidth)x\(format.displayHeight)"
            text += format.displayWidth != format.codedWidth || format.displayHeight != format.codedHeight
                ? " (coded \(format.codedWidth)x\(format.codedHeight), crop left \(crop.x) top \(crop.y))\n" : "\n"
            text += "bit depth:   \(format.bitDepth), CTB \(format.sps.ctbSize)x\(format.sps.ctbSize)\n"
            text += "SAR:         \(sar.width):\(sar.height)\n"
            text += "frame rate:  " + (rate.map { "\(String(format2: Double($0.numerator) / Double($0.denominator))) fps" } ?? "not signalled") + "\n"
            text += "frames:      \(frames.count) (\(irap.count) IRAP)\n\n"
            text += "decode display  type        tid  slices  POC    bytes\n"
            for f in frames {
                text += "\(String(f.decodeIndex).padding(6)) \(String(f.displayIndex).padding(7)) \(f.nalType.description.padding(11)) \(String(f.temporalID).padding(4)) \(Set(f.sliceTypes).sorted().joined(separator: "/").padding(7)) \(String(f.poc).padding(6)) \(f.bytes)\n"
            }
            if !problems.isEmpty { text += "\nproblems:\n" + problems.map { "  \($0)\n" }.joined() }
            StandardStreams.out(text)
        }
        return problems.isEmpty ? .success : .input
    }
}
