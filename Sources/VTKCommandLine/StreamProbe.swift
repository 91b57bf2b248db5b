import DecompressionSession
import H264Bitstream
import JSONText
import MP4
import VideoDecoding

/// `vtk probe` of one codec's stream, written once for every codec: reads the Annex B stream or MP4 samples,
/// runs the codec's decoding process without VA to learn POCs and display order, and hands the rows to the
/// codec's ``ProbeReport``.
enum StreamProbe<Report: ProbeReport> {
    typealias Codec = Report.Codec
    typealias Frame = Report.Frame
    static var name: String { ProbeCommand.name }

    /// What every codec's report uses.
    struct Result {
        let input: InputFile
        let frames: [Frame]
        /// Problems kept for the report (at most ``ProbeCommand/problemLimit``), and how many there were.
        let problems: [String]
        let problemCount: Int
        /// Frames output by the decoding process.
        let displayCount: Int
        /// Decode indices of the pictures that start a GOP, and each GOP's length in stream order.
        let gopStarts: [Int]
        let gopLengths: [Int]
        /// The container's frame rate, else the stream's, in lowest terms.
        let rate: (numerator: Int, denominator: Int)?
    }

    static func run(_ parsed: ParsedArguments, input: InputFile, limit: Int) throws(CommandFailure) -> ExitCode {
        if let message = input.signature?.notMessage(input.displayName, codec: Codec.videoCodec) { throw CommandFailure(.input, "vtk probe: \(message)") }
        let mp4 = try MP4Input.open(input, command: name)
        var assembler = Codec.Assembler()
        var process = Codec.Process()
        var report = Report()
        var frames: [Frame] = []
        var problems: [String] = []
        var problemCount = 0
        var displayIndex = 0
        /// The rows of the access units decoded into each picture: one, or (H.264) a field pair's two.
        var rowsOf: [Request.Picture.ID: [Int]] = [:]
        typealias Request = Codec.Process.Request
        func note(_ problem: String) {
            problemCount += 1
            if problems.count < ProbeCommand.problemLimit { problems.append(problem) }
        }
        func record(_ event: Codec.Process.Event) {
            switch event {
            case .decode(let request):
                // The request is for the access unit just appended.
                let index = frames.count - 1
                guard index >= 0 else { break }
                rowsOf[request.picture.id, default: []].append(index)
                report.decoded(request, into: &frames[index])
            case .output(let picture):
                for index in rowsOf.removeValue(forKey: picture.id) ?? [] where index < frames.count { frames[index].displayIndex = displayIndex }
                displayIndex += 1
            case .released(let id):
                rowsOf[id] = nil
            case .problem(let problem):
                note(problem.description)
            default:
                break
            }
        }
        func handle(_ units: [Codec.Assembler.AccessUnit]) {
            for unit in units where frames.count < limit {
                for problem in unit.problems { note("byte \(unit.offset): \(problem)") }
                guard let frame = report.frame(for: unit, index: frames.count) else { continue }
                frames.append(frame)
                for event in process.decode(unit, presentationTime: .invalid) { record(event) }
            }
        }
        /// The container's frame rate (an MP4's timescale over its first sample's duration).
        var containerRate: (Int, Int)?
        if let mp4 {
            // Each sample is one access unit; the record's parameter sets come first, file offsets are kept.
            let parameterSets = mp4.format?.parameterSetNALUnits ?? []
            containerRate = mp4.readSamples(parameterSets: parameterSets, while: { frames.count < limit }, problem: note,
                                            unit: { if let done = assembler.push($0) { handle([done]) } },
                                            endOfSample: { handle(assembler.finish()) })
        } else {
            while frames.count < limit {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                if input.bytesRead == chunk.count, let message = InputSignature(head: chunk).notMessage(input.displayName, codec: Codec.videoCodec) {
                    throw CommandFailure(.input, "vtk probe: \(message)")
                }
                handle(assembler.append(chunk))
            }
            handle(assembler.finish())
        }
        for event in process.flush() { record(event) }
        guard let format = report.format else {
            throw CommandFailure(.input, "vtk probe: no decodable \(Codec.videoCodec.name) pictures in \(input.displayName)"
                                 + (problems.first.map { ": \($0)" } ?? ""))
        }
        let starts = frames.filter(\.startsGOP).map { $0.decodeIndex }
        let result = Result(input: input, frames: frames, problems: problems, problemCount: problemCount, displayCount: displayIndex,
                            gopStarts: starts, gopLengths: zip(starts, starts.dropFirst() + [frames.count]).map { $1 - $0 },
                            rate: (containerRate ?? format.frameRate.map { FrameRate.reduced($0.numerator, $0.denominator) }).map { ($0.0, $0.1) })
        StandardStreams.out(parsed.has("json") ? report.json(result, format: format).text + "\n" : report.text(result, format: format))
        return problemCount == 0 ? .success : .input
    }
}

extension StreamProbe.Result {
    /// "problems" and, with `leftOut`, "problems_left_out" for the JSON report.
    func problemsJSON(leftOut: Bool) -> [(String, JSONValue)] {
        [("problems", .array(problems.map(JSONValue.string)))] + (leftOut ? [("problems_left_out", .int(problemCount - problems.count))] : [])
    }

    /// The problems section of the text report (nothing when there are none).
    func problemsText(leftOut: Bool) -> String {
        guard !problems.isEmpty else { return "" }
        var text = "\nproblems:\n" + problems.map { "  \($0)\n" }.joined()
        if leftOut, problemCount > problems.count { text += "  … and \(problemCount - problems.count) more\n" }
        return text
    }

    /// The "size:" line's value: the display size, and the coded size and crop when they differ.
    func sizeText(_ format: some CodecFormatDescription, crop: (x: Int, y: Int, width: Int, height: Int)) -> String {
        "\(format.displayWidth)x\(format.displayHeight)"
            + (format.displayWidth != format.codedWidth || format.displayHeight != format.codedHeight
                ? " (coded \(format.codedWidth)x\(format.codedHeight), crop left \(crop.x) top \(crop.y))\n" : "\n")
    }

    /// The size fields of the JSON report, crop included.
    func sizeJSON(_ format: some CodecFormatDescription, crop: (x: Int, y: Int, width: Int, height: Int)) -> [(String, JSONValue)] {
        [
            ("width", .int(format.displayWidth)), ("height", .int(format.displayHeight)),
            ("coded_width", .int(format.codedWidth)), ("coded_height", .int(format.codedHeight)),
            ("crop", .object([("left", .int(crop.x)), ("top", .int(crop.y)),
                              ("right", .int(format.codedWidth - crop.x - crop.width)), ("bottom", .int(format.codedHeight - crop.y - crop.height))])),
            ("sar", .string("\(format.sampleAspectRatio.width):\(format.sampleAspectRatio.height)")),
        ]
    }
}
