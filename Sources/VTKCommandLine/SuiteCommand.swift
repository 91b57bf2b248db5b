import Glibc

/// `vtk suite`: decode conformance suites on several decoders side by side (`run`), join CI shards'
/// reports (`merge`), and encode regression matrices against a baseline (`encode`).
enum SuiteCommand {
    static let name = "suite"
    static let summary = "conformance suites on several decoders, CI shards, JUnit; encode matrices against a baseline"
    static let usage = """
        vtk suite run SUITE... [--decoder D ...] [--test NAME ...] [--skip NAME ...] [-j N] [--timeout S] [--shard I/N] [--junit FILE] [--json FILE] [--markdown FILE] [--resources DIR]
               vtk suite merge REPORT.json... [--junit FILE] [--json FILE] [--markdown FILE]
               vtk suite encode MATRIX.json [--baseline FILE] [--save-baseline FILE] [--tolerance METRIC=VALUE ...] [--json FILE] [--junit FILE]
        """
    static let examples = [
        "vtk suite run ../shared/conformance/h264 --decoder vtk:soft --decoder ffmpeg -j 2 --junit junit.xml",
        "vtk suite run JVT-AVC_V1.json --resources ~/fluster/resources --shard 1/4 --json shard1.json",
        "vtk suite merge shard*.json --junit junit.xml --markdown summary.md",
    ]
    static let options: [OptionSpec] = [
        .list("--decoder", valueName: "D", help: "run: a decoder to compare, repeatable (default vtk:auto): " + SuiteDecoder.help),
        .list("--test", valueName: "NAME", help: "run: only the test vector NAME, repeatable (fluster's -tv)"),
        .list("--skip", valueName: "NAME", help: "run: leave out the test vector NAME, repeatable (fluster's -sv)"),
        .value("-j", "--jobs", valueName: "N", help: "run: tests at a time (default 1)"),
        .value("--timeout", valueName: "S", help: "seconds one decode (run, default 120) or one case (encode, default 600) may take before it is killed: 'timeout'"),
        .value("--shard", valueName: "I/N", help: "run: only shard I of N (tests sorted by name, every N-th); N jobs run the suite once"),
        .value("--resources", valueName: "DIR", help: "run: where a fluster suite's streams are (default: beside the JSON)"),
        .value("--junit", valueName: "FILE", help: "write JUnit XML (testsuite per decoder, testcase per test)"),
        .value("--json", valueName: "FILE", help: "write the JSON report (every result)"),
        .value("--markdown", valueName: "FILE", help: "write the summary table as Markdown"),
        .value("--baseline", valueName: "FILE", help: "encode: compare with a saved baseline; a regression beyond tolerance fails the case"),
        .value("--save-baseline", valueName: "FILE", help: "encode: write the results as a baseline"),
        .list("--tolerance", valueName: "METRIC=VALUE", help: "encode: psnr=0.2 (dB drop), bitrate=5% (rise), fps=PCT% (drop; off by default, see below); repeatable or comma-separated; VALUE off disables"),
        .flag("-q", "--quiet", help: "no line per test on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        run: SUITE is fluster's test-suite JSON (name, codec, test_vectors[] with name, input_file, output_format,
        result) or a folder with vtk's reference.tsv (e.g. ../shared/conformance/h264). Each test decodes the
        stream with each decoder as a child process and compares the MD5 of all frames (planar, cropped, display
        order) with the suite's: pass, fail, error, timeout or not-supported, with the seconds taken. On a
        failure, when framemd5/<file>.tsv is beside the stream, the first differing frame is named. A decoder
        whose tool or device is missing is reported 'not available' (not-supported), not as a failure.
        ffmpeg-vaapi uses the first /dev/dri/renderD*; without one, vtksoft through a private Xvfb display.
        --test NAME and --skip NAME (each repeatable) choose test vectors by their exact name, as fluster's
        -tv and -sv do; a NAME that is in none of the suites is a usage error (exit 2), so a typo cannot run
        nothing and pass. The filters apply before --shard, so the shards of a filtered run cover it.
        input_file: an absolute path is taken as it is; a relative one is looked for under --resources.
        merge: joins the JSON reports of the shards of one run; it fails if a test is missing or run twice.
        encode: MATRIX.json is a list of cases (or {"cases": [...]}), each {"name", "source" (a file, or
        "builtin"), "size" "WxH", "frames", "fps", "pix_fmt", "rc" cqp|cbr|vbr, "qp", "bitrate", "profile",
        "bframes", "keyint", "device" (auto, soft, soft:PERSONA, a DRM node)}. Each case runs 'vtk roundtrip
        --psnr --ssim --json' and records Y/U/V PSNR, SSIM, bit rate, encode fps, bit-rate error and IDR frames.
        With --baseline a case fails when a plane's PSNR drops or the bit rate rises beyond --tolerance, or its
        IDR frames move; the report shows baseline, current value and delta. Speed is shown against the
        baseline but not gated by default: it is wall time, which the machine's load moves by 2x or more (two
        busy cores halve it), while PSNR, bit rate and IDR frames are exact functions of the build. Gate it on
        a quiet, dedicated machine with --tolerance fps=PCT%. Options the encoder or device refuses, and
        options it quietly does less of (bframes on a driver without list-1 references), make that case
        not-supported, with why.
        Exit 1 when a test or case failed, errored or timed out (run, merge, encode); 0 when every one passed
        or was not-supported.
        """

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard let action = parsed.positionals.first else {
            throw CommandFailure(.usage, "vtk suite: run, merge or encode expected\nusage: \(usage)")
        }
        let rest = Array(parsed.positionals.dropFirst())
        let runOnly = ["decoder", "jobs", "shard", "resources", "test", "skip"], encodeOnly = ["baseline", "save-baseline", "tolerance"]
        func refuse(_ keys: [String]) throws(CommandFailure) {
            if let key = keys.first(where: parsed.has) { throw CommandFailure(.usage, "vtk suite \(action): --\(key) is not an option of '\(action)'") }
        }
        switch action {
        case "run":
            try refuse(encodeOnly)
            return try runSuites(rest, parsed)
        case "merge":
            try refuse(runOnly + encodeOnly + ["timeout"])
            guard !rest.isEmpty else { throw CommandFailure(.usage, "vtk suite merge: no REPORT.json given") }
            var reports: [SuiteReport] = []
            for path in rest { reports.append(try SuiteReport.read(path, command: "suite merge")) }
            return try finish(try SuiteReport.merge(reports, command: "suite merge"), parsed, command: "suite merge")
        case "encode":
            try refuse(runOnly)
            return try EncodeMatrixCommand.run(rest, parsed)
        default:
            throw CommandFailure(.usage, "vtk suite: unknown action '\(action)' (run, merge or encode)")
        }
    }

    static func runSuites(_ paths: [String], _ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let command = "suite run"
        let values = OptionValues(parsed: parsed, command: command)
        guard !paths.isEmpty else { throw CommandFailure(.usage, "vtk suite run: no SUITE given\nusage: \(usage)") }
        let jobs = try values.int("jobs", range: 1...256) ?? 1
        let timeout = try values.double("timeout", range: 0.1...86_400) ?? 120
        var decoders = parsed.list("decoder")
        if decoders.isEmpty { decoders = ["vtk:auto"] }
        for spec in decoders { _ = try SuiteDecoder(spec, command: command) }
        if let twice = decoders.first(where: { d in decoders.filter { $0 == d }.count > 1 }) {
            throw CommandFailure(.usage, "vtk suite run: --decoder \(twice) given twice")
        }
        var shard: (index: Int, count: Int)?
        if let text = parsed["shard"] {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else {
                throw CommandFailure(.usage, "vtk suite run: --shard must be I/N with 1 <= I <= N, e.g. 2/4, not '\(text)'")
            }
            shard = (i, n)
        }
        var suites: [TestSuite] = []
        for path in paths { suites.append(try TestSuite.load(path, resources: parsed["resources"], command: command)) }
        var items = suites.flatMap { suite in suite.vectors.map { SuiteRunner.Item(suite: suite, vector: $0) } }
        let keys = items.map(\.key)
        if let twice = keys.first(where: { k in keys.filter { $0 == k }.count > 1 }) {
            throw CommandFailure(.input, "vtk suite run: test \(twice) is listed twice")
        }
        items = try SuiteRunner.filter(items, tests: parsed.list("test"), skip: parsed.list("skip"), command: command)
        let suiteTests = items.count
        if let shard { items = SuiteRunner.shard(items, index: shard.index, count: shard.count) }
        let quiet = parsed.has("quiet")
        let width = decoders.map(\.count).max() ?? 0
        let results = try SuiteRunner.run(items, decoders: decoders, jobs: jobs, timeout: timeout) { result, done, total in
            guard !quiet else { return }
            StandardStreams.error("[\(done)/\(total)] \(result.decoder.padding(width + 1))\(SuiteReport.word(result.status).padding(8))"
                                  + "\(String(format2: result.seconds).padding(7))\(result.test)\n")
        }
        let report = SuiteReport(suite: suites.map(\.name).joined(separator: ", "), decoders: decoders,
                                 shard: shard.map { "\($0.index)/\($0.count)" }, suiteTests: suiteTests, results: results)
        return try finish(report, parsed, command: command)
    }

    /// Prints the table, writes the files asked for; exit 1 when something failed.
    static func finish(_ report: SuiteReport, _ parsed: ParsedArguments, command: String) throws(CommandFailure) -> ExitCode {
        // A report written to standard output (`--json -`) keeps it clean: the table goes to standard error.
        if ["json", "junit", "markdown"].contains(where: { parsed[$0] == "-" }) { StandardStreams.error(report.table) } else { StandardStreams.out(report.table) }
        if let path = parsed["json"] { try OutputFile(path, command: command).write(Array((report.json.text + "\n").utf8)) }
        if let path = parsed["junit"] { try OutputFile(path, command: command).write(Array(report.junit.utf8)) }
        if let path = parsed["markdown"] { try OutputFile(path, command: command).write(Array(report.markdown.utf8)) }
        return report.failed ? .thresholdNotMet : .success
    }
}
