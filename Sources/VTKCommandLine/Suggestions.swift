/// "Did you mean ...?" for mistyped commands, options and values, and the vtk spelling of ffmpeg's.
enum Suggestions {
    /// ffmpeg's option names and the vtk option that does the same.
    static let ffmpegOptions: [String: String] = [
        "-s": "--size", "-video_size": "--size", "-r": "--fps", "-framerate": "--fps", "-g": "--keyint", "-b": "--bitrate",
        "-b:v": "--bitrate", "-pix_fmt": "--pix-fmt", "--pix_fmt": "--pix-fmt", "-qp": "--qp", "-crf": "--qp",
        "-profile": "--profile", "-profile:v": "--profile", "-frames": "--frames", "-vframes": "--frames", "-frames:v": "--frames",
        "-y": "(nothing: vtk always overwrites the output)", "-i": "(nothing: INPUT is given without -i)",
    ]

    /// ffmpeg's value names and vtk's.
    static let ffmpegValues: [String: String] = [
        "yuv420p": "i420", "yuvj420p": "i420", "baseline": "constrained-baseline", "constrained_baseline": "constrained-baseline",
        "high10": "high (8-bit only)", "cqp": "--qp N", "crf": "--qp N",
    ]

    /// The hint for an unknown option `name` among `known` names: ffmpeg's spelling, else the nearest name.
    static func option(_ name: String, known: [String]) -> String? {
        if let vtk = ffmpegOptions[name] {
            return vtk.hasPrefix("(") ? "ffmpeg's \(name) needs \(vtk)" : "did you mean \(vtk)? (ffmpeg's \(name))"
        }
        return nearest(name, among: known).map { "did you mean \($0)?" }
    }

    /// The hint for value `text` outside `choices`.
    static func value(_ text: String, choices: [String]) -> String? {
        if let vtk = ffmpegValues[text.lowercased()] { return "did you mean \(vtk)?" }
        return nearest(text, among: choices).map { "did you mean \($0)?" }
    }

    /// The closest of `candidates` within an edit distance of about a third of the word, if any.
    static func nearest(_ word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, word.count / 3) else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
