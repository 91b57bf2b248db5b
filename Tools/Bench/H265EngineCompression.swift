import BenchSupport
import Foundation
import VTKTestSupport

/// The H.265 row: vtksoft's own HEVC engine (h265-engine-bench, in-process, no VA) beside x265 ultrafast and
/// veryfast, every process on one core and single-threaded, at 720p CQP without B-frames. Speed is frames per
/// CPU second of each whole process (issue #29: floor 15); compression is the BD-rate (Y-PSNR, 4 QPs) of the
/// engine against each x265 preset (goal: within +10 % of ultrafast).
struct H265EngineInput {
    /// h265-engine-bench, built beside vtk-bench.
    let engine: String
    let ffmpeg: String
    /// Raw I420 frames of the 720p input.
    let i420: String
    let work: URL
    let width: Int, height: Int, frames: Int
    let qps: [Int]
}

/// One encoder at one QP: kbit/s (30 fps) and Y-PSNR of FFmpeg's decode against the source.

func h265EngineSection(_ input: H265EngineInput) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: input.engine) else {
        throw BenchFailure("no h265-engine-bench beside vtk-bench (\(input.engine)); build with swift build -c release")
    }
    guard FileManager.default.fileExists(atPath: input.i420) else { throw BenchFailure("no raw input \(input.i420)") }
    let size = "\(input.width)x\(input.height)"
    let taskset = ProcessRunner.which("taskset")
    let core = ["-c", "\(max(0, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1))"]
    func pinned(_ name: String, _ tool: String, _ arguments: [String]) -> Command {
        taskset.map { command(name, $0, core + [tool] + arguments) } ?? command(name, tool, arguments)
    }
    func commands(qp: Int) -> [(name: String, output: String, command: Command)] {
        let engineOut = input.work.appendingPathComponent("h265-engine-\(qp).265").path
        var list = [("vtksoft H.265 engine", engineOut,
                     pinned("vtksoft H.265 engine", input.engine, ["--yuv", input.i420, "--size", size, "--frames", "\(input.frames)",
                                                                   "--qp", "\(qp)", "--output", engineOut]))]
        for preset in ["ultrafast", "veryfast"] {
            let out = input.work.appendingPathComponent("x265-\(preset)-\(qp).265").path
            list.append(("x265 \(preset)", out,
                         pinned("x265 \(preset)", input.ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size,
                                                                 "-r", "30", "-i", input.i420, "-frames:v", "\(input.frames)", "-c:v", "libx265",
                                                                 "-preset", preset, "-x265-params",
                                                                 "qp=\(qp):bframes=0:pools=1:frame-threads=1:log-level=error", "-f", "hevc", out])))
        }
        return list
    }
    // Speed at the middle QP, rotated repetitions.
    let middle = input.qps[input.qps.count / 2]
    let speed = try compare("H.265 encode \(size) CQP \(middle), one core", commands(qp: middle).map(\.command))
    var out = "\n### H.265: vtksoft's engine beside x265, \(size), \(input.frames) frames, CQP, no B-frames, one core\n\n"
    out += "| encoder | frames per CPU second, median (min–max) | ÷ engine's |\n|---|---:|---:|\n"
    let engineCPU = median(speed[0].cpuSeconds)
    for row in speed {
        let fps = row.cpuSeconds.map { Double(input.frames) / $0 }
        out += String(format: "| %@ | %.2f (%.2f–%.2f) | %.2f |\n", row.name, median(fps), fps.min() ?? 0, fps.max() ?? 0, engineCPU / median(row.cpuSeconds))
    }
    // Rate and distortion at every QP.
    var points: [String: [RatePoint]] = [:]
    var names: [String] = []
    for qp in input.qps {
        for entry in commands(qp: qp) {
            if qp != middle { _ = try entry.command.run() }
            if !names.contains(entry.name) { names.append(entry.name) }
            points[entry.name, default: []].append(try ratePoint(entry.output, input: input))
        }
    }
    out += "\n| encoder | " + input.qps.map { "QP \($0): kbit/s, Y-PSNR" }.joined(separator: " | ") + " |\n|---|" + input.qps.map { _ in "---:|" }.joined() + "\n"
    for name in names {
        out += "| \(name) | " + (points[name] ?? []).map { String(format: "%.0f, %.2f dB", $0.rate, $0.psnr) }.joined(separator: " | ") + " |\n"
    }
    if let engine = points[names[0]] {
        out += "\n| BD-rate of the engine (Y-PSNR) | against |\n|---:|---|\n"
        for name in names.dropFirst() {
            let rate = BjontegaardDelta.rate(reference: points[name] ?? [], test: engine) ?? .nan
            out += String(format: "| %+.1f %% | %@ |\n", rate, name)
        }
        let floor = Double(input.frames) / engineCPU
        out += String(format: "\nFloor ≥ 15 frames per CPU second: %.2f, %@.\n", floor, floor >= 15 ? "met" : "NOT met")
    }
    return out
}

/// kbit/s at 30 fps and the Y-PSNR of FFmpeg's decode of `stream` against the raw input.
func ratePoint(_ stream: String, input: H265EngineInput) throws -> RatePoint {
    let bytes = (try FileManager.default.attributesOfItem(atPath: stream)[.size] as? NSNumber)?.intValue ?? 0
    let decoded = input.work.appendingPathComponent("h265-decoded.yuv").path
    defer { try? FileManager.default.removeItem(atPath: decoded) }
    let d = try ProcessRunner.run(input.ffmpeg, ["-nostdin", "-v", "error", "-y", "-i", stream, "-f", "rawvideo", "-pix_fmt", "yuv420p", decoded])
    guard d.status == 0 else { throw BenchFailure("ffmpeg cannot decode \(stream): \(d.stderrText.prefix(200))") }
    let size = "\(input.width)x\(input.height)"
    let p = try ProcessRunner.run(input.ffmpeg, ["-nostdin", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i", decoded,
                                                 "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i", input.i420,
                                                 "-frames:v", "\(input.frames)", "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
    guard let psnr = VTKSoftFFmpeg.lumaPSNR(p.stderrText) else { throw BenchFailure("no PSNR for \(stream)") }
    return RatePoint(rate: Double(bytes * 8) / Double(input.frames) * 30 / 1000, psnr: psnr)
}
