import JSONText
import VTKMedia

/// The results of `vtk suite run` (or of merged shards): the JSON CI keeps, a summary table like fluster's
/// (one column per decoder, a totals row), Markdown, and JUnit XML.
struct SuiteReport {
    var suite: String
    var decoders: [String]
    /// "I/N" when this is one shard of a run.
    var shard: String?
    /// Tests in the whole suite(s), before sharding: what merged shards must add up to.
    var suiteTests: Int
    var results: [SuiteResult]

    /// Tests (suite and name) in report order, each once.
    var tests: [(suite: String, test: String)] {
        var seen = Set<String>()
        return results.compactMap { r in seen.insert("\(r.suite)/\(r.test)").inserted ? (r.suite, r.test) : nil }
    }

    var failed: Bool { results.contains { [.fail, .error, .timeout].contains($0.status) } }

    func results(for decoder: String) -> [SuiteResult] { results.filter { $0.decoder == decoder } }

    // MARK: JSON (stable: CI and `vtk suite merge` read it)

    var json: JSONValue {
        .object([
            ("suite", .string(suite)),
            ("decoders", .array(decoders.map(JSONValue.string))),
            ("shard", shard.map(JSONValue.string) ?? .null),
            ("suite_tests", .int(suiteTests)),
            ("results", .array(results.map { r in
                var fields: [(String, JSONValue)] = [("test", .string(r.test)), ("decoder", .string(r.decoder)), ("status", .string(r.status.rawValue)),
                                                     ("seconds", .number((r.seconds * 1000).rounded() / 1000)), ("md5", r.md5.map(JSONValue.string) ?? .null)]
                fields += [("suite", .string(r.suite)), ("expected_md5", r.expectedMD5.map(JSONValue.string) ?? .null),
                           ("first_bad_frame", r.firstBadFrame.map(JSONValue.int) ?? .null), ("detail", r.detail.map(JSONValue.string) ?? .null)]
                return .object(fields)
            })),
        ])
    }

