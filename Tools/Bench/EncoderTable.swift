import BenchSupport
import Foundation
import VTKMedia
import VTKTestSupport

// The encoder table (issue #28): per QP, the rate, the Y-PSNR and the CPU time of vtksoft's native engine
// (through `vtk encode`, CQP), openh264, and x264 ultrafast, veryfast and medium at `-tune psnr` (no AQ, no
// psy), with P pictures only and with B-frames; the Bjøntegaard delta rate of each against x264 veryfast,
// computed here; on two contents. Every encoder runs on one core (`taskset`), single-threaded.
//
//     .build/release/vtk-bench --only encoder-table [--table-frames N] [--table-runs N] [--table-encoders native,openh264,...]

/// One content of the table: raw I420 pictures made at bench time.
struct EncoderTableContent {
    let label: String
    let raw: String
    let width: Int, height: Int, frames: Int
}

/// One encode: the coded rate, the mean of the per-picture Y-PSNRs against the source, and the CPU time
/// (the median of `cpuRuns` when the point was coded more than once).
struct EncoderTablePoint {
    let qp: Int
    let kbps: Double
    let psnrY: Double
    var cpuSeconds: Double
    /// The CPU time of every run of the same command, the first first.
    var cpuRuns: [Double]
    /// The MD5 of the first run's stream, which every other run must reproduce.
    let streamMD5: String
}

/// An encoder of the table, as the command that codes `raw` at `qp` into `output`.
struct EncoderTableEntry {
    let name: String
    /// Whether it codes B-frames in the B rows (openh264 has none: it is in the P-only rows alone).
    let hasBFrames: Bool
    /// The coded stream's file extension, by which FFmpeg knows its format when it decodes it.
    var streamExtension = "264"
    let arguments: (_ content: EncoderTableContent, _ qp: Int, _ bFrames: Bool, _ output: String) -> (tool: String, arguments: [String], environment: [String: String])
}

/// The QPs of every curve (x264's `-qp`: P pictures at QP, I and B offset by its ip/pb ratios).
let encoderTableQPs = [22, 27, 32, 37]
let encoderTableReference = "x264 veryfast"
/// FFmpeg (main.swift has found it before any section runs).
let encoderTableFFmpeg = ProcessRunner.which("ffmpeg") ?? "ffmpeg"

/// Runs ffmpeg to make an input or decode an output (main.swift's `make`, which other files cannot call).
func encoderTableMake(_ arguments: [String]) throws {
    _ = try spawn(encoderTableFFmpeg, ["-nostdin", "-y", "-v", "error"] + arguments)
}

func encoderTableEntries(keyint: Int) -> [EncoderTableEntry] {
    func x264(_ preset: String) -> EncoderTableEntry {
        EncoderTableEntry(name: "x264 \(preset)", hasBFrames: true) { content, qp, bFrames, output in
            (encoderTableFFmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                      "-s", "\(content.width)x\(content.height)", "-r", "30", "-i", content.raw, "-c:v", "libx264", "-preset", preset,
                      "-tune", "psnr", "-threads", "1", "-g", "\(keyint)", "-qp", "\(qp)"] + (bFrames ? [] : ["-bf", "0"]) + ["-f", "h264", output], [:])
        }
    }
    return [
        // B rows: 3 B-frames with the middle one a reference, as x264's presets (bframes=3, b-pyramid=normal).
        EncoderTableEntry(name: "native", hasBFrames: true) { content, qp, bFrames, output in
            (vtk, ["encode", content.raw, "--size", "\(content.width)x\(content.height)", "--pix-fmt", "i420", "--keyint", "\(keyint)",
                   "--qp", "\(qp)"] + (bFrames ? ["--bframes", "3", "--b-pyramid"] : []) + ["-o", output, "-q"], ["VTKSOFT_ENCODER": "native"])
        },
        // The same with a RefPicList0 of 3 (the engine searches every picture the client lists; x264 veryfast uses 1).
        EncoderTableEntry(name: "native 3 refs", hasBFrames: true) { content, qp, bFrames, output in
            (vtk, ["encode", content.raw, "--size", "\(content.width)x\(content.height)", "--pix-fmt", "i420", "--keyint", "\(keyint)",
                   "--qp", "\(qp)", "--refs", "3"] + (bFrames ? ["--bframes", "3", "--b-pyramid"] : []) + ["-o", output, "-q"], ["VTKSOFT_ENCODER": "native"])
        },
        EncoderTableEntry(name: "openh264", hasBFrames: false) { content, qp, _, output in
            (codecFloor, ["--openh264-encode", content.raw, "\(content.width)", "\(content.height)", "\(content.frames)", "qp=\(qp)", "\(keyint)", output], [:])
        },
        x264("ultrafast"), x264("veryfast"), x264("medium"),
    ]
}

