import Foundation
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// docs/ci: the GitLab and GitHub Actions examples are documentation no CI server here can run, so this
/// reads them: the keys CI needs are there, and every `vtk suite` command line in them parses with the
/// real option table, with the shard numbers the CI system will fill in.
@Suite("CI examples in docs/ci")
struct CIExampleTests {
    static let directory = TestPaths.packageRoot.appendingPathComponent("docs/ci")

    static func load(_ name: String) throws -> MiniYAML {
        try MiniYAML.parse(String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
    }

    /// Words of a shell command line (double and single quotes; no other shell syntax is used).
    static func words(_ line: String) -> [String] {
        var words: [String] = [], current = "", quote: Character?, inWord = false
        for c in line {
            if let q = quote { if c == q { quote = nil } else { current.append(c) }; continue }
            if c == "\"" || c == "'" { quote = c; inWord = true; continue }
            if c == " " { if inWord { words.append(current) }; current = ""; inWord = false; continue }
            current.append(c)
            inWord = true
        }
        if inWord { words.append(current) }
        return words
    }

    /// Parses `... vtk suite ACTION ...` as vtk would; returns the action and its parsed arguments.
    static func parseSuite(_ line: String) throws -> (action: String, parsed: ParsedArguments) {
        let all = words(line)
        let start = try #require(all.firstIndex { $0 == "vtk" || $0.hasSuffix("/vtk") }, "no vtk in \(line)")
        #expect(all[start + 1] == "suite", "\(line)")
        let parsed = try ArgumentParser.parse(Array(all[(start + 2)...]), options: SuiteCommand.options, command: "suite")
        let action = try #require(parsed.positionals.first)
        #expect(["run", "merge", "encode"].contains(action), "\(line)")
        for decoder in parsed.list("decoder") { _ = try SuiteDecoder(decoder, command: "suite run") }
        if let shard = parsed["shard"] {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            #expect(parts.count == 2 && (1...parts[1]).contains(parts[0]), "--shard \(shard)")
        }
        if action == "encode" { _ = try EncodeTolerances(parsed.list("tolerance"), command: "suite encode") }
        return (action, parsed)
    }

    static func scriptLines(_ job: MiniYAML?) -> [String] { (job?["script"]?.items ?? []).compactMap(\.string) }

    @Test("GitLab: parallel: 4 shards by CI_NODE_INDEX/CI_NODE_TOTAL, a merge job over their reports, JUnit artifacts")
    func gitlab() throws {
        let yaml = try Self.load(".gitlab-ci.yml")
        let variables = try #require(yaml["variables"])
        let conformance = try #require(yaml["conformance"])
        let parallel = try #require(Int(conformance["parallel"]?.string ?? ""))
        #expect(parallel == 4)
        let runLine = try #require(Self.scriptLines(conformance).first { $0.contains("vtk suite run") })
        #expect(runLine.contains("--shard \"${CI_NODE_INDEX}/${CI_NODE_TOTAL}\""))
        let shardPatterns = (conformance["artifacts"]?["paths"]?.items ?? []).compactMap(\.string)
        var shardReports: [String] = []
        for node in 1...parallel {
            // What GitLab runs in job `node` of `parallel`.
            var line = runLine.replacingOccurrences(of: "${CI_NODE_INDEX}", with: "\(node)").replacingOccurrences(of: "${CI_NODE_TOTAL}", with: "\(parallel)")
            for key in variables.keys { line = line.replacingOccurrences(of: "$\(key)", with: variables[key]?.string ?? "") }
            let (action, parsed) = try Self.parseSuite(line)
            #expect(action == "run")
            #expect(parsed["shard"] == "\(node)/\(parallel)")
            #expect(parsed.list("decoder").count >= 2)
            let json = try #require(parsed["json"]), junit = try #require(parsed["junit"])
            #expect(shardPatterns.contains { fnmatch($0, json, 0) == 0 } && shardPatterns.contains { fnmatch($0, junit, 0) == 0 },
                    "\(json) and \(junit) are kept as artifacts")
            shardReports.append(json)
        }
        #expect(Set(shardReports).count == parallel, "each shard writes its own report")

        let merge = try #require(yaml["merge"])
        #expect(merge["needs"]?.items.compactMap(\.string) == ["conformance"])
        #expect(merge["when"]?.string == "always", "the merge runs when a shard failed")
        let mergeLine = try #require(Self.scriptLines(merge).first { $0.contains("vtk suite merge") })
        let (action, parsed) = try Self.parseSuite(mergeLine)
        #expect(action == "merge")
        let inputs = Array(parsed.positionals.dropFirst())
        for report in shardReports { #expect(inputs.contains { fnmatch($0, report, 0) == 0 }, "merge reads \(report)") }
        #expect(merge["artifacts"]?["reports"]?["junit"]?.string == parsed["junit"])

        let encode = try #require(yaml["encode-regression"])
        let encodeLine = try #require(Self.scriptLines(encode).first { $0.contains("vtk suite encode") })
        let encodeParsed = try Self.parseSuite(encodeLine).parsed
        #expect(encodeParsed["baseline"] != nil)
        #expect(encode["artifacts"]?["reports"]?["junit"]?.string == encodeParsed["junit"])
        // The matrix it names is the example beside it, and vtk reads it.
        let matrix = try #require(encodeParsed.positionals.dropFirst().first)
        let cases = try EncodeCase.load(TestPaths.packageRoot.appendingPathComponent(matrix).path, command: "suite encode")
        #expect(cases.count == 6)
    }

    @Test("GitHub Actions: a matrix over devices and shards, every device a valid vtk decoder, a merge job over the artifacts")
    func github() throws {
        let yaml = try Self.load("github-actions.yml")
        #expect(yaml["on"] != nil && yaml["name"] != nil)
        let jobs = try #require(yaml["jobs"])
        let conformance = try #require(jobs["conformance"])
        let matrix = try #require(conformance["strategy"]?["matrix"])
        let devices = matrix["device"]?.items.compactMap(\.string) ?? []
        let shards = matrix["shard"]?.items.compactMap { $0.string.flatMap(Int.init) } ?? []
        #expect(devices.count >= 2)
        #expect(shards == Array(1...shards.count) && !shards.isEmpty)
        let steps = conformance["steps"]?.items ?? []
        let runLine = try #require(steps.compactMap { $0["run"]?.string }.first { $0.contains("vtk suite run") })
        var reports: [String] = []
        for (index, (device, shard)) in devices.flatMap({ d in shards.map { (d, $0) } }).enumerated() {
            let line = runLine.replacingOccurrences(of: "${{ matrix.device }}", with: device).replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
                .replacingOccurrences(of: "${{ strategy.job-index }}", with: "\(index)")
            let (action, parsed) = try Self.parseSuite(line)
            #expect(action == "run")
            #expect(parsed.list("decoder").contains("vtk:\(device)"))
            #expect(parsed["shard"] == "\(shard)/\(shards.count)")
            reports.append(try #require(parsed["json"]))
        }
        #expect(Set(reports).count == reports.count, "every job writes its own report")
        let upload = try #require(steps.first { $0["uses"]?.string?.hasPrefix("actions/upload-artifact") == true })
        let uploaded = (upload["with"]?["path"]?.string ?? "").split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
        for report in reports { #expect(uploaded.contains { fnmatch($0, report, 0) == 0 }, "\(report) is uploaded") }

        let merge = try #require(jobs["merge"])
        #expect(merge["needs"]?.string == "conformance")
        #expect(merge["if"]?.string == "always()")
        let mergeLine = try #require((merge["steps"]?.items ?? []).compactMap { $0["run"]?.string }.first { $0.contains("vtk suite merge") })
        let (action, parsed) = try Self.parseSuite(mergeLine)
        #expect(action == "merge")
        for report in reports { #expect(parsed.positionals.dropFirst().contains { fnmatch($0, report, 0) == 0 }) }
    }

    @Test("PyYAML, where installed, reads the examples the same way", .enabled(if: ProcessRunner.which("python3") != nil, "python3 is not installed"))
    func pyyamlAgrees() throws {
        let script = """
            import json, sys
            try:
                import yaml
            except ImportError:
                print("no-yaml"); sys.exit(0)
            g = yaml.safe_load(open(sys.argv[1])); h = yaml.safe_load(open(sys.argv[2]))
            print(json.dumps([g["conformance"]["parallel"], g["merge"]["needs"], g["merge"]["artifacts"]["reports"]["junit"],
                              h["jobs"]["conformance"]["strategy"]["matrix"]["device"], h["jobs"]["conformance"]["strategy"]["matrix"]["shard"]]))
            """
        let result = try ProcessRunner.run("python3", ["-c", script, Self.directory.appendingPathComponent(".gitlab-ci.yml").path,
                                                       Self.directory.appendingPathComponent("github-actions.yml").path])
        #expect(result.status == 0, "\(result.stderrText)")
        if result.stdoutText.hasPrefix("no-yaml") { return }
        let theirs = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [Any])
        let gitlab = try Self.load(".gitlab-ci.yml"), github = try Self.load("github-actions.yml")
        let matrix = github["jobs"]?["conformance"]?["strategy"]?["matrix"]
        #expect(theirs[0] as? Int == Int(gitlab["conformance"]?["parallel"]?.string ?? ""))
        #expect(theirs[1] as? [String] == gitlab["merge"]?["needs"]?.items.compactMap(\.string))
        #expect(theirs[2] as? String == gitlab["merge"]?["artifacts"]?["reports"]?["junit"]?.string)
        #expect(theirs[3] as? [String] == matrix?["device"]?.items.compactMap(\.string))
        #expect((theirs[4] as? [Int])?.map(String.init) == matrix?["shard"]?.items.compactMap(\.string))
    }

    @Test("the YAML reader refuses what it cannot read")
    func miniYAMLErrors() throws {
        #expect(throws: MiniYAML.ParseError.self) { try MiniYAML.parse("a: [1, 2\n") }
        #expect(throws: MiniYAML.ParseError.self) { try MiniYAML.parse("a: 1\na: 2\n") }
        #expect(throws: MiniYAML.ParseError.self) { try MiniYAML.parse("a:\n  b: 1\n c: 2\n") }
        let ok = try MiniYAML.parse("a: # c\n  - x\n  - {k: v}\n  - y: 1\n    z: 'q # not a comment'\nb: |\n  one\n  two\n")
        #expect(ok["a"]?.items.count == 3)
        #expect(ok["a"]?.items[1]["k"]?.string == "v")
        #expect(ok["a"]?.items[2]["z"]?.string == "q # not a comment")
        #expect(ok["b"]?.string == "one\ntwo")
    }
}
