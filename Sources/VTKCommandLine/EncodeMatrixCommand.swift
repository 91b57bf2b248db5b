import JSONText
import VTKMedia
import ProcessTools

/// `vtk suite encode`: each case of a matrix through `vtk roundtrip` (a child process, so one case's crash
/// or refusal is that case's error), compared with a saved baseline.
enum EncodeMatrixCommand {
    struct CaseResult {
        let name: String
        var status: SuiteStatus
        var seconds: Double
        var metrics: EncodeMetrics?
        var comparisons: [MetricComparison] = []
        var detail: String?

        var json: JSONValue {
            var fields: [(String, JSONValue)] = [("case", .string(name)), ("status", .string(status.rawValue)),
                                                 ("seconds", .number((seconds * 1000).rounded() / 1000))]
            fields += metrics?.json ?? []
            fields.append(("detail", detail.map(JSONValue.string) ?? .null))
            if !comparisons.isEmpty { fields.append(("comparisons", .array(comparisons.map(\.json)))) }
            return .object(fields)
        }
    }

    static func run(_ paths: [String], _ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let command = "suite encode"
        guard paths.count == 1 else { throw CommandFailure(.usage, "vtk suite encode: one MATRIX.json expected, got \(paths.count)") }
        if parsed.has("markdown") { throw CommandFailure(.usage, "vtk suite encode: --markdown is for run and merge") }
        let tolerances = try EncodeTolerances(parsed.list("tolerance"), command: command)
        let timeout = try OptionValues(parsed: parsed, command: command).double("timeout", range: 0.1...86_400) ?? 600
        let cases = try EncodeCase.load(paths[0], command: command)
        let baseline = try parsed["baseline"].map { path throws(CommandFailure) in try readBaseline(path, command: command) }
        guard let vtk = ProgramPath.currentExecutable else { throw CommandFailure(.internalError, "vtk suite encode: cannot find vtk's own executable") }

        var results: [CaseResult] = []
        for item in cases {
            var result = measure(item, vtk: vtk, timeout: timeout)
            if result.status == .pass, let baseline {
                if let reference = baseline[item.name], let metrics = result.metrics {
                    result.comparisons = MetricComparison.compare(metrics, reference, tolerances)
                    let regressions = result.comparisons.filter { !$0.passed }
                    if !regressions.isEmpty {
                        result.status = .fail
                        result.detail = regressions.map { "\($0.metric) \($0.current) against baseline \($0.baseline) (\($0.delta), limit \($0.limit))" }
                            .joined(separator: "; ")
                    }
                } else {
                    result.status = .error
                    result.detail = "case '\(item.name)' is not in the baseline \(parsed["baseline"] ?? "")"
                }
            }
            if !parsed.has("quiet") {
                StandardStreams.error("\(item.name): \(SuiteReport.word(result.status))" + (result.detail.map { ": \($0)" } ?? "") + "\n")
            }
            results.append(result)
        }

        if ["json", "junit", "save-baseline"].contains(where: { parsed[$0] == "-" }) { StandardStreams.error(table(results)) } else { StandardStreams.out(table(results)) }
        let report = JSONValue.object([("matrix", .string(paths[0])), ("cases", .array(results.map(\.json)))]).text + "\n"
        if let path = parsed["json"] { try OutputFile(path, command: command).write(Array(report.utf8)) }
        if let path = parsed["save-baseline"] {
            if results.contains(where: { $0.metrics == nil }) {
                StandardStreams.error("vtk suite encode: cases without numbers are left out of the baseline\n")
            }
            try OutputFile(path, command: command).write(Array(report.utf8))
        }
        if let path = parsed["junit"] { try OutputFile(path, command: command).write(Array(junit(results, matrix: paths[0]).utf8)) }
        // As `suite run`: not-supported is not a failure; fail, error and timeout are.
        return results.contains { [.fail, .error, .timeout].contains($0.status) } ? .thresholdNotMet : .success
    }