/// The contents: the 720p conformance clip and a 1080p conformance stream scaled to 720p (when ../shared
/// has none, the 720p H.265 conformance clip, said so in the table); with --smoke two tiny synthetic ones.
func encoderTableContents(frames: Int) throws -> [EncoderTableContent] {
    func raw(_ name: String, _ input: [String], _ w: Int, _ h: Int) throws -> String {
        let path = work.appendingPathComponent("table-\(name)-\(w)x\(h)-\(frames).yuv").path
        try encoderTableMake(input + ["-frames:v", "\(frames)", "-vf", "scale=\(w):\(h):flags=bicubic", "-pix_fmt", "yuv420p", "-f", "rawvideo", path])
        return path
    }
    if smoke {
        let (w, h) = (settings.width, settings.height)
        return [EncoderTableContent(label: "testsrc2 \(w)x\(h)", raw: try raw("testsrc2", ["-f", "lavfi", "-i", "testsrc2=size=\(w)x\(h):rate=30"], w, h),
                                    width: w, height: h, frames: frames),
                EncoderTableContent(label: "mandelbrot \(w)x\(h)", raw: try raw("mandelbrot", ["-f", "lavfi", "-i", "mandelbrot=size=\(w)x\(h):rate=30"], w, h),
                                    width: w, height: h, frames: frames)]
    }
    guard let shared else { throw BenchFailure(TestPaths.sharedMissingMessage) }
    let clip = shared.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264").path
    var contents = [EncoderTableContent(label: "`VID_1280x720_cavlc_temporal_direct.264`", raw: try raw("vid720", ["-i", clip], 1280, 720),
                                        width: 1280, height: 720, frames: frames)]
    let fullHD = (ConformanceStream.rows(of: "h264") + ConformanceStream.rows(of: "h265"))
        .first { $0.width >= 1920 && $0.height >= 1080 && $0.frames >= frames }
    if let fullHD {
        contents.append(EncoderTableContent(label: "`\(fullHD.file)` scaled to 1280x720", raw: try raw("fullhd", ["-i", fullHD.url.path], 1280, 720),
                                            width: 1280, height: 720, frames: frames))
    } else {
        let kristen = shared.appendingPathComponent("conformance/h265/KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin").path
        note("encoder table: no 1080p conformance stream in ../shared; the second content is the 720p H.265 conformance clip")
        contents.append(EncoderTableContent(label: "`KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin` (no 1080p conformance stream in ../shared)",
                                            raw: try raw("kristen", ["-i", kristen], 1280, 720), width: 1280, height: 720, frames: frames))
    }
    return contents
}

