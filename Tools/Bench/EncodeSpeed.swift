import Foundation
import VTKTestSupport

/// The encode-speed row: 720p CQP through vtk on vtksoft's native engine (the VA path), beside openh264
/// direct and x264 ultrafast, every process pinned to one core (`taskset`) and single-threaded; then vtk
/// again on every core (the engine's macroblock-row wavefront), reported apart: the one-core rows are the comparison.
/// Frames per second and peak RSS of each whole process, and both as ratios to vtk (issue #14: ≥ 30 fps, goal 60).
struct EncodeSpeedInput {
    let vtk: String
    let ffmpeg: String
    /// codec-floor, whose `--openh264-encode` runs openh264 directly.
    let bench: String
    /// The 300 decoded frames of VID_1280x720_cavlc_temporal_direct.264, as NV12 (vtk, x264) and I420 (openh264).
    let nv12: String
    let i420: String
    let output: String
    let width: Int, height: Int, frames: Int, keyint: Int, qp: Int
}

struct EncodeSpeedRow {
    let row: Row
    let frames: Int
    var fps: [Double] { row.wallSeconds.map { Double(frames) / $0 } }
    /// Frames per CPU second (user + system): what one core of its own would give, on a shared machine.
    var cpuFPS: [Double] { row.cpuSeconds.map { Double(frames) / $0 } }
}

/// nil (after saying so loudly) when the 720p input or `taskset` is missing.
func encodeSpeedRows(_ input: EncodeSpeedInput) throws -> [EncodeSpeedRow]? {
    guard FileManager.default.fileExists(atPath: input.nv12), FileManager.default.fileExists(atPath: input.i420) else {
        note("SKIPPED the encode-speed row: no raw input (made from VID_1280x720_cavlc_temporal_direct.264 in ../shared/conformance/h264)")
        return nil
    }
    guard let taskset = ProcessRunner.which("taskset") else {
        note("SKIPPED the encode-speed row: no taskset (util-linux) to hold each encoder to one core")
        return nil
    }
    // The last CPU: one core for each process in turn.
    let core = ["-c", "\(max(0, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1))"]
    let size = "\(input.width)x\(input.height)"
    let rows = try compare("encode speed \(input.width)x\(input.height) CQP \(input.qp), one core (the last row: every core)", [
        command("vtk (native engine)", taskset, core + [input.vtk, "encode", input.nv12, "--size", size, "--pix-fmt", "nv12",
                                                         "--keyint", "\(input.keyint)", "--qp", "\(input.qp)", "-o", input.output, "-q"],
                environment: ["VTKSOFT_ENCODER": "native"]),
        command("openh264 direct", taskset, core + [input.bench, "--openh264-encode", input.i420, "\(input.width)", "\(input.height)",
                                                     "\(input.frames)", "qp=\(input.qp)", "\(input.keyint)", input.output]),
        command("x264 ultrafast", taskset, core + [input.ffmpeg, "-nostdin", "-v", "error", "-y", "-threads", "1", "-f", "rawvideo",
                                                    "-pix_fmt", "nv12", "-s", size, "-r", "30", "-i", input.nv12, "-c:v", "libx264",
                                                    "-preset", "ultrafast", "-threads", "1", "-bf", "0", "-g", "\(input.keyint)",
                                                    "-qp", "\(input.qp)", "-f", "h264", input.output]),
        command("vtk (native engine), every core", input.vtk, ["encode", input.nv12, "--size", size, "--pix-fmt", "nv12",
                                                               "--keyint", "\(input.keyint)", "--qp", "\(input.qp)", "-o", input.output, "-q"],
                environment: ["VTKSOFT_ENCODER": "native"]),
    ])
    return rows.map { EncodeSpeedRow(row: $0, frames: input.frames) }
}

/// Markdown: fps and peak RSS side by side, each also as a ratio to vtk's in the same repetition.
func encodeSpeedTable(_ rows: [EncodeSpeedRow]?) -> String {
    guard let rows, let vtkRow = rows.first else {
        return "\n### Encode speed on one core (taskset)\n\nSKIPPED: no raw input or no taskset (see the log).\n"
    }
    var out = "\n### Encode speed: \(vtkRow.row.group), \(vtkRow.frames) frames, no B-frames\n\n"
    out += "| encoder: command | fps (wall), median (min–max) | fps ÷ vtk's | fps per CPU second | ÷ vtk's | peak RSS MiB | RSS ÷ vtk's |\n"
        + "|---|---:|---:|---:|---:|---:|---:|\n"
    let vtkRSS = vtkRow.row.peakRSSMiB.max() ?? .nan
    let fps1 = { (x: Double) in String(format: "%.1f", x) }
    for speed in rows {
        let rss = speed.row.peakRSSMiB.max() ?? .nan
        let cpuRatios = zip(speed.cpuFPS, vtkRow.cpuFPS).map { $0 / $1 }
        out += "| \(speed.row.name): `\(speed.row.command)` | \(range(speed.fps, fps1)) | \(range(speed.row.ratioToReference.map { 1 / $0 }, f2)) | "
            + "\(range(speed.cpuFPS, fps1)) | \(range(cpuRatios, f2)) | \(String(format: "%.0f", rss)) | \(f2(rss / vtkRSS)) |\n"
    }
    return out
}

/// Rows of the targets table: the issue's floor and goal for vtk's fps.
func encodeSpeedTargets(_ rows: [EncodeSpeedRow]) -> String {
    guard let vtkRow = rows.first else { return "" }
    let fps = median(vtkRow.fps), shown = range(vtkRow.fps, { String(format: "%.1f", $0) })
    let cpu = String(format: "%.1f", median(vtkRow.cpuFPS))
    return "| encode 720p CQP, vtk on the native engine, one core: ≥ 30 fps (per CPU second: \(cpu)) | \(shown) | \(fps >= 30 ? "yes" : "no") |\n"
        + "| … goal ≥ 60 fps | \(shown) | \(fps >= 60 ? "yes" : "no") |\n"
}
