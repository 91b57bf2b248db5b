// vtk-bench: vtk beside FFmpeg's VA-API client on the same driver (vtksoft), beside the software codecs
// vtksoft wraps used directly, and beside FFmpeg's own software codecs, on this machine, now.
//
//     swift build -c release && .build/release/vtk-bench [--reps N] [--out DIR]     (make bench)
//     .build/release/vtk-bench --only rtp-latency | encode-speed | play-timing | encoder-table | h265-engine   (one section alone)
//     .build/release/vtk-bench --only 'decode 720p,decode CIF,round trip'             (these sections of the main run)
//     .build/release/vtk-bench --smoke --out DIR                                      (make bench-smoke)
//
// --smoke runs every section once, without warm-up, on tiny inputs made here with ffmpeg (no ../shared
// needed): it checks that the benchmark works, in well under a minute; its figures mean nothing.
// A section that fails is reported in the tables and the log, the later sections still run, and the
// benchmark exits 1 at the end when any section failed (VTK_BENCH_FAIL_SECTION=NAME makes one fail, to check that).
//
// Every command is a whole process (posix_spawn + wait4: wall time, user+sys CPU, peak RSS). In each
// repetition every command of a group runs once, in an order rotated from one repetition to the next, and
// each is divided by vtk's time in that same repetition: the tables give the median of those ratios with
// min and max, which drift far less than absolute times on a shared machine. Kernels run in-process.
import CLibYUV
import Foundation
import VTKMedia
import VTKTestSupport

// MARK: Harness sub-commands (run as child processes by the benchmark itself)

let argv = Array(CommandLine.arguments.dropFirst())
if argv.contains("--help") || argv.contains("-h") {
    // The usage is the header comment of this file.
    print("""
        usage: vtk-bench [--reps N] [--out DIR]          every section (make bench)
               vtk-bench --only rtp-latency | encode-speed | play-timing | encoder-table | h265-engine
               vtk-bench --only 'decode 720p,decode CIF,round trip'    these sections of the main run
               vtk-bench --smoke --out DIR                  every section once on tiny inputs (make bench-smoke)
        encoder table: --table-frames N, --table-encoders a,b, --table-runs N
        """)
    exit(0)
}
// MARK: Set-up

/// Why a command or a section could not run; the section is reported as failed and the next one runs.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// For what nothing can run without (no vtk, no ffmpeg): exits at once.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vtk-bench: \(message)\n".utf8))
    exit(1)
}
func note(_ message: String) { FileHandle.standardError.write(Data("vtk-bench: \(message)\n".utf8)) }

/// The sizes of one run: the full benchmark, or `--smoke` (tiny inputs made here, one repetition).
struct BenchSettings {
    var reps: Int
    var warmUp: Bool
    var width: Int, height: Int, frames: Int, keyint: Int, qp: Int, cbr: Int
    var latencyFrames: Int
    /// How long a latency receiver may take to deliver its last frames after the sender ended.
    var drainSeconds: Double
    var playFrames: Int
    var memoryFrames: (short: Int, long: Int)
    var kernelSamples: Int
    var kernelSeconds: Double
}

let smoke = argv.contains("--smoke")
let repsArgument = argv.firstIndex(of: "--reps").flatMap { argv.index(after: $0) < argv.count ? Int(argv[argv.index(after: $0)]) : nil }
    ?? Int(ProcessInfo.processInfo.environment["VTK_BENCH_REPS"] ?? "")
let settings = smoke
    ? BenchSettings(reps: repsArgument ?? 1, warmUp: false, width: 176, height: 144, frames: 10, keyint: 5, qp: 27, cbr: 200_000,
                    latencyFrames: 15, drainSeconds: 5, playFrames: 15, memoryFrames: (3, 30), kernelSamples: 1, kernelSeconds: 0.01)
    : BenchSettings(reps: repsArgument ?? 5, warmUp: true, width: 1280, height: 720, frames: 300, keyint: 60, qp: 27, cbr: 2_000_000,
                    latencyFrames: 150, drainSeconds: 30, playFrames: 300, memoryFrames: (17, 1700), kernelSamples: 7, kernelSeconds: 0.1)
let reps = settings.reps
let outDir = argv.firstIndex(of: "--out").map { argv.index(after: $0) < argv.count ? argv[argv.index(after: $0)] : "bench-out" } ?? "bench-out"
/// `--only rtp-latency` (section 6), `--only encode-speed` (the 720p encode speed row, EncodeSpeed.swift) or `--only play-timing`
/// (vtk play in real time, PlayTiming.swift) runs one section alone.
/// Any other value is a comma-separated list of the main run's sections, by the start of their names
/// ("decode" is every decode table; "decode 720p,round trip" two of them); the others are left out.
let onlyArgument = argv.firstIndex(of: "--only").map { argv.index(after: $0) < argv.count ? argv[argv.index(after: $0)] : "" }
let onlySection = onlyArgument.flatMap { ["rtp-latency", "encode-speed", "play-timing", "encoder-table", "h265-engine"].contains($0) ? $0 : nil }
let selectedSections = onlyArgument.flatMap { onlySection == nil ? $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : nil }
if let selectedSections, selectedSections.isEmpty || selectedSections.contains("") {
    FileHandle.standardError.write(Data("vtk-bench: --only takes rtp-latency, encode-speed, play-timing, encoder-table, h265-engine or section names, not '\(onlyArgument ?? "")'\n".utf8))
    exit(2)
}
let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let binDir = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
let vtk = binDir.appendingPathComponent("vtk").path
/// libavcodec and openh264 called directly, a process without Foundation (as `vtk` is): the floor.
let codecFloor = binDir.appendingPathComponent("codec-floor").path
guard FileManager.default.isExecutableFile(atPath: vtk) else { fail("no vtk beside vtk-bench (\(vtk)); build with swift build -c release") }
guard let ffmpeg = ProcessRunner.which("ffmpeg") else { fail("ffmpeg not found") }
let work = TestPaths.scratch
let vaEnvironment = VTKSoftDriverLocation.environment(display: Xvfb.shared?.display ?? ":0")
let benchStarted = Date()