/// The mean over pictures of each picture's Y-PSNR (10·log10(255² / MSE), 100 dB for an exact picture),
/// of `decoded` against `source` (both raw I420 of `content`'s size).
func meanLumaPSNR(_ decoded: String, _ content: EncoderTableContent) throws -> Double {
    guard let a = FileHandle(forReadingAtPath: content.raw), let b = FileHandle(forReadingAtPath: decoded) else {
        throw BenchFailure("cannot read \(content.raw) or \(decoded)")
    }
    defer { try? a.close(); try? b.close() }
    let lumaSize = content.width * content.height, frameSize = lumaSize * 3 / 2
    var total = 0.0, count = 0
    while let x = try a.read(upToCount: frameSize), x.count == frameSize {
        guard let y = try b.read(upToCount: frameSize), y.count == frameSize else {
            throw BenchFailure("\(shortPath(decoded)) has \(count) pictures, the source more")
        }
        var sse = 0
        x.withUnsafeBytes { p in
            y.withUnsafeBytes { q in
                for i in 0..<lumaSize { let d = Int(p[i]) - Int(q[i]); sse += d * d }
            }
        }
        total += sse == 0 ? 100 : 10 * log10(255.0 * 255.0 * Double(lumaSize) / Double(sse))
        count += 1
    }
    if let extra = try b.read(upToCount: 1), !extra.isEmpty { throw BenchFailure("\(shortPath(decoded)) has more pictures than the source") }
    guard count > 0 else { throw BenchFailure("no pictures in \(content.raw)") }
    return total / Double(count)
}

/// `tool arguments` run on the last core (`taskset`, when there is one): every encoder of a table on the same one.
func onOneCore(_ tool: String, _ arguments: [String]) -> (tool: String, arguments: [String]) {
    guard let taskset = ProcessRunner.which("taskset") else { return (tool, arguments) }
    return (taskset, ["-c", "\(max(0, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1))", tool] + arguments)
}

/// Codes `content` at every QP of `qps` with `entry`; each stream decoded by FFmpeg for its PSNR.
func encoderTableCurve(_ entry: EncoderTableEntry, _ content: EncoderTableContent, bFrames: Bool,
                       qps: [Int] = encoderTableQPs) throws -> [EncoderTablePoint] {
    let output = work.appendingPathComponent("table.\(entry.streamExtension)").path, decoded = work.appendingPathComponent("table-decoded.yuv").path
    return try qps.map { qp in
        let run = try encoderTableEncode(entry, content, qp: qp, bFrames: bFrames, output: output)
        try encoderTableMake(["-i", output, "-pix_fmt", "yuv420p", "-f", "rawvideo", decoded])
        let psnr = try meanLumaPSNR(decoded, content)
        note("encoder table: \(entry.name) \(bFrames ? "B" : "P") QP \(qp): \(run.bytes.count) bytes, \(String(format: "%.3f", psnr)) dB, \(f2(run.cpu)) s CPU")
        return EncoderTablePoint(qp: qp, kbps: Double(run.bytes.count) * 8 * 30 / Double(content.frames) / 1000, psnrY: psnr,
                                 cpuSeconds: run.cpu, cpuRuns: [run.cpu], streamMD5: MD5.hex(run.bytes))
    }
}

/// One encode of `content` at `qp` with `entry` into `output`, on one core: the stream and the CPU time.
func encoderTableEncode(_ entry: EncoderTableEntry, _ content: EncoderTableContent, qp: Int, bFrames: Bool,
                        output: String) throws -> (bytes: Data, cpu: Double) {
    let c = entry.arguments(content, qp, bFrames, output)
    let pinned = onOneCore(c.tool, c.arguments)
    let sample = try spawn(pinned.tool, pinned.arguments, extraEnvironment: c.environment)
    guard let bytes = FileManager.default.contents(atPath: output) else { throw BenchFailure("\(entry.name) wrote no \(shortPath(output))") }
    return (bytes, sample.cpu)
}

/// How many times the encoders whose CPU ratio has a goal (native and the reference) code each point:
/// `--table-runs N` (default 3; 2 with --smoke, so that `make bench-smoke` and its test go through the repeated
/// runs and their stream check). One run's CPU time on this shared machine moved by up to a
/// third between two `make bench` runs (native, P, QP 22: 2.9 to 4.0 s); the median of interleaved runs does not
/// follow one slow moment.
func encoderTableRuns() -> Int {
    argv.firstIndex(of: "--table-runs").flatMap { argv.index(after: $0) < argv.count ? Int(argv[argv.index(after: $0)]) : nil }
        .map { max(1, $0) } ?? (smoke ? 2 : 3)
}

