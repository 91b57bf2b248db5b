import DecompressionSession
import JSONText

/// What `vtk decode` reports at the end: one summary line, the problems grouped, and JSON.
struct DecodeSummary {
    let input: InputFile
    let frames: Int
    let sizes: FrameSizes
    let device: String
    let seconds: Double
    let md5: String?
    let statistics: DecodeStatistics

    /// One line under 100 characters: frames, size(s), the file's name and real size, device, time.
    var line: String {
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        let file = input.size.map { "\(input.shortName) (\(ByteCount.text($0)))" } ?? input.shortName
        return "vtk decode: \(frames) frames \(sizes.text) from \(file) on \(DeviceName.short(device)), "
            + "\(String(format2: seconds)) s (\(String(format1: fps)) fps)\n"
    }

    /// The problems, the same message once with its count (e.g. one line for a profile that every picture
    /// repeats), at most 10 distinct ones.
    var problemReport: String {
        let groups = ProblemGroups(statistics.problems)
        var message = "vtk decode: \(input.displayName): \(statistics.problemCount) problem(s); \(frames) frame(s) output"
        if statistics.damagedFrames > 0 { message += ", \(statistics.damagedFrames) of them possibly wrong" }
        if statistics.accessUnitsSkipped > 0 { message += ", \(statistics.accessUnitsSkipped) access unit(s) skipped" }
        message += ":\n" + groups.lines.prefix(10).map { "  \($0)" }.joined(separator: "\n")
        let left = statistics.problemCount - groups.shown(10)
        if left > 0 { message += "\n  … and \(left) more" }
        return message
    }

    func json(exitCode: ExitCode) -> JSONValue {
        let groups = ProblemGroups(statistics.problems)
        return .object([
            ("input", .string(input.displayName)),
            ("file_bytes", input.size.map(JSONValue.int) ?? .null),
            ("frames", .int(frames)),
            ("width", sizes.runs.first.map { .int($0.width) } ?? .null),
            ("height", sizes.runs.first.map { .int($0.height) } ?? .null),
            ("sizes", .array(sizes.runs.map { .object([("width", .int($0.width)), ("height", .int($0.height)), ("first_frame", .int($0.firstFrame))]) })),
            ("md5", md5.map(JSONValue.string) ?? .null),
            ("device", .string(device)),
            ("seconds", .double(seconds)),
            ("fps", .double(seconds > 0 ? Double(frames) / seconds : 0)),
            ("speed_method", .string("wall time of the whole run: reading, decoding, reading back and writing the frames")),
            ("damaged_frames", .int(statistics.damagedFrames)),
            ("skipped_access_units", .int(statistics.accessUnitsSkipped)),
            ("problem_count", .int(statistics.problemCount)),
            ("problems", .array(groups.lines.map(JSONValue.string))),
            ("problems_left_out", .int(statistics.problemCount - groups.shown(groups.lines.count))),
            ("exit_code", .int(Int(exitCode.rawValue))),
        ])
    }
}

/// Problems with the same message apart from byte offsets and indices, counted once each, in order of
/// first appearance: "unsupported ... (120 times, first at byte 44)".
struct ProblemGroups {
    private var groups: [(key: String, first: String, count: Int)] = []

    init(_ problems: [String]) {
        var index: [String: Int] = [:]
        for problem in problems {
            let key = String(problem.map { $0.isNumber ? "#" : $0 })
            if let i = index[key] { groups[i].count += 1 } else {
                index[key] = groups.count
                groups.append((key, problem, 1))
            }
        }
    }

    var lines: [String] { groups.map { $0.count > 1 ? "\($0.first) (and \($0.count - 1) more like it)" : $0.first } }

    /// Problems the first `n` lines stand for.
    func shown(_ n: Int) -> Int { groups.prefix(n).reduce(0) { $0 + $1.count } }
}

enum ByteCount {
    /// 1234 -> "1.2 kB", 1234567 -> "1.2 MB" (SI units, as ls -h --si).
    static func text(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return "\(String(format1: Double(bytes) / 1e3)) kB" }
        if bytes < 1_000_000_000 { return "\(String(format1: Double(bytes) / 1e6)) MB" }
        return "\(String(format1: Double(bytes) / 1e9)) GB"
    }
}

enum DeviceName {
    /// "vtksoft" of "vtksoft (vtksoft: software VA-API driver ...)": the device once, not its driver's
    /// whole description.
    static func short(_ description: String) -> String {
        description.firstRange(of: " (").map { String(description[..<$0.lowerBound]) } ?? description
    }
}

extension InputFile {
    /// The file's name without its folders.
    var shortName: String { path == "-" ? "standard input" : String(path.split(separator: "/").last ?? Substring(path)) }
}