func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
}
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}
let loadAtStart = loadAverage()

// MARK: Sections

nonisolated(unsafe) var markdown = ""
func emit(_ text: String) { markdown += text; FileHandle.standardOutput.write(Data(text.utf8)) }
nonisolated(unsafe) var failedSections: [String] = []

/// A section made to fail (VTK_BENCH_FAIL_SECTION=NAME), to show that the others still run.
let sectionMadeToFail = ProcessInfo.processInfo.environment["VTK_BENCH_FAIL_SECTION"]

/// Runs one section; when it fails, says so in the tables and the log, and the benchmark goes on.
@discardableResult
func section<T>(_ name: String, _ body: () throws -> T) -> T? {
    if let selectedSections, name != "inputs", !selectedSections.contains(where: { name.hasPrefix($0) }) { return nil }
    do {
        if name == sectionMadeToFail { throw BenchFailure("made to fail (VTK_BENCH_FAIL_SECTION)") }
        return try body()
    } catch {
        failedSections.append("\(name): \(error)")
        note("FAILED: \(name): \(error)")
        emit("\n**FAILED: \(name)**: \(error)\n")
        return nil
    }
}

/// Ends the benchmark: the failed sections named, exit 1 when there was one.
func finish() -> Never {
    try? FileManager.default.removeItem(at: work)
    guard failedSections.isEmpty else {
        note("\(failedSections.count) section(s) failed:\n  " + failedSections.joined(separator: "\n  "))
        exit(1)
    }
    exit(0)
}

// MARK: Running commands

struct Sample { var wall: Double; var cpu: Double; var rssKiB: Int }