/// The entries whose CPU time is taken as a median of runs: the native engine and the reference.
func encoderTableTimesRepeatedly(_ entry: EncoderTableEntry) -> Bool {
    entry.name == "native" || entry.name == encoderTableReference
}

/// Codes every point of the `timed` curves `runs` − 1 more times, the entries in turn at each QP (so that
/// a slow moment of the machine falls on both sides of a ratio), and gives each point the median of its
/// runs' CPU times. Each run must write the same stream as the first: an encoder whose output changes
/// from one run to the next is reported, not averaged.
func repeatEncodes(_ curves: inout [(EncoderTableEntry, [EncoderTablePoint])], _ content: EncoderTableContent, bFrames: Bool, runs: Int) throws {
    guard runs > 1 else { return }
    let timed = curves.indices.filter { encoderTableTimesRepeatedly(curves[$0].0) }
    for _ in 1..<runs {
        for point in encoderTableQPs.indices {
            for index in timed {
                let entry = curves[index].0, qp = curves[index].1[point].qp
                let output = work.appendingPathComponent("table-again.\(entry.streamExtension)").path
                let run = try encoderTableEncode(entry, content, qp: qp, bFrames: bFrames, output: output)
                guard MD5.hex(run.bytes) == curves[index].1[point].streamMD5 else {
                    throw BenchFailure("\(entry.name) \(bFrames ? "B" : "P") QP \(qp) coded a different stream on another run of the same command")
                }
                curves[index].1[point].cpuRuns.append(run.cpu)
            }
        }
    }
    for index in timed {
        for point in curves[index].1.indices {
            curves[index].1[point].cpuSeconds = median(curves[index].1[point].cpuRuns)
            note("encoder table: \(curves[index].0.name) \(bFrames ? "B" : "P") QP \(curves[index].1[point].qp): CPU s of \(runs) runs "
                 + curves[index].1[point].cpuRuns.map(f2).joined(separator: ", ") + ", median \(f2(curves[index].1[point].cpuSeconds))")
        }
    }
}

nonisolated(unsafe) var encoderTableJSON: [[String: Any]] = []

