import Foundation
import VTKTestSupport

/// Real-time timing of `vtk play` (measured, never tested: it depends on the machine): `frames` (300) frames of
/// 320x240 at 30 fps with B-frames, played under an Xvfb of the bench's own at rate 1 and 2, pull and push,
/// through vaPutSurface (the decoded surface itself, and `va-copy`: the old path that reads each picture back
/// and writes it into a surface of the presenter's) and through XShm, each with `--timing-log`. For every frame
/// shown, its lateness is presented - pts / rate (the log's times count from the start of the timeline); the
/// limit is half a frame period at that rate, past which the display layer drops a frame instead of showing it.
/// The CPU time per frame is the vtk process's (user + system, vtksoft's decoding and vaPutSurface included;
/// the X server's not) over the frames of the stream.
struct PlayTimingRow {
    let rate: Int
    let mode: String
    let present: String
    let frames: Int
    let shown: Int
    let dropped: Int
    /// Milliseconds, over the frames shown.
    let minLateness: Double
    let maxLateness: Double
    let limit: Double
    /// Frames shown more than `limit` from their due time, early or late.
    let exceeded: Int
    /// Milliseconds of CPU (user + system) of the vtk process per frame of the stream.
    let cpuPerFrame: Double
}

let playTimingFPS = 30

/// nil (after saying so loudly) when Xvfb is missing or will not start.
func playTimingRows(vtk: String, ffmpeg: String, work: URL, frames: Int) throws -> [PlayTimingRow]? {
    guard let server = Xvfb.startPrivate() else {
        note("SKIPPED the vtk play timing rows: Xvfb is missing or would not start")
        return nil
    }
    defer { server.stop() }
    let stream = work.appendingPathComponent("play-320x240-30fps.264").path
    _ = try spawn(ffmpeg, ["-nostdin", "-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(playTimingFPS)", "-frames:v", "\(frames)", "-c:v", "libx264",
          "-x264-params", "bframes=3:b-pyramid=normal:keyint=60", "-pix_fmt", "yuv420p", "-f", "h264", stream])
    let log = work.appendingPathComponent("play-timing.jsonl").path
    var rows: [PlayTimingRow] = []
    for present in ["va", "va-copy", "x11"] {
        for mode in ["pull", "push"] {
            for rate in [1, 2] {
                note("vtk play timing: --rate \(rate) --mode \(mode) --present \(present)")
                let run = try spawn(vtk, ["play", stream, "--fps", "\(playTimingFPS)", "--rate", "\(rate)", "--mode", mode, "--present", present,
                                          "--timing-log", log, "-q"], extraEnvironment: ["DISPLAY": server.display])
                rows.append(try playTimingRow(log: log, rate: rate, mode: mode, present: present, frames: frames, cpuSeconds: run.cpu))
            }
        }
    }
    return rows
}

/// One run's row from its timing log ({"frame": N, "pts": seconds, "presented": seconds or null}).
private func playTimingRow(log: String, rate: Int, mode: String, present: String, frames: Int, cpuSeconds: Double) throws -> PlayTimingRow {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    var lateness: [Double] = []
    var dropped = 0
    for line in text.split(separator: "\n") {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], let pts = fields["pts"] as? Double else {
            throw BenchFailure("vtk play timing: a log line that does not parse: \(line)")
        }
        if let presented = fields["presented"] as? Double { lateness.append((presented - pts / Double(rate)) * 1000) } else { dropped += 1 }
    }
    let limit = 1000 / Double(playTimingFPS) / Double(rate) / 2
    return PlayTimingRow(rate: rate, mode: mode, present: present, frames: frames, shown: lateness.count, dropped: dropped,
                         minLateness: lateness.min() ?? .nan, maxLateness: lateness.max() ?? .nan, limit: limit,
                         exceeded: lateness.filter { abs($0) > limit }.count, cpuPerFrame: cpuSeconds * 1000 / Double(frames))
}

func playTimingTable(_ rows: [PlayTimingRow]?) -> String {
    guard let rows, let frames = rows.first?.frames else { return "" }
    var out = "\n### `vtk play` in real time: \(frames) frames of 320x240 at \(playTimingFPS) fps (libx264, B-frames), release build, own Xvfb\n\n"
    out += "Lateness is presented - pts / rate over the frames shown; the limit is half a frame period at that rate. CPU is the vtk "
        + "process's user + system time (vtksoft's decoding and vaPutSurface included) per frame of the stream; `va-copy` is the old VA path "
        + "(each picture read back to the CPU and written into a surface of the presenter's), `va` presents the decoded surface itself.\n\n"
    out += "| --present | --mode | --rate | shown | dropped | lateness min ms | max ms | limit ms | over the limit | CPU ms/frame |\n"
    out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for row in rows {
        out += "| \(row.present) | \(row.mode) | \(row.rate) | \(row.shown) | \(row.dropped) | \(f2(row.minLateness)) | \(f2(row.maxLateness)) | "
            + "\(f2(row.limit)) | \(row.exceeded) | \(f3(row.cpuPerFrame)) |\n"
    }
    // The row the comparison is for: CPU per frame through vaPutSurface, copy path against the surface itself.
    let copied = rows.filter { $0.present == "va-copy" }.map(\.cpuPerFrame), direct = rows.filter { $0.present == "va" }.map(\.cpuPerFrame)
    if !copied.isEmpty, copied.count == direct.count {
        let before = copied.reduce(0, +) / Double(copied.count), after = direct.reduce(0, +) / Double(direct.count)
        out += "\n| vaPutSurface path | CPU ms/frame (mean of \(copied.count) runs) |\n|---|---:|\n"
        out += "| before: read back + write (`--present va-copy`) | \(f3(before)) |\n| after: the decoded surface (`--present va`) | \(f3(after)) |\n"
        out += "| after / before | \(f2(after / before)) |\n"
    }
    return out
}