/// Runs one process to the end with standard input, output and error on /dev/null.
func spawn(_ path: String, _ arguments: [String], va: Bool = false, extraEnvironment: [String: String] = [:]) throws -> Sample {
    var environment = ProcessInfo.processInfo.environment
    if va { environment.merge(vaEnvironment) { $1 } }
    environment.merge(extraEnvironment) { $1 }
    let cArgs = ([path] + arguments).map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { cArgs.forEach { free($0) }; cEnv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    guard posix_spawn(&pid, path, &actions, nil, cArgs, cEnv) == 0 else { throw BenchFailure("cannot start \(path)") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    clock_gettime(CLOCK_MONOTONIC, &end)
    guard status == 0 else {
        throw BenchFailure("`\(([path] + arguments).map(shortPath).joined(separator: " "))` failed (wait status \(status)); run it by hand to see why")
    }
    let wall = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return Sample(wall: wall, cpu: cpu, rssKiB: usage.ru_maxrss)
}

/// One entry of a comparison: a name, and one or more processes run back to back (their times add up).
struct Command {
    let name: String
    let shown: String
    let run: () throws -> Sample
}

func command(_ name: String, _ tool: String, _ arguments: [String], va: Bool = false, environment: [String: String] = [:]) -> Command {
    let path = tool.hasPrefix("/") ? tool : (ProcessRunner.which(tool) ?? tool)
    let shown = (environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [URL(fileURLWithPath: tool).lastPathComponent]
                 + arguments.map(shortPath)).joined(separator: " ")
    return Command(name: name, shown: shown) { try spawn(path, arguments, va: va, extraEnvironment: environment) }
}

/// Names files by their last component in the tables.
func shortPath(_ argument: String) -> String {
    argument.hasPrefix("/") && argument != "/dev/null" ? URL(fileURLWithPath: argument).lastPathComponent : argument
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
}

struct Row: Codable {
    var group: String
    var name: String
    var command: String
    var wallSeconds: [Double]
    var cpuSeconds: [Double]
    var ratioToReference: [Double]
    var peakRSSMiB: [Double]
    var medianWall: Double { median(wallSeconds) }
    var medianRatio: Double { median(ratioToReference) }
}
nonisolated(unsafe) var allRows: [Row] = []

/// Runs `commands` `reps` times, rotating the order each time; ratios are to the first command's time
/// in the same repetition.
func compare(_ group: String, _ commands: [Command], warmUp: Bool = true) throws -> [Row] {
    note("\(group): \(commands.count) commands x \(reps)")
    var warmUpSeconds = Double.infinity
    if warmUp && settings.warmUp {  // page cache, driver and library loading
        warmUpSeconds = try commands.reduce(0) { $0 + (try $1.run()).wall }
    }
    // Short groups (CIF decode: a fifth of a second per command) drift most from one run to the next: they get
    // three times the repetitions when a round takes under 2 s, twice under 6 s (the tables say how many).
    let repetitions = reps * (warmUpSeconds < 2 ? 3 : warmUpSeconds < 6 ? 2 : 1)
    if repetitions != reps { note("\(group): \(repetitions) repetitions (a round takes \(f2(warmUpSeconds)) s)") }
    var samples = [[Sample]](repeating: [], count: commands.count)
    for r in 0..<repetitions {
        for k in 0..<commands.count {
            let i = (k + r) % commands.count
            samples[i].append(try commands[i].run())
        }
    }
    let rows = commands.indices.map { i in
        Row(group: group, name: commands[i].name, command: commands[i].shown,
            wallSeconds: samples[i].map(\.wall), cpuSeconds: samples[i].map(\.cpu),
            ratioToReference: zip(samples[i], samples[0]).map { $0.wall / $1.wall },
            peakRSSMiB: samples[i].map { Double($0.rssKiB) / 1024 })
    }
    allRows += rows
    return rows
}

func f2(_ x: Double) -> String { String(format: "%.2f", x) }
func f3(_ x: Double) -> String { String(format: "%.3f", x) }
func range(_ v: [Double], _ format: (Double) -> String) -> String { "\(format(median(v))) (\(format(v.min() ?? .nan))–\(format(v.max() ?? .nan)))" }

func table(_ rows: [Row], reference: String) -> String {
    let runs = rows.first?.wallSeconds.count ?? 0
    var out = "| command | wall s, median (min–max) of \(runs) | × \(reference), median (min–max) | CPU s | peak RSS MiB |\n|---|---:|---:|---:|---:|\n"
    for row in rows {
        out += "| \(row.name): `\(row.command)` | \(range(row.wallSeconds, f3)) | \(range(row.ratioToReference, f2)) | "
            + "\(f3(median(row.cpuSeconds))) | \(String(format: "%.0f", row.peakRSSMiB.max() ?? 0)) |\n"
    }
    return out
}

// MARK: Inputs

/// Runs ffmpeg to make an input.
func make(_ arguments: [String]) throws {
    _ = try spawn(ffmpeg, ["-nostdin", "-y", "-v", "error"] + arguments)
}

/// A stream the benchmark decodes, and what the tables call it.
struct BenchStream {
    let path: String
    let label: String
}

/// The MD5 of a stream's decoded frames in `format`, by FFmpeg (the reference for a suite made at bench time).
func ffmpegMD5(_ path: String, format: String = "yuv420p") throws -> String {
    let result = try ProcessRunner.run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-pix_fmt", format, "-f", "md5", "-"])
    guard result.status == 0, let md5 = result.stdoutText.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines), md5.count == 32 else {
        throw BenchFailure("ffmpeg could not hash \(path): \(result.stderrText)")
    }
    return md5
}

let (width, height, frames, keyint, qp, cbr) = (settings.width, settings.height, settings.frames, settings.keyint, settings.qp, settings.cbr)
let rawNV12 = work.appendingPathComponent("input.nv12").path
let rawI420 = work.appendingPathComponent("input.yuv").path
let longStream = work.appendingPathComponent("cif-\(settings.memoryFrames.long).264").path
let shortStream = work.appendingPathComponent("cif-\(settings.memoryFrames.short).264").path
let shared = TestPaths.shared
let sizeName = smoke ? "\(width)x\(height)" : "720p"

/// The decode inputs: conformance streams, or with --smoke small libx264/libx265 streams made here.
func decodeStreams() throws -> (main: BenchStream, cif: BenchStream, hevc: BenchStream) {
    if smoke {
        let h264 = work.appendingPathComponent("smoke-\(width)x\(height).264").path
        let cif = work.appendingPathComponent("smoke-352x288.264").path
        let hevc = work.appendingPathComponent("smoke-\(width)x\(height).265").path
        try make(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p",
                  "-c:v", "libx264", "-x264-params", "bframes=2:keyint=\(keyint)", "-f", "h264", h264])
        try make(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=30", "-frames:v", "5", "-pix_fmt", "yuv420p",
                  "-c:v", "libx264", "-f", "h264", cif])
        try make(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p",
                  "-c:v", "libx265", "-x265-params", "log-level=error", "-f", "hevc", hevc])
        return (BenchStream(path: h264, label: "libx264 \(width)x\(height) (\(frames) frames)"),
                BenchStream(path: cif, label: "libx264 352x288 (5 frames)"),
                BenchStream(path: hevc, label: "libx265 \(width)x\(height) (\(frames) frames)"))
    }
    guard let shared else { throw BenchFailure(TestPaths.sharedMissingMessage) }
    let h264 = shared.appendingPathComponent("conformance/h264"), h265 = shared.appendingPathComponent("conformance/h265")
    return (BenchStream(path: h264.appendingPathComponent("VID_1280x720_cavlc_temporal_direct.264").path,
                        label: "`VID_1280x720_cavlc_temporal_direct.264` (300 frames)"),
            BenchStream(path: h264.appendingPathComponent("BA1_FT_C.264").path, label: "`BA1_FT_C.264` (352x288, 299 frames)"),
            BenchStream(path: h265.appendingPathComponent("KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin").path,
                        label: "`KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin` (600 frames)"))
}

