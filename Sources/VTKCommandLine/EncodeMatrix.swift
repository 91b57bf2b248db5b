import JSONText
import VTKMedia

/// One case of an encode matrix: what to encode and how, turned into a `vtk roundtrip` command line.
struct EncodeCase: Sendable {
    let name: String
    /// Arguments of `vtk roundtrip` after the subcommand name.
    let arguments: [String]
    /// VTKSOFT_PERSONA for `device: soft:NAME`.
    let persona: String?
    /// The target bit rate in bit/s (CBR, VBR), for the bit-rate error.
    let targetBitRate: Int?
    /// B-frames asked for: a case that gets fewer is not-supported, not a pass with other numbers.
    let bFrames: Int

    static let keys: Set<String> = ["name", "source", "size", "frames", "fps", "pix_fmt", "rc", "qp", "bitrate", "profile", "bframes", "keyint",
                                    "device", "persona", "codec"]

    /// Reads MATRIX.json: a list of cases, or {"cases": [...]}.
    static func load(_ path: String, command: String) throws(CommandFailure) -> [EncodeCase] {
        let fail = { (why: String) in CommandFailure(.input, "vtk \(command): \(path): \(why)") }
        guard let data = FileBytes.read(path: path) else { throw fail("cannot read the file") }
        let object: JSONValue
        do { object = try JSONValue.parse(data) } catch { throw fail("not JSON: \(error)") }
        guard let list = object.objectsValue ?? object["cases"]?.objectsValue else {
            throw fail("an encode matrix is a JSON list of cases, or an object with a \"cases\" list")
        }
        guard !list.isEmpty else { throw fail("no cases") }
        var cases: [EncodeCase] = []
        for (index, entry) in list.enumerated() {
            let item = try EncodeCase(entry, index: index, fail: fail)
            if cases.contains(where: { $0.name == item.name }) { throw fail("case name '\(item.name)' is used twice") }
            cases.append(item)
        }
        return cases
    }

    init(_ entry: JSONValue, index: Int, fail: (String) -> CommandFailure) throws(CommandFailure) {
        let label = entry["name"]?.stringValue.map { "case '\($0)'" } ?? "cases[\(index)]"
        if let unknown = (entry.objectValue ?? []).map(\.0).sorted().first(where: { !Self.keys.contains($0) }) {
            throw fail("\(label): unknown key '\(unknown)' (known: \(Self.keys.sorted().joined(separator: ", ")))")
        }
        guard let name = entry["name"]?.stringValue, !name.isEmpty else { throw fail("\(label) needs a \"name\"") }
        func text(_ key: String) throws(CommandFailure) -> String? {
            guard let value = entry[key] else { return nil }
            if let string = value.stringValue { return string }
            if let integer = value.intValue { return String(integer) }
            if let number = value.doubleValue { return "\(number)" }
            throw fail("\(label): \"\(key)\" must be a string or a number")
        }
        var arguments: [String] = []
        let source = try text("source") ?? "builtin"
        if source != "builtin" { arguments.append(source) }
        if let size = try text("size") { arguments += ["--size", size] }
        if let frames = try text("frames") {
            guard source == "builtin" else { throw fail("\(label): \"frames\" is for the built-in clip") }
            arguments += ["--frames", frames]
        }
        if let fps = try text("fps") { arguments += ["--fps", fps] }
        if let format = try text("pix_fmt") { arguments += ["--pix-fmt", format] }
        let bitRate = try text("bitrate")
        let rc = try text("rc")?.lowercased() ?? (bitRate == nil ? "cqp" : "cbr")
        switch rc {
        case "cqp":
            if bitRate != nil { throw fail("\(label): \"bitrate\" needs rc cbr or vbr") }
            arguments += ["--qp", try text("qp") ?? "26"]
            targetBitRate = nil
        case "cbr", "vbr":
            guard let bitRate, let bits = EncodeOptions.bitRate(bitRate) else { throw fail("\(label): rc \(rc) needs a \"bitrate\" (bit/s, k or M suffix)") }
            if entry["qp"] != nil { throw fail("\(label): \"qp\" is for rc cqp") }
            arguments += ["--bitrate", bitRate, "--rc", rc]
            targetBitRate = bits
        default:
            throw fail("\(label): rc must be cqp, cbr or vbr, not '\(rc)'")
        }
        // "h264" (the default) or "h265": `vtk roundtrip --codec`.
        if let codec = try text("codec")?.lowercased() {
            guard ["h264", "h265", "hevc"].contains(codec) else { throw fail("\(label): codec must be h264 or h265, not '\(codec)'") }
            if codec != "h264" { arguments += ["--codec", "h265"] }
        }
        if let profile = try text("profile") { arguments += ["--profile", profile] }
        if let keyint = try text("keyint") { arguments += ["--keyint", keyint] }
        // 0 is what every encoder does; more is --bframes, checked against the B-frames the report says were used.
        let bframes = try text("bframes") ?? "0"
        if bframes != "0" { arguments += ["--bframes", bframes] }
        bFrames = Int(bframes) ?? 0
        var device = try text("device") ?? "auto"
        var persona = try text("persona")
        if device.hasPrefix("soft:") { persona = String(device.dropFirst(5)) }
        if let persona { device = "soft:\(persona)" }
        arguments += ["--device", device, "--psnr", "--ssim", "--json", "-q"]
        self.name = name
        self.arguments = arguments
        self.persona = persona
    }
}

/// What one case measured (`vtk roundtrip --json`), and what a baseline keeps.
struct EncodeMetrics: Sendable {
    var psnr: [Double]  // Y, U, V
    var ssim: Double?
    var bitRate: Double
    var fps: Double
    /// (actual - target) / target in percent; nil for CQP.
    var bitRateError: Double?
    var idrFrames: [Int]