    /// Runs `vtk roundtrip` for one case and reads its JSON.
    static func measure(_ item: EncodeCase, vtk: String, timeout: Double) -> CaseResult {
        let environment = item.persona.map { ["VTKSOFT_PERSONA": $0] } ?? [:]
        let result: TimedProcess.Result
        do { result = try TimedProcess.run(vtk, ["roundtrip"] + item.arguments, environment: environment, timeout: timeout) } catch {
            return CaseResult(name: item.name, status: .error, seconds: 0, detail: error.description)
        }
        let message = result.stderrText.split(separator: "\n").prefix(4).joined(separator: " | ")
        if result.timedOut { return CaseResult(name: item.name, status: .timeout, seconds: result.seconds, detail: "killed after \(String(format1: timeout)) s") }
        guard result.status == 0 else {
            // Exit 2 is vtk refusing the options (e.g. --b-pyramid without --bframes 2); 4 is the device refusing them.
            let why = result.status == 2 ? "options not supported by this vtk: " : result.status == 4 ? "device error: " : "exit \(result.status): "
            return CaseResult(name: item.name, status: result.status == 2 || result.status == 4 ? .notSupported : .error, seconds: result.seconds,
                              detail: why + message + " (vtk roundtrip \(item.arguments.joined(separator: " ")))")
        }
        guard let object = try? JSONValue.parse(result.stdout), object.objectValue != nil,
              let metrics = EncodeMetrics(object, targetBitRate: item.targetBitRate) else {
            return CaseResult(name: item.name, status: .error, seconds: result.seconds, detail: "vtk roundtrip --json printed no report")
        }
        // An encoder that quietly does less than asked (B-frames turned into P pictures on a driver without
        // list-1 references) would give a pass with another case's numbers: that case is not supported.
        let used = object["b_frames"]?.intValue ?? 0
        if item.bFrames > used {
            let why = object["encoder_warnings"]?.stringsValue?.joined(separator: "; ") ?? ""
            return CaseResult(name: item.name, status: .notSupported, seconds: result.seconds,
                              detail: "asked for \(item.bFrames) B-frame(s), the encoder used \(used)" + (why.isEmpty ? "" : ": \(why)"))
        }
        return CaseResult(name: item.name, status: .pass, seconds: result.seconds, metrics: metrics)
    }

    /// A saved report: its cases' numbers by case name.
    static func readBaseline(_ path: String, command: String) throws(CommandFailure) -> [String: EncodeMetrics] {
        guard let data = FileBytes.read(path: path),
              let cases = (try? JSONValue.parse(data))?["cases"]?.objectsValue else {
            throw CommandFailure(.input, "vtk \(command): \(path) is not a baseline written by --save-baseline (no \"cases\" list)")
        }
        var out: [String: EncodeMetrics] = [:]
        for entry in cases {
            if let name = entry["case"]?.stringValue, let metrics = EncodeMetrics(entry, targetBitRate: nil) { out[name] = metrics }
        }
        return out
    }

    static func table(_ results: [CaseResult]) -> String {
        let width = max(6, (results.map(\.name.count).max() ?? 0) + 2)
        var out = "case".padding(width) + "result  Y-PSNR  U-PSNR  V-PSNR  SSIM    kbit/s    fps     rate err  IDR frames\n"
        for r in results {
            out += r.name.padding(width) + SuiteReport.word(r.status).padding(8)
            if let m = r.metrics {
                out += m.psnr.map { String(format2: $0).padding(8) }.joined() + (m.ssim.map { String(decimals: 4, $0) } ?? "-").padding(8)
                    + String(format1: m.bitRate / 1000).padding(10) + String(format1: m.fps).padding(8)
                    + (m.bitRateError.map { MetricComparison.signed($0) + "%" } ?? "-").padding(10) + m.idrFrames.map(String.init).joined(separator: " ")
            }
            out += "\n"
        }
        let compared = results.filter { !$0.comparisons.isEmpty }
        if !compared.isEmpty {
            out += "\nagainst the baseline:\n"
            out += "case".padding(width) + "metric".padding(12) + "baseline".padding(16) + "current".padding(16) + "delta".padding(10) + "limit".padding(10) + "result\n"
            for r in compared {
                for c in r.comparisons {
                    out += r.name.padding(width) + c.metric.padding(12) + c.baseline.padding(16) + c.current.padding(16) + c.delta.padding(10)
                        + c.limit.padding(10) + (c.passed ? "ok" : "REGRESSION") + "\n"
                }
            }
        }
        let problems = results.filter { $0.status != .pass }
        if !problems.isEmpty {
            out += "\n" + problems.map { "\(SuiteReport.word($0.status)) \($0.name): \($0.detail ?? "")" }.joined(separator: "\n") + "\n"
        }
        return out
    }

    static func junit(_ results: [CaseResult], matrix: String) -> String {
        let failures = results.filter { $0.status == .fail || $0.status == .timeout }.count
        let errors = results.filter { $0.status == .error }.count
        let skipped = results.filter { $0.status == .notSupported }.count
        let name = SuiteReport.xml(matrix)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"\(name)\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\">\n"
        out += "  <testsuite name=\"\(name)\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\">\n"
        for r in results {
            out += "    <testcase classname=\"\(name)\" name=\"\(SuiteReport.xml(r.name))\" time=\"\(String(decimals: 3, r.seconds))\""
            let message = SuiteReport.xml(r.detail ?? r.status.rawValue)
            switch r.status {
            case .pass: out += "/>\n"
            case .fail, .timeout: out += ">\n      <failure type=\"\(r.status.rawValue)\" message=\"\(message)\">\(message)</failure>\n    </testcase>\n"
            case .error: out += ">\n      <error type=\"error\" message=\"\(message)\">\(message)</error>\n    </testcase>\n"
            case .notSupported: out += ">\n      <skipped message=\"\(message)\"/>\n    </testcase>\n"
            }
        }
        return out + "  </testsuite>\n</testsuites>\n"
    }
}
