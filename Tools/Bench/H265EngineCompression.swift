import BenchSupport
import Foundation
import VTKTestSupport

/// The H.265 row (issue #29): vtksoft's own HEVC engine (h265-engine-bench, in-process, no VA) beside x265
/// ultrafast and veryfast and beside vtk's own H.264 engine (`vtk encode` on vtksoft's native engine, as the
/// encoder table drives it), every process on one core and single-threaded, at 720p CQP without B-frames.
/// Speed is frames per CPU second of each whole process (floor 15), each encoder's divided by the H.265
/// engine's in the same repetition; compression is the BD-rate (Y-PSNR, 4 QPs) of the engine against each of
/// the others (goal: within +10 % of x265 ultrafast). Points are measured as in the encoder table
/// (EncoderTable.swift): rate at 30 fps, the mean of the per-picture Y-PSNRs of FFmpeg's decode.
struct H265EngineInput {
    /// h265-engine-bench, built beside vtk-bench.
    let engine: String
    let ffmpeg: String
    /// Raw I420 frames of the 720p input (at least `frames` of them).
    let i420: String
    let work: URL
    let width: Int, height: Int, frames: Int
    let qps: [Int]
}

let h265EngineName = "vtksoft H.265 engine"
let h265EngineSAOName = "vtksoft H.265 engine, SAO"

/// The encoders of the section, the engine first: each codes the raw input at a QP, P pictures only.
func h265EngineEntries(_ input: H265EngineInput) -> [EncoderTableEntry] {
    // The engine as vtk's own session drives it (no SAO: no persona reports it), and with SAO, as a client that
    // enables it (FFmpeg's hevc_vaapi on a driver reporting it) gets.
    var entries = [(h265EngineName, [String]()), (h265EngineSAOName, ["--sao"])].map { name, extra in
        EncoderTableEntry(name: name, hasBFrames: false, streamExtension: "265") { content, qp, _, output in
            (input.engine, ["--yuv", content.raw, "--size", "\(content.width)x\(content.height)", "--frames", "\(content.frames)",
                            "--qp", "\(qp)", "--output", output] + extra, [:])
        }
    }
    for preset in ["ultrafast", "veryfast"] {
        entries.append(EncoderTableEntry(name: "x265 \(preset)", hasBFrames: false, streamExtension: "265") { content, qp, _, output in
            (input.ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(content.width)x\(content.height)",
                            "-r", "30", "-i", content.raw, "-frames:v", "\(content.frames)", "-c:v", "libx265", "-preset", preset, "-x265-params",
                            "qp=\(qp):bframes=0:pools=1:frame-threads=1:log-level=error", "-f", "hevc", output], [:])
        })
    }
    // The encoder table's native H.264 entry, P pictures only, one IDR (as the engine and x265 code these frames).
    if let native = encoderTableEntries(keyint: input.frames).first(where: { $0.name == "native" }) {
        entries.append(EncoderTableEntry(name: "vtk native H.264, P only", hasBFrames: false, arguments: native.arguments))
    }
    return entries
}

