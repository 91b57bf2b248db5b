import Foundation

/// One row of ../shared/conformance/h265/reference.tsv (same layout as the H.264 one).
public struct H265ConformanceStream: Sendable, CustomStringConvertible {
    public let file: String
    public let profile: String
    public let width: Int
    public let height: Int
    public let frames: Int
    public let md5: String
    public let url: URL

    public var description: String { file }

    /// All rows; empty when ../shared is absent.
    public static let all: [H265ConformanceStream] = {
        guard let shared = TestPaths.shared else { return [] }
        let dir = shared.appendingPathComponent("conformance/h265")
        guard let text = try? String(contentsOf: dir.appendingPathComponent("reference.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 6, let w = Int(f[2]), let h = Int(f[3]), let n = Int(f[4]) else { return nil }
            return H265ConformanceStream(file: f[0], profile: f[1], width: w, height: h, frames: n, md5: f[5], url: dir.appendingPathComponent(f[0]))
        }
    }()

    /// Stands in for the stream list when ../shared is absent, so parameterized tests still run (and skip).
    public static let absent = "<../shared absent>"
    public static let names: [String] = all.isEmpty ? [absent] : all.map(\.file)

    /// The row named `name`; cancels the test loudly when ../shared is absent.
    public static func named(_ name: String) -> H265ConformanceStream? { all.first { $0.file == name } }

    /// Per-frame MD5s from framemd5/<file>.tsv, in display order.
    public var frameMD5s: [String] {
        let url = url.deletingLastPathComponent().appendingPathComponent("framemd5/\(file).tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t")
            return f.count >= 2 && Int(f[0]) != nil ? String(f[1]) : nil
        }
    }
}