/// The raw pictures every encode reads: the main decode stream's first `frames` frames, as NV12 and I420.
func makeRawInputs(_ stream: BenchStream) throws {
    guard FileManager.default.fileExists(atPath: stream.path) else { throw BenchFailure("\(stream.path) is missing") }
    try make(["-i", stream.path, "-frames:v", "\(frames)", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-f", "rawvideo", rawNV12])
    try make(["-i", stream.path, "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-f", "rawvideo", rawI420])
}

// MARK: 6. Latency over RTP on loopback (also alone: --only rtp-latency)

func latencySection() throws {
    note("RTP latency")
    let latency = try rtpLatencyBench(vtk: vtk, ffmpeg: ffmpeg, raw: rawI420, width: width, height: height, frames: settings.latencyFrames,
                                      drainSeconds: settings.drainSeconds)
    emit("\n### Live \(sizeName) encode -> RTP -> decode on loopback, capture to decoded frame (\(settings.latencyFrames) frames at 30 fps)\n\n")
    emit("Decoded frames are matched to captured ones by content; \"first shown\" is the capture the first decoded frame is.\n\n")
    emit("p95 leaves out the few last frames a receiver may hold until its input ends.\n\n")
    emit("| pipeline | frames decoded | first shown | median ms | p95 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|\n")
    for result in latency {
        emit("| \(result.name): `\(result.shown)` | \(result.frames) | \(result.firstShown) | \(f2(result.median)) | "
             + "\(f2(result.percentile(95))) | \(f2(result.p99)) |\n")
    }
}

switch onlySection {
case "encoder-table":  // EncoderTable.swift
    runEncoderTable()
    if !encoderTableTargets.isEmpty { emit("\n| target | measured | met |\n|---|---:|:-:|\n" + encoderTableTargets.joined()) }
    finish()
case "play-timing":
    // Needs neither ../shared nor the shared Xvfb: its input is made here, its X server is its own.
    section("vtk play timing") { emit(playTimingTable(try playTimingRows(vtk: vtk, ffmpeg: ffmpeg, work: work, frames: settings.playFrames))) }
    note("load average at start \(loadAtStart), at end \(loadAverage())")
    finish()
case "rtp-latency":
    emit("Machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (`nproc`), \(cpuModel()); load average at start \(loadAtStart).\n")
    section("RTP latency") {
        try makeRawInputs(try decodeStreams().main)
        try latencySection()
    }
    emit("\nLoad average at end \(loadAverage()).\n")
    finish()
default:
    break
}

guard VTKSoftFFmpeg.isAvailable else { fail(VTKSoftFFmpeg.unavailableReason ?? "ffmpeg/Xvfb/vtksoft missing") }
note("making inputs in \(work.path)")
let streams = section("inputs") { () throws -> (main: BenchStream, cif: BenchStream, hevc: BenchStream) in
    let streams = try decodeStreams()
    try makeRawInputs(streams.main)
    return streams
}
let speedInput = EncodeSpeedInput(vtk: vtk, ffmpeg: ffmpeg, bench: codecFloor, nv12: rawNV12, i420: rawI420,
                                  output: work.appendingPathComponent("speed.h264").path,
                                  width: width, height: height, frames: frames, keyint: keyint, qp: qp)
if onlySection == "h265-engine" {  // H265EngineCompression.swift
    section("H.265 engine") {
        FileHandle.standardOutput.write(Data(try h265EngineSection(H265EngineInput(
            engine: binDir.appendingPathComponent("h265-engine-bench").path, ffmpeg: ffmpeg, i420: rawI420, work: work,
            width: width, height: height, frames: min(frames, 60), qps: [22, 27, 32, 37])).utf8))
    }
    finish()
}
if onlySection == "encode-speed" {
    section("encode speed") {
        let rows = try encodeSpeedRows(speedInput)
        var text = encodeSpeedTable(rows)
        if let rows { text += "\n| target | measured (median (min–max)) | met |\n|---|---:|:-:|\n" + encodeSpeedTargets(rows) }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
    note("load average at start \(loadAtStart), at end \(loadAverage())")
    finish()
}
section("memory inputs") {
    for (path, count) in [(longStream, settings.memoryFrames.long), (shortStream, settings.memoryFrames.short)] {
        try make(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25", "-frames:v", "\(count)", "-c:v", "libx264", "-preset", "ultrafast",
                  "-g", "250", "-pix_fmt", "yuv420p", "-f", "h264", path])
    }
}
let out = work.appendingPathComponent("out.h264").path

emit("## vtk benchmarks\(smoke ? " (--smoke: tiny inputs, one run each; the figures mean nothing)" : "")\n\n")
emit("Machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (`nproc`), \(cpuModel()); load average at start \(loadAtStart). "
     + "\(reps) repetitions\(settings.warmUp ? " after one warm-up run (groups whose round takes under 6 s: two or three times as many, as their tables say)" : ""), commands alternated (order rotated each repetition); "
     + "ratios are to the first row's time in the same repetition. Whole processes, start-up included.\n\n")

// MARK: 1. Decode

let va = ["-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi"]
func decodeGroup(_ title: String, _ stream: String) throws -> [Row] {
    try compare(title, [
        // NV12 read back to system memory and dropped: what ffmpeg's hwdownload,format=nv12 -f null does.
        command("vtk", vtk, ["decode", stream, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
        command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                + ["-i", stream, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
        command("libavcodec direct", codecFloor, ["--libavcodec-decode", stream]),
        command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", stream, "-f", "null", "-"]),
        command("vtk --md5", vtk, ["decode", stream, "--md5", "-q"]),
    ])
}
func required<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw BenchFailure("skipped: \(what) failed") }
    return value
}
emit("### Decode through vtksoft (single thread)\n\n")
let decodeMain = section("decode \(sizeName)") { () throws -> [Row] in
    let stream = try required(streams, "making the inputs").main
    let rows = try decodeGroup("decode \(sizeName)", stream.path)
    emit("\(sizeName): \(stream.label)\n\n" + table(rows, reference: "vtk"))
    return rows
}
let decodeCIF = section("decode CIF") { () throws -> [Row] in
    let stream = try required(streams, "making the inputs").cif
    let rows = try decodeGroup("decode CIF", stream.path)
    emit("\nCIF: \(stream.label)\n\n" + table(rows, reference: "vtk"))
    return rows
}
// H.265: vtk against FFmpeg's VA-API hwaccel through the same driver (goal: ratio <= 1.0).
let decodeHEVC = section("decode HEVC \(sizeName)") { () throws -> [Row] in
    let stream = try required(streams, "making the inputs").hevc
    let rows = try compare("decode HEVC \(sizeName)", [
        command("vtk", vtk, ["decode", stream.path, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
        command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                + ["-i", stream.path, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
        command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", stream.path, "-f", "null", "-"]),
    ])
    emit("\nH.265 \(sizeName): \(stream.label)\n\n" + table(rows, reference: "vtk"))
    return rows
}

// H.264 1080i MBAFF (libx264, top field first, CABAC, B-frames; made here): vtk against FFmpeg's VA-API
// hwaccel through the same driver (goal: ratio <= 1.0). --smoke makes a small interlaced stream instead.
let decode1080i = section("decode 1080i MBAFF") { () throws -> [Row] in
    let (size, count) = smoke ? ("320x240", 10) : ("1920x1080", 300)
    let stream = work.appendingPathComponent("mbaff-\(size)-\(count).264").path
    try make(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25", "-frames:v", "\(count)", "-pix_fmt", "yuv420p",
              "-c:v", "libx264", "-preset", "veryfast", "-flags", "+ildct", "-bf", "2", "-x264-params", "tff=1:keyint=50", stream])
    let rows = try compare("decode 1080i MBAFF", [
        command("vtk", vtk, ["decode", stream, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
        command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                + ["-i", stream, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
        command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", stream, "-f", "null", "-"]),
    ])
    emit("\nH.264 interlaced MBAFF \(size): libx264 `-flags +ildct -x264-params tff=1`, veryfast, 2 B-frames, made here (\(count) frames)\n\n"
         + table(rows, reference: "vtk"))
    return rows
}

// MARK: 2. Encode

/// vtk's VA-layer overhead: vtk and FFmpeg's h264_vaapi on vtksoft's openh264 engine, beside openh264 direct.
/// (The native engine's speed is the encode-speed row, EncodeSpeed.swift.)
func encodeGroup(_ title: String, qp: Int?, bitRate: Int?) throws -> [Row] {
    let openh264 = ["VTKSOFT_ENCODER": "openh264"]
    let rate = bitRate ?? 0
    let vtkRC = qp.map { ["--qp", "\($0)"] } ?? ["--bitrate", "\(rate)", "--rc", "cbr"]
    let ffRC = qp.map { ["-rc_mode", "CQP", "-qp", "\($0)"] } ?? ["-rc_mode", "CBR", "-b:v", "\(rate)", "-maxrate", "\(rate)"]
    let x264RC = qp.map { ["-qp", "\($0)"] } ?? ["-b:v", "\(rate)", "-maxrate", "\(rate)", "-bufsize", "\(rate)"]
    let rawIn = ["-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "30", "-i", rawNV12]
    return try compare(title, [
        command("vtk", vtk, ["encode", rawNV12, "--size", "\(width)x\(height)", "--pix-fmt", "nv12", "--keyint", "\(keyint)"]
                + vtkRC + ["-o", out, "-q"], environment: openh264),
        command("ffmpeg h264_vaapi", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                              "-filter_hw_device", "va"] + rawIn
                + ["-vf", "hwupload", "-c:v", "h264_vaapi", "-profile:v", "high", "-bf", "0", "-g", "\(keyint)"] + ffRC + ["-f", "h264", out],
                va: true, environment: openh264),
        command("openh264 direct", codecFloor, ["--openh264-encode", rawI420, "\(width)", "\(height)", "\(frames)",
                                              qp.map { "qp=\($0)" } ?? "bps=\(rate)", "\(keyint)", out]),
        command("x264 ultrafast", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1"] + rawIn
                + ["-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", "-bf", "0", "-g", "\(keyint)"] + x264RC + ["-f", "h264", out]),
    ])
}
emit("\n### Encode through vtksoft, \(frames) frames \(width)x\(height) NV12, IDR every \(keyint), no B-frames\n\n")
let encodeCQP = section("encode CQP") { () throws -> [Row] in
    _ = try required(streams, "making the inputs")
    let rows = try encodeGroup("encode CQP", qp: qp, bitRate: nil)
    emit("CQP \(qp)\n\n" + table(rows, reference: "vtk"))
    return rows
}
let encodeCBR = section("encode CBR") { () throws -> [Row] in
    _ = try required(streams, "making the inputs")
    let rows = try encodeGroup("encode CBR", qp: nil, bitRate: cbr)
    emit("\nCBR \(String(format: "%g", Double(cbr) / 1_000_000)) Mbit/s\n\n" + table(rows, reference: "vtk"))
    return rows
}
let encodeSpeed = section("encode speed") { () throws -> [EncodeSpeedRow]? in
    let rows = try encodeSpeedRows(speedInput)
    emit(encodeSpeedTable(rows))
    return rows
} ?? nil
section("H.265 engine") {  // H265EngineCompression.swift
    emit(try h265EngineSection(H265EngineInput(engine: binDir.appendingPathComponent("h265-engine-bench").path, ffmpeg: ffmpeg, i420: rawI420,
                                               work: work, width: width, height: height, frames: min(frames, 60), qps: [22, 27, 32, 37])))
}
runEncoderTable()  // EncoderTable.swift

// MARK: 3. Round trip

let roundtrip = section("round trip") { () throws -> [Row] in
    _ = try required(streams, "making the inputs")
    let roundtripStream = work.appendingPathComponent("roundtrip.h264").path
    let ffEncode = command("ffmpeg encode", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                     "-filter_hw_device", "va", "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)",
                                                     "-r", "30", "-i", rawNV12, "-vf", "hwupload", "-c:v", "h264_vaapi", "-profile:v", "high",
                                                     "-bf", "0", "-g", "\(keyint)", "-rc_mode", "CQP", "-qp", "\(qp)", "-f", "h264", roundtripStream],
                           va: true)
    let ffCompare = command("ffmpeg decode+psnr", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                            + ["-i", roundtripStream, "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "30", "-i", rawNV12,
                               "-lavfi", "[0:v]hwdownload,format=nv12[d];[d][1:v]psnr", "-f", "null", "-"], va: true)
    let rows = try compare("round trip", [
        command("vtk", vtk, ["roundtrip", rawNV12, "--size", "\(width)x\(height)", "--pix-fmt", "nv12", "--qp", "\(qp)",
                             "--keyint", "\(keyint)", "--psnr", "--json"]),
        Command(name: "ffmpeg h264_vaapi, then VA decode + psnr", shown: "\(ffEncode.shown) && \(ffCompare.shown)") {
            let a = try ffEncode.run(), b = try ffCompare.run()
            return Sample(wall: a.wall + b.wall, cpu: a.cpu + b.cpu, rssKiB: max(a.rssKiB, b.rssKiB))
        },
    ])
    emit("\n### Round trip with PSNR, \(frames) frames \(width)x\(height), CQP \(qp)\n\n" + table(rows, reference: "vtk"))
    return rows
}

// MARK: 3b. vtk suite: -j 1 against -j 2

let suiteJobs = section("vtk suite run -j 1 / -j 2") { () throws -> [Row] in
    let vectors: [SuiteVector]
    if smoke {
        let stream = try required(streams, "making the inputs")
        vectors = try [stream.main, stream.cif].map { SuiteVector(name: URL(fileURLWithPath: $0.path).lastPathComponent, path: $0.path, md5: try ffmpegMD5($0.path)) }
    } else {
        vectors = ConformanceStream.all.filter { $0.width * $0.height <= 352 * 288 && $0.frames <= 150 }
            .map { SuiteVector(name: $0.file, path: $0.url.path, md5: $0.md5) }
    }
    let rows = try suiteJobsComparison(vtk: vtk, work: work, vectors: vectors)
    emit("\n### `vtk suite run`, -j 1 against -j 2 (\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs)\n\n" + table(rows, reference: "-j 1"))
    return rows
}

// MARK: 4. Kernels

struct Kernel { let name: String; let bytes: Int; let body: () -> Void }
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
var kernelJSON: [[String: Any]] = []
/// Memcpy-relative PSNR rate (the targets table), once the kernels ran.
let psnrRatio = section("kernels") { () throws -> Double in
    let frameBytes = width * height * 3 / 2
    let a = UnsafeMutablePointer<UInt8>.allocate(capacity: frameBytes), b = UnsafeMutablePointer<UInt8>.allocate(capacity: frameBytes)
    defer { a.deallocate(); b.deallocate() }
    // A real decoded frame (I420) and a slightly different one.
    guard let handle = fopen(rawI420, "rb") else { throw BenchFailure("no raw input \(rawI420)") }
    _ = fread(a, 1, frameBytes, handle)
    fclose(handle)
    for i in 0..<frameBytes { b[i] = a[i] &+ UInt8(truncatingIfNeeded: (i * 7) % 5) }
    let w = Int32(width), h = Int32(height), cw = Int32(width / 2)
    let ySize = width * height, cSize = ySize / 4
    var sink: UInt64 = 0
    var ssimSink = 0.0
    let kernels: [Kernel] = [
        Kernel(name: "memcpy", bytes: frameBytes) { b.update(from: a, count: frameBytes) },
        Kernel(name: "I420→NV12 (libyuv)", bytes: frameBytes) {
            _ = I420ToNV12(a, w, a + ySize, cw, a + ySize + cSize, cw, b, w, b + ySize, w, w, h)
        },
        Kernel(name: "NV12→I420 (libyuv)", bytes: frameBytes) {
            _ = NV12ToI420(a, w, a + ySize, w, b, w, b + ySize, cw, b + ySize + cSize, cw, w, h)
        },
        Kernel(name: "PSNR: sum of squared error, Y+U+V (libyuv)", bytes: frameBytes) {
            sink &+= ComputeSumSquareErrorPlane(a, w, b, w, w, h)
            sink &+= ComputeSumSquareErrorPlane(a + ySize, cw, b + ySize, cw, cw, h / 2)
            sink &+= ComputeSumSquareErrorPlane(a + ySize + cSize, cw, b + ySize + cSize, cw, cw, h / 2)
        },
        Kernel(name: "SSIM, Y (libyuv CalcFrameSsim)", bytes: ySize) { ssimSink += CalcFrameSsim(a, w, b, w, w, h) },
        Kernel(name: "MD5 (VTKMedia)", bytes: frameBytes) {
            var md5 = MD5()
            md5.update(UnsafeRawBufferPointer(start: a, count: frameBytes))
            sink &+= UInt64(md5.finalize().utf8.first ?? 0)
        },
    ]
    note("kernels")
    let samples = max(reps, settings.kernelSamples)
    var kernelRates = [[Double]](repeating: [], count: kernels.count)  // frames per second
    for kernel in kernels { for _ in 0..<3 { kernel.body() } }
    for _ in 0..<samples {
        for (i, kernel) in kernels.enumerated() {
            var iterations = 0
            let start = now()
            var elapsed = 0.0
            repeat { kernel.body(); iterations += 1; elapsed = now() - start } while elapsed < settings.kernelSeconds
            kernelRates[i].append(Double(iterations) / elapsed)
        }
    }
    emit("\n### Kernels on one \(width)x\(height) frame (in-process, \(samples) samples of ~\(settings.kernelSeconds) s each, alternated)\n\n")
    emit("Bandwidth is the frame's bytes (NV12/I420: \(frameBytes); SSIM: the Y plane, \(ySize)) handled per second; PSNR and SSIM read two frames. "
         + "\"vs memcpy\" compares frames per second with memcpy of the whole frame in the same sample round.\n\n")
    emit("| kernel | µs per frame, median (min–max) | GB/s | vs memcpy (frames/s), median (min–max) |\n|---|---:|---:|---:|\n")
    for (i, kernel) in kernels.enumerated() {
        let micro = kernelRates[i].map { 1e6 / $0 }
        let ratios = zip(kernelRates[i], kernelRates[0]).map { $0 / $1 }
        let gbps = median(kernelRates[i]) * Double(kernel.bytes) / 1e9
        emit("| \(kernel.name) | \(range(micro, { String(format: "%.0f", $0) })) | \(f2(gbps)) | \(range(ratios, f2)) |\n")
        kernelJSON.append(["kernel": kernel.name, "microsecondsPerFrame": micro, "ratioToMemcpy": ratios, "gigabytesPerSecond": gbps])
    }
    _ = (sink, ssimSink)
    return median(zip(kernelRates[3], kernelRates[0]).map { $0 / $1 })
}

// MARK: 5. Memory: long and short stream

let memory = section("memory, long vs short") { () throws -> [Row] in
    let (short, long) = settings.memoryFrames
    let rows = try compare("memory, long vs short", [
        command("vtk decode \(short) frames", vtk, ["decode", shortStream, "-o", "/dev/null", "-q"]),
        command("vtk decode \(long) frames", vtk, ["decode", longStream, "-o", "/dev/null", "-q"]),
    ], warmUp: false)
    emit("\n### Peak memory, decoding a long and a short stream (testsrc2 352x288 libx264, made at bench time)\n\n")
    emit("| command | peak RSS MiB, median (min–max) | wall s, median |\n|---|---:|---:|\n")
    for row in rows { emit("| \(row.name): `\(row.command)` | \(range(row.peakRSSMiB, { String(format: "%.1f", $0) })) | \(f3(row.medianWall)) |\n") }
    emit("\nPeak RSS of every other command is in the tables above (largest of the repetitions).\n")
    return rows
}

// MARK: 6. Latency over RTP on loopback

section("RTP latency") {
    _ = try required(streams, "making the inputs")
    try latencySection()
}

// MARK: 7. vtk play in real time (also alone: --only play-timing)

section("vtk play timing") { emit(playTimingTable(try playTimingRows(vtk: vtk, ffmpeg: ffmpeg, work: work, frames: settings.playFrames))) }

// MARK: Targets

func inverse(_ row: Row) -> String { range(row.ratioToReference.map { 1 / $0 }, f2) }
emit("\n### Targets\n\n| target | measured (median (min–max)) | met |\n|---|---:|:-:|\n")
if let rows = decode1080i, let ff = rows.first(where: { $0.name == "ffmpeg VA-API" }) {
    emit("| decode 1080i MBAFF: vtk / ffmpeg VA-API ≤ 1 | \(inverse(ff)) | \(1 / ff.medianRatio <= 1 ? "yes" : "no") |\n")
}
/// One target row: vtk's time over `other`'s (the inverse of the table's ratio), against issue #28's goal.
func target(_ label: String, _ rows: [Row]?, _ other: String, goal: Double) {
    guard let row = rows?.first(where: { $0.name == other }) else { return }
    emit("| \(label): vtk / \(other) ≤ \(String(format: "%g", goal)) | \(inverse(row)) | \(1 / row.medianRatio <= goal ? "yes" : "no") |\n")
}
// The goals of issue #28 (decode overhead, openh264 engine overhead, round trip).
target("decode \(sizeName)", decodeMain, "libavcodec direct", goal: 1.05)
target("decode \(sizeName)", decodeMain, "ffmpeg VA-API", goal: 0.80)
target("decode CIF", decodeCIF, "libavcodec direct", goal: 1.15)
target("decode CIF", decodeCIF, "ffmpeg VA-API", goal: 1)
target("decode HEVC \(sizeName)", decodeHEVC, "ffmpeg software", goal: 1.05)
target("decode HEVC \(sizeName)", decodeHEVC, "ffmpeg VA-API", goal: 1)
for (label, rows) in [("encode CQP", encodeCQP), ("encode CBR", encodeCBR)] {
    target(label, rows, "ffmpeg h264_vaapi", goal: 1)
    target(label, rows, "openh264 direct", goal: 1.05)
}
if let encodeSpeed { emit(encodeSpeedTargets(encodeSpeed)) }
emit(encoderTableTargets.joined())
if let roundtrip, roundtrip.count > 1 {
    emit("| round trip: vtk / ffmpeg ≤ 0.9 | \(inverse(roundtrip[1])) | \(1 / roundtrip[1].medianRatio <= 0.9 ? "yes" : "no") |\n")
}
if let suiteJobs, suiteJobs.count > 1 {
    emit("| vtk suite run: -j 2 / -j 1 < 1 | \(f2(suiteJobs[1].medianRatio)) | \(suiteJobs[1].medianRatio < 1 ? "yes" : "no") |\n")
}
if let psnrRatio { emit("| PSNR ≥ 50% of memcpy | \(String(format: "%.0f%%", psnrRatio * 100)) | \(psnrRatio >= 0.5 ? "yes" : "no") |\n") }
if let rss = decodeMain?.first?.peakRSSMiB.max() {
    emit("| \(sizeName) decode peak RSS ≤ 100 MiB | \(String(format: "%.0f MiB", rss)) | \(rss <= 100 ? "yes" : "no") |\n")
}
if let memory, memory.count > 1 {
    let longRSS = median(memory[1].peakRSSMiB), shortRSS = median(memory[0].peakRSSMiB)
    emit("| peak RSS, \(settings.memoryFrames.long) frames vs \(settings.memoryFrames.short) | \(String(format: "%.1f vs %.1f MiB", longRSS, shortRSS)) | "
         + "\(longRSS <= shortRSS * 1.05 + 1 ? "yes" : "no") |\n")
}
if !failedSections.isEmpty {
    emit("\n### Failed sections\n\n" + failedSections.map { "- \($0)\n" }.joined())
}
// A child's peak RSS (wait4's ru_maxrss) is at least vtk-bench's own at the time it was spawned: Linux keeps the
// spawning process's high-water mark across exec. Said here, so that a fat vtk-bench cannot pass for a fat child.
var ownUsage = rusage()
getrusage(RUSAGE_SELF.rawValue, &ownUsage)
emit("\nvtk-bench's own peak RSS: \(String(format: "%.0f", Double(ownUsage.ru_maxrss) / 1024)) MiB (a floor under every child's peak RSS above).\n")
let minutes = Date().timeIntervalSince(benchStarted) / 60
emit("\nLoad average at end \(loadAverage()); the benchmark took \(String(format: "%.1f", minutes)) min.\n")

// MARK: Files

try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
try? markdown.write(toFile: "\(outDir)/vtk-bench.md", atomically: true, encoding: .utf8)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
if let rowsJSON = try? JSONSerialization.jsonObject(with: encoder.encode(allRows)) {
    let object: [String: Any] = ["machine": ["cpus": sysconf(Int32(_SC_NPROCESSORS_ONLN)), "cpu": cpuModel(), "loadAtStart": loadAtStart],
                                 "repetitions": reps, "smoke": smoke, "commands": rowsJSON, "kernels": kernelJSON,
                                 "failedSections": failedSections]
    if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
        _ = FileManager.default.createFile(atPath: "\(outDir)/vtk-bench.json", contents: data)
    }
}
note("wrote \(outDir)/vtk-bench.md and \(outDir)/vtk-bench.json")
finish()