/// The whole table as markdown: per content and GOP structure, the points of every encoder, then the
/// BD-rate and CPU time of each against x264 veryfast with the issue's goals for the native engine.
func encoderTableSection(frames: Int, keyint: Int, runs: Int, only: Set<String>?) throws -> String {
    let entries = encoderTableEntries(keyint: keyint).filter { only?.contains($0.name) ?? true || $0.name == encoderTableReference }
    let contents = try encoderTableContents(frames: frames)
    var out = "\n### Encoder table: CQP at QP \(encoderTableQPs.map(String.init).joined(separator: ", ")), \(frames) frames, IDR every \(keyint), one core each\n\n"
    out += "Rate at 30 fps; Y-PSNR is the mean over pictures against the source; CPU is user + system of the whole process (`taskset`, one thread)"
        + (runs > 1 ? ": for native and \(encoderTableReference), the median of \(runs) runs of each point, the two taken in turn (each run coding the same bytes), for the others one run. " : ". ")
        + "x264 at `-tune psnr` (no AQ, no psy); B rows: native `--bframes 3 --b-pyramid`, x264 its preset's B-frames (3, pyramid); "
        + "openh264 codes no B-frames. BD-rate: Bjøntegaard, cubic fit of log-rate over PSNR, over the overlapping PSNR range.\n"
    for content in contents {
        for bFrames in [false, true] {
            let gop = bFrames ? "B-frames" : "P only"
            var curves: [(EncoderTableEntry, [EncoderTablePoint])] = []
            for entry in entries where !bFrames || entry.hasBFrames {
                curves.append((entry, try encoderTableCurve(entry, content, bFrames: bFrames)))
            }
            try repeatEncodes(&curves, content, bFrames: bFrames, runs: runs)
            out += "\n#### \(content.label), \(gop)\n\n| encoder | " + encoderTableQPs.map { "QP \($0): kbit/s, dB, CPU s" }.joined(separator: " | ")
                + " | BD-rate vs \(encoderTableReference) | CPU ÷ \(encoderTableReference)'s |\n|---|" + String(repeating: "---:|", count: encoderTableQPs.count + 2) + "\n"
            guard let reference = curves.first(where: { $0.0.name == encoderTableReference })?.1 else { continue }
            let referenceCPU = reference.map(\.cpuSeconds).reduce(0, +)
            for (entry, points) in curves {
                let bd = BjontegaardDelta.rate(reference: reference.map { RatePoint(rate: $0.kbps, psnr: $0.psnrY) },
                                               test: points.map { RatePoint(rate: $0.kbps, psnr: $0.psnrY) })
                let cpuRatio = points.map(\.cpuSeconds).reduce(0, +) / referenceCPU
                out += "| \(entry.name) | " + points.map { String(format: "%.0f, %.2f, %.2f", $0.kbps, $0.psnrY, $0.cpuSeconds) }.joined(separator: " | ")
                    + " | \(bd.map { String(format: "%+.1f%%", $0) } ?? "n/a") | \(f2(cpuRatio)) |\n"
                encoderTableJSON.append(["content": content.label, "gop": gop, "encoder": entry.name, "bdRatePercent": bd ?? NSNull(),
                                         "cpuRatio": cpuRatio, "frames": frames,
                                         "points": points.map { ["qp": $0.qp, "kbps": $0.kbps, "psnrY": $0.psnrY, "cpuSeconds": $0.cpuSeconds, "cpuSecondsOfEachRun": $0.cpuRuns] }])
                if entry.name == "native" {
                    let goal = bFrames ? 0.0 : 10.0
                    encoderTableTargets.append("| native, \(content.label), \(gop): BD-rate vs \(encoderTableReference) ≤ \(goal == 0 ? "0" : "+10")% | "
                        + "\(bd.map { String(format: "%+.1f%%", $0) } ?? "n/a") | \(bd.map { $0 <= goal ? "yes" : "no" } ?? "no") |\n")
                    encoderTableTargets.append("| native, \(content.label), \(gop): CPU ÷ \(encoderTableReference)'s ≤ 1.0 | \(f2(cpuRatio)) | \(cpuRatio <= 1 ? "yes" : "no") |\n")
                }
            }
        }
    }
    try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
    if let data = try? JSONSerialization.data(withJSONObject: encoderTableJSON, options: [.prettyPrinted, .sortedKeys]) {
        _ = FileManager.default.createFile(atPath: "\(outDir)/encoder-table.json", contents: data)
    }
    return out
}

/// Rows for the targets table, filled by ``encoderTableSection(frames:keyint:only:)``.
nonisolated(unsafe) var encoderTableTargets: [String] = []

/// `--table-frames N` (default: 150, 10 with --smoke), `--table-encoders a,b` (x264 veryfast, the reference, always runs)
/// and `--table-runs N` (``encoderTableRuns()``).
func encoderTableOptions() -> (frames: Int, runs: Int, only: Set<String>?) {
    func value(_ flag: String) -> String? { argv.firstIndex(of: flag).flatMap { argv.index(after: $0) < argv.count ? argv[argv.index(after: $0)] : nil } }
    let frames = value("--table-frames").flatMap(Int.init) ?? (smoke ? settings.frames : 150)
    let only = value("--table-encoders").map { Set($0.split(separator: ",").map { $0.replacingOccurrences(of: "-", with: " ") }) }
    return (frames, encoderTableRuns(), only)
}

func runEncoderTable() {
    section("encoder table") {
        let options = encoderTableOptions()
        emit(try encoderTableSection(frames: options.frames, keyint: smoke ? settings.keyint : 60, runs: options.runs, only: options.only))
    }
}