func h265EngineSection(_ input: H265EngineInput) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: input.engine) else {
        throw BenchFailure("no h265-engine-bench beside vtk-bench (\(input.engine)); build with swift build -c release")
    }
    // The input's first `frames` pictures alone: vtk encode codes a whole file, and the PSNR is over every source picture.
    let frameSize = input.width * input.height * 3 / 2
    // They are copied one picture at a time: holding them (83 MB for 60 pictures at 720p) would raise vtk-bench's own
    // peak RSS, which Linux then reports as every later child's (ru_maxrss keeps the spawning process's high-water mark
    // across exec).
    guard let file = FileHandle(forReadingAtPath: input.i420) else { throw BenchFailure("no raw input \(input.i420)") }
    defer { try? file.close() }
    let raw = input.work.appendingPathComponent("h265-input-\(input.width)x\(input.height)-\(input.frames).yuv").path
    guard FileManager.default.createFile(atPath: raw, contents: nil), let sink = FileHandle(forWritingAtPath: raw) else {
        throw BenchFailure("cannot write \(raw)")
    }
    var frames = 0
    do {
        defer { try? sink.close() }
        while frames < input.frames, let picture = try file.read(upToCount: frameSize), picture.count == frameSize {
            try sink.write(contentsOf: picture)
            frames += 1
        }
    }
    guard frames > 0 else { throw BenchFailure("no raw input \(input.i420)") }
    let size = "\(input.width)x\(input.height)"
    let content = EncoderTableContent(label: size, raw: raw, width: input.width, height: input.height, frames: frames)
    let entries = h265EngineEntries(input)

    // Speed at the middle QP: whole processes, order rotated, each one's CPU time against the engine's in the same repetition.
    let middle = input.qps[input.qps.count / 2]
    let commands = entries.enumerated().map { index, entry in
        let c = entry.arguments(content, middle, false, input.work.appendingPathComponent("h265-speed-\(index).\(entry.streamExtension)").path)
        let pinned = onOneCore(c.tool, c.arguments)
        return command(entry.name, pinned.tool, pinned.arguments, environment: c.environment)
    }
    let speed = try compare("H.265 encode \(size) CQP \(middle), one core", commands)
    var out = "\n### H.265: vtksoft's engine beside x265 and vtk's H.264 engine, \(size), \(frames) frames, CQP, no B-frames, one core\n\n"
    out += "Whole processes on one core (`taskset`), single-threaded, order rotated; the ratio is each encoder's frames per CPU second "
        + "divided by the H.265 engine's in the same repetition. x265: `bframes=0:pools=1:frame-threads=1`; vtk native H.264: "
        + "`vtk encode --qp` on vtksoft's native engine, P pictures only.\n\n"
    out += "| encoder (QP \(middle)) | frames per CPU second, median (min–max) | ÷ \(h265EngineName)'s, median (min–max) |\n|---|---:|---:|\n"
    let engineCPU = speed[0].cpuSeconds
    var speedJSON: [[String: Any]] = []
    for row in speed {
        let fps = row.cpuSeconds.map { Double(frames) / $0 }
        let ratios = zip(engineCPU, row.cpuSeconds).map { $0 / $1 }
        out += "| \(row.name) | \(range(fps, f2)) | \(range(ratios, f2)) |\n"
        speedJSON.append(["encoder": row.name, "framesPerCPUSecond": fps, "ratioToEngine": ratios])
    }

    // Rate, distortion and CPU at every QP, one run each.
    var curves: [(name: String, points: [EncoderTablePoint])] = []
    for entry in entries { curves.append((entry.name, try encoderTableCurve(entry, content, bFrames: false, qps: input.qps))) }
    out += "\n| encoder | " + input.qps.map { "QP \($0): kbit/s, Y-PSNR dB, CPU s" }.joined(separator: " | ") + " |\n|---|"
        + String(repeating: "---:|", count: input.qps.count) + "\n"
    for curve in curves {
        out += "| \(curve.name) | " + curve.points.map { String(format: "%.0f, %.2f, %.2f", $0.kbps, $0.psnrY, $0.cpuSeconds) }.joined(separator: " | ") + " |\n"
    }
    func ratePoints(_ points: [EncoderTablePoint]) -> [RatePoint] { points.map { RatePoint(rate: $0.kbps, psnr: $0.psnrY) } }
    // BD-rate of each engine row (without and with SAO) against every other encoder.
    let engines = curves.prefix(2)
    out += "\n| BD-rate (Y-PSNR) against | " + engines.map { $0.name }.joined(separator: " | ") + " |\n|---|" + String(repeating: "---:|", count: engines.count) + "\n"
    var bdJSON: [String: Any] = [:]
    for reference in curves where reference.name != h265EngineSAOName {
        let rates = engines.map { engine -> Double? in
            engine.name == reference.name ? nil : BjontegaardDelta.rate(reference: ratePoints(reference.points), test: ratePoints(engine.points))
        }
        out += "| \(reference.name) | " + rates.map { $0.map { String(format: "%+.1f %%", $0) } ?? "—" }.joined(separator: " | ") + " |\n"
        for (engine, rate) in zip(engines, rates) where engine.name != reference.name {
            bdJSON[engine.name == h265EngineName ? reference.name : "\(engine.name) against \(reference.name)"] = rate ?? NSNull()
        }
    }
    for (index, engine) in engines.enumerated() {
        let floor = median(speed[index].cpuSeconds.map { Double(frames) / $0 })
        out += String(format: "\n%@: floor ≥ 15 frames per CPU second: %.2f, %@.", engine.name, floor, floor >= 15 ? "met" : "NOT met")
    }
    out += "\n"
    let points = curves.map { curve -> [String: Any] in
        ["encoder": curve.name, "points": curve.points.map { ["qp": $0.qp, "kbps": $0.kbps, "psnrY": $0.psnrY, "cpuSeconds": $0.cpuSeconds] }]
    }
    let json: [String: Any] = ["frames": frames, "size": size, "speedQP": middle, "speed": speedJSON, "bdRatePercentOfEngineAgainst": bdJSON,
                               "points": points]
    try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
    if let data = try? JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]) {
        _ = FileManager.default.createFile(atPath: "\(outDir)/h265-engine.json", contents: data)
    }
    return out
}