    var json: [(String, JSONValue)] {
        [("psnr", .object([("y", .number(psnr[0])), ("u", .number(psnr[1])), ("v", .number(psnr[2]))])),
         ("ssim", ssim.map(JSONValue.number) ?? .null), ("bitrate", .number(bitRate)), ("fps", .number(fps)),
         ("bitrate_error", bitRateError.map(JSONValue.number) ?? .null), ("idr_frames", .ints(idrFrames))]
    }

    /// From a roundtrip report or a baseline case (same keys, except fps: speed.encode_fps in the former).
    init?(_ object: JSONValue, targetBitRate: Int?) {
        guard let psnr = object["psnr"], let y = psnr["y"]?.doubleValue, let u = psnr["u"]?.doubleValue, let v = psnr["v"]?.doubleValue,
              let bitRate = object["bitrate"]?.doubleValue else { return nil }
        self.psnr = [y, u, v]
        ssim = object["ssim"]?.doubleValue ?? object["ssim"]?["y"]?.doubleValue
        self.bitRate = bitRate
        fps = object["fps"]?.doubleValue ?? object["speed"]?["encode_fps"]?.doubleValue ?? 0
        if let target = targetBitRate, target > 0 {
            bitRateError = (bitRate - Double(target)) / Double(target) * 100
        } else {
            bitRateError = object["bitrate_error"]?.doubleValue
        }
        idrFrames = object["idr_frames"]?.intsValue ?? []
    }
}

/// How far a metric may move from the baseline before the case fails.
struct EncodeTolerances: Sendable {
    /// dB a plane's PSNR may drop.
    var psnr: Double? = 0.2
    /// Percent the bit rate may rise.
    var bitRate: Double? = 5
    /// Percent the encode speed may drop; off unless asked for: speed is wall time, which the machine's
    /// load moves by more than any useful limit (a loaded CI runner halves it), while the other metrics are
    /// exact functions of the build.
    var fps: Double? = nil

    /// `psnr=0.2`, `bitrate=5%`, `fps=20%`, `fps=off`; several per value with commas.
    init(_ specs: [String], command: String) throws(CommandFailure) {
        for spec in specs.flatMap({ $0.split(separator: ",").map(String.init) }) {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            let bad = CommandFailure(.usage, "vtk \(command): --tolerance must be psnr=DB, bitrate=PCT% or fps=PCT% (or METRIC=off), not '\(spec)'")
            guard parts.count == 2 else { throw bad }
            let value: Double?
            if parts[1] == "off" {
                value = nil
            } else {
                guard let number = Double(parts[1].hasSuffix("%") ? String(parts[1].dropLast()) : parts[1]), number >= 0, number.isFinite else { throw bad }
                value = number
            }
            switch parts[0] {
            case "psnr": psnr = value
            case "bitrate": bitRate = value
            case "fps": fps = value
            default: throw bad
            }
        }
    }
}

/// One metric of a case against its baseline.
struct MetricComparison: Sendable {
    let metric: String
    let baseline: String
    let current: String
    let delta: String
    let limit: String
    let passed: Bool

    /// Every gated metric of `current` against `baseline`.
    static func compare(_ current: EncodeMetrics, _ baseline: EncodeMetrics, _ tolerances: EncodeTolerances) -> [MetricComparison] {
        var out: [MetricComparison] = []
        for (plane, name) in ["y", "u", "v"].enumerated() {
            let b = baseline.psnr[plane], c = current.psnr[plane]
            out.append(MetricComparison(metric: "psnr_\(name)", baseline: String(format2: b), current: String(format2: c),
                                        delta: signed(c - b) + " dB", limit: tolerances.psnr.map { "-\(String(format2: $0)) dB" } ?? "off",
                                        passed: tolerances.psnr.map { c >= b - $0 - 1e-9 } ?? true))
        }
        let rateChange = baseline.bitRate > 0 ? (current.bitRate - baseline.bitRate) / baseline.bitRate * 100 : 0
        out.append(MetricComparison(metric: "bitrate", baseline: String(format1: baseline.bitRate / 1000) + " kbit/s",
                                    current: String(format1: current.bitRate / 1000) + " kbit/s", delta: signed(rateChange) + "%",
                                    limit: tolerances.bitRate.map { "+\(String(format1: $0))%" } ?? "off",
                                    passed: tolerances.bitRate.map { rateChange <= $0 + 1e-9 } ?? true))
        let fpsChange = baseline.fps > 0 ? (current.fps - baseline.fps) / baseline.fps * 100 : 0
        out.append(MetricComparison(metric: "fps", baseline: String(format1: baseline.fps), current: String(format1: current.fps),
                                    delta: signed(fpsChange) + "%", limit: tolerances.fps.map { "-\(String(format1: $0))%" } ?? "off",
                                    passed: tolerances.fps.map { fpsChange >= -$0 - 1e-9 } ?? true))
        let idr = { (list: [Int]) in list.map(String.init).joined(separator: " ") }
        out.append(MetricComparison(metric: "idr_frames", baseline: idr(baseline.idrFrames), current: idr(current.idrFrames),
                                    delta: baseline.idrFrames == current.idrFrames ? "same" : "differ", limit: "same",
                                    passed: baseline.idrFrames == current.idrFrames))
        return out
    }

    static func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + String(format2: value) }

    var json: JSONValue {
        .object([("metric", .string(metric)), ("baseline", .string(baseline)), ("current", .string(current)), ("delta", .string(delta)),
                 ("limit", .string(limit)), ("passed", .bool(passed))])
    }
}