    static func read(_ path: String, command: String) throws(CommandFailure) -> SuiteReport {
        let fail = { (why: String) in CommandFailure(.input, "vtk \(command): \(path): \(why)") }
        guard let data = FileBytes.read(path: path) else { throw fail("cannot read the file") }
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw fail("not JSON: \(error)") }
        guard let suite = root["suite"]?.stringValue, let list = root["results"]?.objectsValue else {
            throw fail("not a vtk suite report (needs \"suite\" and \"results\")")
        }
        var results: [SuiteResult] = []
        for (index, entry) in list.enumerated() {
            guard let test = entry["test"]?.stringValue, let decoder = entry["decoder"]?.stringValue,
                  let statusText = entry["status"]?.stringValue, let status = SuiteStatus(rawValue: statusText) else {
                throw fail("results[\(index)] needs \"test\", \"decoder\" and a \"status\" of \(SuiteStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            results.append(SuiteResult(suite: entry["suite"]?.stringValue ?? suite, test: test, decoder: decoder, status: status,
                                       seconds: entry["seconds"]?.doubleValue ?? 0, md5: entry["md5"]?.stringValue,
                                       expectedMD5: entry["expected_md5"]?.stringValue, firstBadFrame: entry["first_bad_frame"]?.intValue,
                                       detail: entry["detail"]?.stringValue))
        }
        var decoders = root["decoders"]?.stringsValue ?? []
        for r in results where !decoders.contains(r.decoder) { decoders.append(r.decoder) }
        return SuiteReport(suite: suite, decoders: decoders, shard: root["shard"]?.stringValue,
                           suiteTests: root["suite_tests"]?.intValue ?? Set(results.map { "\($0.suite)/\($0.test)" }).count, results: results)
    }

    /// Shard reports joined: every test of the suite exactly once per decoder, or an error naming what is
    /// missing or doubled.
    static func merge(_ reports: [SuiteReport], command: String) throws(CommandFailure) -> SuiteReport {
        guard let first = reports.first else { throw CommandFailure(.usage, "vtk \(command): no reports to merge") }
        var decoders: [String] = []
        for report in reports { for d in report.decoders where !decoders.contains(d) { decoders.append(d) } }
        var seen: [String: Int] = [:]
        var results: [SuiteResult] = []
        for (number, report) in reports.enumerated() {
            guard report.suite == first.suite, report.suiteTests == first.suiteTests else {
                throw CommandFailure(.input, "vtk \(command): report \(number + 1) is of suite '\(report.suite)' (\(report.suiteTests) tests), "
                                     + "report 1 of '\(first.suite)' (\(first.suiteTests) tests)")
            }
            for r in report.results {
                let key = "\(r.suite)/\(r.test) on \(r.decoder)"
                if let other = seen[key] {
                    throw CommandFailure(.input, "vtk \(command): \(key) is in report \(other + 1) and report \(number + 1): the shards overlap")
                }
                seen[key] = number
                results.append(r)
            }
        }
        results.sort { ($0.suite, $0.test, decoders.firstIndex(of: $0.decoder) ?? 0) < ($1.suite, $1.test, decoders.firstIndex(of: $1.decoder) ?? 0) }
        let merged = SuiteReport(suite: first.suite, decoders: decoders, shard: nil, suiteTests: first.suiteTests, results: results)
        for decoder in decoders {
            let count = merged.results(for: decoder).count
            if count != first.suiteTests {
                throw CommandFailure(.input, "vtk \(command): \(decoder) has \(count) results but the suite has \(first.suiteTests) tests: a shard is missing")
            }
        }
        return merged
    }

    // MARK: Tables

    static func word(_ status: SuiteStatus, unavailable: Bool = false) -> String {
        switch status {
        case .pass: return "pass"
        case .fail: return "FAIL"
        case .error: return "ERROR"
        case .timeout: return "TIMEOUT"
        case .notSupported: return unavailable ? "n/a" : "n/s"
        }
    }

    private func cell(_ suite: String, _ test: String, _ decoder: String) -> SuiteResult? {
        results.first { $0.suite == suite && $0.test == test && $0.decoder == decoder }
    }

    private func total(_ decoder: String) -> String {
        let mine = results(for: decoder)
        return "\(mine.filter { $0.status == .pass }.count)/\(mine.count)"
    }

    private func time(_ decoder: String) -> String { String(format2: results(for: decoder).reduce(0) { $0 + $1.seconds }) }

    private static func isUnavailable(_ r: SuiteResult) -> Bool { r.detail?.hasPrefix("not available") == true }

    /// Plain text for a terminal: a row per test, a column per decoder, TOTAL (passed/run) and TIME rows.
    var table: String {
        let rows = tests
        let showSuite = Set(rows.map(\.suite)).count > 1
        let names = rows.map { showSuite ? "\($0.suite)/\($0.test)" : $0.test }
        let first = max(10, (names.map(\.count).max() ?? 0) + 2)
        let widths = decoders.map { max($0.count + 2, 10) }
        func line(_ head: String, _ cells: [String]) -> String {
            String((head.padding(first) + zip(cells, widths).map { $0.padding($1) }.joined()).reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        var out = "suite: \(suite)" + (shard.map { " (shard \($0))" } ?? "") + "\n"
        out += line("test", decoders)
        for (row, name) in zip(rows, names) {
            out += line(name, decoders.map { d in cell(row.suite, row.test, d).map { Self.word($0.status, unavailable: Self.isUnavailable($0)) } ?? "-" })
        }
        out += line("TOTAL", decoders.map(total))
        out += line("TIME (s)", decoders.map(time))
        var notes: [String] = []
        // Not-supported once per decoder (it is usually one reason for all); failures one by one.
        for decoder in decoders {
            let skipped = results(for: decoder).filter { $0.status == .notSupported }
            guard let first = skipped.first else { continue }
            if Self.isUnavailable(first) {
                notes.append("\(decoder): \(first.detail ?? "")")
            } else {
                notes.append("\(decoder): \(skipped.count) not supported, e.g. \(first.test): \(first.detail ?? "")")
            }
        }
        for r in results where ![.pass, .notSupported].contains(r.status) {
            notes.append("\(Self.word(r.status)) \(r.test) on \(r.decoder)" + (r.detail.map { ": \($0)" } ?? (r.md5.map { ": MD5 \($0), expected \(r.expectedMD5 ?? "?")" } ?? "")))
        }
        if !notes.isEmpty { out += "\n" + notes.joined(separator: "\n") + "\n" }
        return out
    }

    /// GitHub/GitLab Markdown in fluster's layout: totals first, then a row per test.
    var markdown: String {
        func symbol(_ r: SuiteResult?) -> String {
            guard let r else { return "" }
            switch r.status {
            case .pass: return "✔️"
            case .fail: return "❌"
            case .error: return "☠"
            case .timeout: return "⌛"
            case .notSupported: return Self.isUnavailable(r) ? "n/a" : "n/s"
            }
        }
        var out = "|Test|" + decoders.joined(separator: "|") + "|\n|-|" + decoders.map { _ in "-|" }.joined() + "\n"
        out += "|TOTAL|" + decoders.map(total).joined(separator: "|") + "|\n"
        out += "|TOTAL TIME|" + decoders.map { time($0) + "s" }.joined(separator: "|") + "|\n"
        out += "|-|" + decoders.map { _ in "-|" }.joined() + "\n"
        for row in tests {
            out += "|\(row.test)|" + decoders.map { symbol(cell(row.suite, row.test, $0)) }.joined(separator: "|") + "|\n"
        }
        return out
    }

    // MARK: JUnit

    /// JUnit XML as GitLab and Jenkins read it: a <testsuite> per decoder, a <testcase> per test; fail and
    /// timeout are <failure>, error is <error>, not-supported is <skipped>.
    var junit: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let all = results
        out += "<testsuites name=\"\(Self.xml(suite))\" tests=\"\(all.count)\" failures=\"\(count(all, [.fail, .timeout]))\" "
            + "errors=\"\(count(all, [.error]))\" skipped=\"\(count(all, [.notSupported]))\" time=\"\(seconds(all))\">\n"
        for decoder in decoders {
            let mine = results(for: decoder)
            let name = Self.xml("\(suite).\(decoder)")
            out += "  <testsuite name=\"\(name)\" tests=\"\(mine.count)\" failures=\"\(count(mine, [.fail, .timeout]))\" "
                + "errors=\"\(count(mine, [.error]))\" skipped=\"\(count(mine, [.notSupported]))\" time=\"\(seconds(mine))\">\n"
            for r in mine {
                out += "    <testcase classname=\"\(name)\" name=\"\(Self.xml(r.test))\" time=\"\(String(decimals: 3, r.seconds))\""
                let message = Self.xml(r.detail ?? (r.md5.map { "MD5 \($0), expected \(r.expectedMD5 ?? "?")" } ?? r.status.rawValue))
                switch r.status {
                case .pass: out += "/>\n"
                case .fail, .timeout:
                    out += ">\n      <failure type=\"\(r.status.rawValue)\" message=\"\(message)\">\(message)</failure>\n    </testcase>\n"
                case .error: out += ">\n      <error type=\"error\" message=\"\(message)\">\(message)</error>\n    </testcase>\n"
                case .notSupported: out += ">\n      <skipped message=\"\(message)\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    private func count(_ list: [SuiteResult], _ statuses: [SuiteStatus]) -> Int { list.filter { statuses.contains($0.status) }.count }
    private func seconds(_ list: [SuiteResult]) -> String { String(decimals: 3, list.reduce(0) { $0 + $1.seconds }) }

    /// Text as XML attribute or character data.
    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
