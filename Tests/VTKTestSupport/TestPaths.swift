import Foundation

/// Where the tests find the package, ../shared and scratch space.
public enum TestPaths {
    /// The package root (this file is Tests/VTKTestSupport/TestPaths.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the checkout (or $VTK_SHARED), when present.
    public static let shared: URL? = {
        let candidate = ProcessInfo.processInfo.environment["VTK_SHARED"].map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("conformance/h264/reference.tsv").path)
            ? candidate.standardizedFileURL : nil
    }()

    /// The message a test records when it skips for lack of ../shared.
    public static let sharedMissingMessage = "../shared/conformance is absent: skipping the checks on the conformance streams"

    /// A scratch directory for this test process, removed by the OS's tmp cleaning.
    public static let scratch: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}

/// One row of a ../shared/conformance/<codec>/reference.tsv (H.264's by default; H.265's: ``H265ConformanceStream``).
public struct ConformanceStream: Sendable, CustomStringConvertible {
    public let file: String
    public let profile: String
    public let width: Int
    public let height: Int
    public let frames: Int
    public let md5: String
    public let url: URL

    public var description: String { file }

    /// All rows of the H.264 reference.tsv; empty when ../shared is absent.
    public static let all = rows(of: "h264")

    /// All rows of ../shared/conformance/`folder`/reference.tsv; empty when ../shared is absent.
    public static func rows(of folder: String) -> [ConformanceStream] {
        guard let shared = TestPaths.shared else { return [] }
        let dir = shared.appendingPathComponent("conformance/\(folder)")
        guard let text = try? String(contentsOf: dir.appendingPathComponent("reference.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 6, let w = Int(f[2]), let h = Int(f[3]), let n = Int(f[4]) else { return nil }
            return ConformanceStream(file: f[0], profile: f[1], width: w, height: h, frames: n, md5: f[5],
                                     url: dir.appendingPathComponent(f[0]))
        }
    }

    /// Per-frame MD5s from framemd5/<file>.tsv, in display order.
    public var frameMD5s: [String] {
        let url = url.deletingLastPathComponent().appendingPathComponent("framemd5/\(file).tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t")
            return f.count >= 2 && Int(f[0]) != nil ? String(f[1]) : nil
        }
    }

    /// The damaged streams of ../shared/conformance/h264-robustness.
    public static let robustness: [URL] = {
        guard let shared = TestPaths.shared else { return [] }
        let dir = shared.appendingPathComponent("conformance/h264-robustness")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.map { dir.appendingPathComponent($0) }
    }()
}
