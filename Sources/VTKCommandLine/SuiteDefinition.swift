#if canImport(Glibc)
import Glibc
#endif
import JSONText
import VTKMedia

/// One test of a decode conformance suite: a stream and the MD5 of its decoded frames.
struct SuiteTestVector: Sendable {
    let name: String
    /// The stream's path; may not exist (the test is then an error, the rest still run).
    let input: String
    /// FFmpeg pixel format name of the reference output (fluster's `output_format`), e.g. yuv420p.
    let outputFormat: String
    /// MD5 of all frames, planar, cropped, display order (fluster's `result`); empty when the suite has none
    /// (fluster's `test_method: pixel` suites), and the test is then not-supported.
    let md5: String
    /// Per-frame MD5s when the suite has them (framemd5/<file>.tsv beside the stream), to name the first bad frame.
    let frameMD5s: [String]?
}

/// A decode conformance suite: fluster's test-suite JSON, or a vtk `reference.tsv` folder.
struct TestSuite: Sendable {
    let name: String
    /// "H.264" or "H.265" (fluster's spelling).
    let codec: String
    let vectors: [SuiteTestVector]

    /// Reads SUITE: a directory holding reference.tsv, or a fluster JSON file. `resources` is where
    /// fluster's streams are (default: beside the JSON), as DIR/SUITE/VECTOR/FILE, DIR/VECTOR/FILE or DIR/FILE.
    static func load(_ path: String, resources: String?, command: String) throws(CommandFailure) -> TestSuite {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CommandFailure(.input, "vtk \(command): suite '\(path)' does not exist")
        }
        return status.st_mode & S_IFMT == S_IFDIR ? try referenceFolder(path, command: command)
            : try fluster(path, resources: resources, command: command)
    }

    /// A vtk reference folder: reference.tsv (file, profile, width, height, frames, md5_i420) and framemd5/.
    static func referenceFolder(_ directory: String, command: String) throws(CommandFailure) -> TestSuite {
        let folderPath = PathName.standardized(directory)
        let table = PathName.appending(folderPath, "reference.tsv")
        guard let text = FileBytes.text(path: table) else {
            throw CommandFailure(.input, "vtk \(command): \(directory) has no readable reference.tsv")
        }
        var vectors: [SuiteTestVector] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where number > 0 && !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, fields[5].count == 32 else {
                throw CommandFailure(.input, "vtk \(command): \(table) line \(number + 1): expected 6 tab-separated fields ending in an MD5")
            }
            let input = PathName.appending(folderPath, fields[0])
            // The MD5 is of the decoder's own bit depth: 16-bit little-endian samples for 10-bit profiles (Main 10, High 10).
            let format = fields[1].contains("10") ? "yuv420p10le" : "yuv420p"
            vectors.append(SuiteTestVector(name: fields[0], input: input, outputFormat: format, md5: fields[5].lowercased(),
                                           frameMD5s: frameMD5s(besides: input)))
        }
        let folder = PathName.lastComponent(folderPath)
        let codec = folder.contains("265") || folder.contains("hevc") ? "H.265" : "H.264"
        return TestSuite(name: "\(PathName.lastComponent(PathName.parent(folderPath)))/\(folder)", codec: codec, vectors: vectors)
    }

    /// fluster's test-suite JSON: name, codec, test_vectors[] with name, input_file, output_format, result.
    static func fluster(_ path: String, resources: String?, command: String) throws(CommandFailure) -> TestSuite {
        let fail = { (why: String) in CommandFailure(.input, "vtk \(command): \(path): \(why)") }
        guard let data = FileBytes.read(path: path) else { throw fail("cannot read the file") }
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw fail("not JSON: \(error)") }
        guard let name = root["name"]?.stringValue else {
            throw fail("not a fluster test suite (no \"name\")")
        }
        guard let list = root["test_vectors"]?.objectsValue else { throw fail("not a fluster test suite (no \"test_vectors\" list)") }
        let base = resources.map(PathName.absolute) ?? PathName.parent(PathName.absolute(path))
        var vectors: [SuiteTestVector] = []
        for (index, entry) in list.enumerated() {
            guard let vectorName = entry["name"]?.stringValue, let file = entry["input_file"]?.stringValue,
                  let md5 = entry["result"]?.stringValue else {
                throw fail("test_vectors[\(index)] needs \"name\", \"input_file\" and \"result\"")
            }
            // An absolute input_file is the stream itself (vtk-bench writes such suites); a relative one is
            // looked for under the resources as fluster lays them out.
            let candidates = file.hasPrefix("/") ? [file]
                : [PathName.appending(PathName.appending(PathName.appending(base, name), vectorName), file),
                   PathName.appending(PathName.appending(base, vectorName), file),
                   PathName.appending(base, file)]
            let input = candidates.first { access($0, F_OK) == 0 } ?? candidates[0]
            vectors.append(SuiteTestVector(name: vectorName, input: input, outputFormat: entry["output_format"]?.stringValue ?? "yuv420p",
                                           md5: md5.lowercased(), frameMD5s: frameMD5s(besides: input)))
        }
        return TestSuite(name: name, codec: root["codec"]?.stringValue ?? "H.264", vectors: vectors)
    }

    /// framemd5/<file>.tsv beside a stream: lines of "index<TAB>md5".
    static func frameMD5s(besides input: String) -> [String]? {
        let stream = PathName.absolute(input)
        let table = PathName.appending(PathName.parent(stream), "framemd5/\(PathName.lastComponent(stream)).tsv")
        guard let text = FileBytes.text(path: table) else { return nil }
        let md5s = text.split(separator: "\n").compactMap { line -> String? in
            let f = line.split(separator: "\t")
            return f.count >= 2 && Int(f[0]) != nil ? String(f[1]) : nil
        }
        return md5s.isEmpty ? nil : md5s
    }
}
