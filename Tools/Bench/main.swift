// vtk-bench: vtk beside FFmpeg's VA-API client on the same driver (vtksoft), beside the software codecs
// vtksoft wraps used directly, and beside FFmpeg's own software codecs, on this machine, now.
//
//     swift build -c release && .build/release/vtk-bench [--reps N] [--out DIR]     (make bench)
//     .build/release/vtk-bench --only rtp-latency | encode-speed | play-timing       (one section alone)
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
if argv.first == "--libavcodec-decode", argv.count == 2 { exit(Harness.libavcodecDecode(argv[1])) }
if argv.first == "--openh264-encode", argv.count == 8 {
    // FILE W H FRAMES qp=N|bps=N KEYINT OUTPUT
    let mode = argv[5]
    let qp = mode.hasPrefix("qp=") ? Int32(mode.dropFirst(3)) : nil
    let bps = mode.hasPrefix("bps=") ? Int32(mode.dropFirst(4)) : nil
    exit(Harness.openh264Encode(argv[1], width: Int(argv[2])!, height: Int(argv[3])!, frames: Int(argv[4])!, qp: qp, bitRate: bps,
                                keyint: UInt32(argv[6])!, output: argv[7]))
}

// MARK: Set-up

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vtk-bench: \(message)\n".utf8))
    exit(1)
}
func note(_ message: String) { FileHandle.standardError.write(Data("vtk-bench: \(message)\n".utf8)) }

let reps = argv.firstIndex(of: "--reps").flatMap { Int(argv[argv.index(after: $0)]) }
    ?? Int(ProcessInfo.processInfo.environment["VTK_BENCH_REPS"] ?? "") ?? 5
let outDir = argv.firstIndex(of: "--out").map { argv[argv.index(after: $0)] } ?? "bench-out"
/// `--only rtp-latency` (section 6), `--only encode-speed` (the 720p encode speed row, EncodeSpeed.swift) or `--only play-timing`
/// (vtk play in real time, PlayTiming.swift) runs one section alone.
let onlySection = argv.firstIndex(of: "--only").map { argv.index(after: $0) < argv.count ? argv[argv.index(after: $0)] : "" }
if let onlySection, !["rtp-latency", "encode-speed", "play-timing"].contains(onlySection) {
    FileHandle.standardError.write(Data("vtk-bench: --only takes rtp-latency, encode-speed or play-timing, not '\(onlySection)'\n".utf8)); exit(2)
}
let onlyEncodeSpeed = onlySection == "encode-speed"
let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let binDir = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
let vtk = binDir.appendingPathComponent("vtk").path
guard FileManager.default.isExecutableFile(atPath: vtk) else { fail("no vtk beside vtk-bench (\(vtk)); build with swift build -c release") }
if onlySection == "play-timing" {
    // Needs neither ../shared nor the shared Xvfb: its input is made here, its X server is its own.
    guard let ffmpeg = ProcessRunner.which("ffmpeg") else { fail("ffmpeg not found") }
    let load = loadAverage()
    let text = playTimingTable(playTimingRows(vtk: vtk, ffmpeg: ffmpeg, work: TestPaths.scratch))
    FileHandle.standardOutput.write(Data(text.utf8))
    note("load average at start \(load), at end \(loadAverage())")
    try? FileManager.default.removeItem(at: TestPaths.scratch)
    exit(0)
}
guard let shared = TestPaths.shared else { fail(TestPaths.sharedMissingMessage) }
guard VTKSoftFFmpeg.isAvailable else { fail(VTKSoftFFmpeg.unavailableReason ?? "ffmpeg/Xvfb/vtksoft missing") }
guard let ffmpeg = ProcessRunner.which("ffmpeg") else { fail("ffmpeg not found") }
let conformance = shared.appendingPathComponent("conformance/h264")
let stream720 = conformance.appendingPathComponent("VID_1280x720_cavlc_temporal_direct.264").path
let streamCIF = conformance.appendingPathComponent("BA1_FT_C.264").path
let work = TestPaths.scratch
defer { try? FileManager.default.removeItem(at: work) }
let (width, height, frames, keyint, qp, cbr) = (1280, 720, 300, 60, 27, 2_000_000)
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

// MARK: Running commands

struct Sample { var wall: Double; var cpu: Double; var rssKiB: Int }

/// Runs one process to the end with standard input, output and error on /dev/null.
func spawn(_ path: String, _ arguments: [String], va: Bool = false, extraEnvironment: [String: String] = [:]) -> Sample {
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
    guard posix_spawn(&pid, path, &actions, nil, cArgs, cEnv) == 0 else { fail("cannot start \(path)") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    clock_gettime(CLOCK_MONOTONIC, &end)
    guard status == 0 else { fail("\(path) \(arguments.joined(separator: " ")) failed (status \(status))") }
    let wall = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return Sample(wall: wall, cpu: cpu, rssKiB: usage.ru_maxrss)
}

/// One entry of a comparison: a name, and one or more processes run back to back (their times add up).
struct Command {
    let name: String
    let shown: String
    let run: () -> Sample
}

func command(_ name: String, _ tool: String, _ arguments: [String], va: Bool = false, environment: [String: String] = [:]) -> Command {
    let path = tool.hasPrefix("/") ? tool : (ProcessRunner.which(tool) ?? tool)
    let shown = (environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [URL(fileURLWithPath: tool).lastPathComponent]
                 + arguments.map(shortPath)).joined(separator: " ")
    return Command(name: name, shown: shown) { spawn(path, arguments, va: va, extraEnvironment: environment) }
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
func compare(_ group: String, _ commands: [Command], warmUp: Bool = true) -> [Row] {
    note("\(group): \(commands.count) commands x \(reps)")
    if warmUp { for c in commands { _ = c.run() } }  // page cache, driver and library loading
    var samples = [[Sample]](repeating: [], count: commands.count)
    for r in 0..<reps {
        for k in 0..<commands.count {
            let i = (k + r) % commands.count
            samples[i].append(commands[i].run())
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
    var out = "| command | wall s, median (min–max) | × \(reference), median (min–max) | CPU s | peak RSS MiB |\n|---|---:|---:|---:|---:|\n"
    for row in rows {
        out += "| \(row.name): `\(row.command)` | \(range(row.wallSeconds, f3)) | \(range(row.ratioToReference, f2)) | "
            + "\(f3(median(row.cpuSeconds))) | \(String(format: "%.0f", row.peakRSSMiB.max() ?? 0)) |\n"
    }
    return out
}

// MARK: Inputs made at bench time

func make(_ arguments: [String]) {
    let result = spawn(ffmpeg, ["-nostdin", "-y", "-v", "error"] + arguments)
    _ = result
}
let rawNV12 = work.appendingPathComponent("720p.nv12").path
let rawI420 = work.appendingPathComponent("720p.yuv").path
let longStream = work.appendingPathComponent("cif-1700.264").path
let shortStream = work.appendingPathComponent("cif-17.264").path
nonisolated(unsafe) var markdown = ""
func emit(_ text: String) { markdown += text; FileHandle.standardOutput.write(Data(text.utf8)) }

// MARK: 6. Latency over RTP on loopback (also alone: --only rtp-latency)

let latencyFrames = 150
func latencySection() {
    note("RTP latency")
    let latency = rtpLatencyBench(vtk: vtk, ffmpeg: ffmpeg, raw: rawI420, width: width, height: height, frames: latencyFrames)
    emit("\n### Live 720p encode -> RTP -> decode on loopback, capture to decoded frame (\(latencyFrames) frames at 30 fps)\n\n")
    emit("Decoded frames are matched to captured ones by content; \"first shown\" is the capture the first decoded frame is.\n\n")
    emit("p95 leaves out the few last frames a receiver may hold until its input ends.\n\n")
    emit("| pipeline | frames decoded | first shown | median ms | p95 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|\n")
    for result in latency {
        emit("| \(result.name): `\(result.shown)` | \(result.frames) | \(result.firstShown) | \(f2(result.median)) | "
             + "\(f2(result.percentile(95))) | \(f2(result.p99)) |\n")
    }
}
if onlySection == "rtp-latency" {
    make(["-i", stream720, "-frames:v", "\(latencyFrames)", "-pix_fmt", "yuv420p", "-f", "rawvideo", rawI420])
    emit("Machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (`nproc`), \(cpuModel()); load average at start \(loadAtStart).\n")
    latencySection()
    emit("\nLoad average at end \(loadAverage()).\n")
    try? FileManager.default.removeItem(at: work)
    exit(0)
}

note("making inputs in \(work.path)")
let has720 = FileManager.default.fileExists(atPath: stream720)
if has720 {
    make(["-i", stream720, "-frames:v", "\(frames)", "-pix_fmt", "nv12", "-f", "rawvideo", rawNV12])
    make(["-i", stream720, "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-f", "rawvideo", rawI420])
}
let speedInput = EncodeSpeedInput(vtk: vtk, ffmpeg: ffmpeg, bench: selfPath, nv12: rawNV12, i420: rawI420,
                                  output: work.appendingPathComponent("speed.h264").path,
                                  width: width, height: height, frames: frames, keyint: keyint, qp: qp)
if onlyEncodeSpeed {
    let rows = encodeSpeedRows(speedInput)
    var text = encodeSpeedTable(rows)
    if let rows { text += "\n| target | measured (median (min–max)) | met |\n|---|---:|:-:|\n" + encodeSpeedTargets(rows) }
    FileHandle.standardOutput.write(Data(text.utf8))
    note("load average at start \(loadAtStart), at end \(loadAverage())")
    exit(0)
}
for (path, count) in [(longStream, 1700), (shortStream, 17)] {
    make(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25", "-frames:v", "\(count)", "-c:v", "libx264", "-preset", "ultrafast",
          "-g", "250", "-pix_fmt", "yuv420p", "-f", "h264", path])
}
let out = work.appendingPathComponent("out.h264").path

emit("## vtk benchmarks\n\n")
emit("Machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (`nproc`), \(cpuModel()); load average at start \(loadAtStart). "
     + "\(reps) repetitions after one warm-up run, commands alternated (order rotated each repetition); "
     + "ratios are to the first row's time in the same repetition. Whole processes, start-up included.\n\n")

// MARK: 1. Decode

let va = ["-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi"]
func decodeGroup(_ title: String, _ stream: String) -> [Row] {
    compare(title, [
        // NV12 read back to system memory and dropped: what ffmpeg's hwdownload,format=nv12 -f null does.
        command("vtk", vtk, ["decode", stream, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
        command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                + ["-i", stream, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
        command("libavcodec direct", selfPath, ["--libavcodec-decode", stream]),
        command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", stream, "-f", "null", "-"]),
        command("vtk --md5", vtk, ["decode", stream, "--md5", "-q"]),
    ])
}
let decode720 = decodeGroup("decode 720p", stream720)
let decodeCIF = decodeGroup("decode CIF", streamCIF)
emit("### Decode through vtksoft (single thread)\n\n720p: `VID_1280x720_cavlc_temporal_direct.264` (300 frames)\n\n")
emit(table(decode720, reference: "vtk"))
emit("\nCIF: `BA1_FT_C.264` (352x288, 299 frames)\n\n")
emit(table(decodeCIF, reference: "vtk"))

// H.265 720p: vtk against FFmpeg's VA-API hwaccel through the same driver (goal: ratio <= 1.0).
let streamHEVC720 = shared.appendingPathComponent("conformance/h265/KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin").path
let decodeHEVC720 = compare("decode HEVC 720p", [
    command("vtk", vtk, ["decode", streamHEVC720, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
    command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
            + ["-i", streamHEVC720, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
    command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", streamHEVC720, "-f", "null", "-"]),
])
emit("\nH.265 720p: `KristenAndSara_1280x720_60-x265-veryfast-1000kbps.bin` (600 frames)\n\n")
emit(table(decodeHEVC720, reference: "vtk"))

// H.264 1080i MBAFF (libx264, top field first, CABAC, B-frames; made here): vtk against FFmpeg's VA-API
// hwaccel through the same driver (goal: ratio <= 1.0).
let stream1080i = work.appendingPathComponent("mbaff-1080i-300.264").path
let made1080i = (try? ProcessRunner.run(ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25",
                                                  "-frames:v", "300", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast",
                                                  "-flags", "+ildct", "-bf", "2", "-x264-params", "tff=1:keyint=50", stream1080i]))?.status == 0
if !made1080i { fail("ffmpeg could not make the 1080i MBAFF stream") }
let decode1080i = compare("decode 1080i MBAFF", [
    command("vtk", vtk, ["decode", stream1080i, "--pix-fmt", "nv12", "-o", "/dev/null", "-q"]),
    command("ffmpeg VA-API", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
            + ["-i", stream1080i, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], va: true),
    command("ffmpeg software", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1", "-i", stream1080i, "-f", "null", "-"]),
])
emit("\nH.264 1080i MBAFF: libx264 `-flags +ildct -x264-params tff=1`, veryfast, 2 B-frames, made here (300 frames)\n\n")
emit(table(decode1080i, reference: "vtk"))

// MARK: 2. Encode

/// vtk's VA-layer overhead: vtk and FFmpeg's h264_vaapi on vtksoft's openh264 engine, beside openh264 direct.
/// (The native engine's speed is the encode-speed row, EncodeSpeed.swift.)
func encodeGroup(_ title: String, qp: Int?, bitRate: Int?) -> [Row] {
    let openh264 = ["VTKSOFT_ENCODER": "openh264"]
    let vtkRC = qp.map { ["--qp", "\($0)"] } ?? ["--bitrate", "\(bitRate!)", "--rc", "cbr"]
    let ffRC = qp.map { ["-rc_mode", "CQP", "-qp", "\($0)"] } ?? ["-rc_mode", "CBR", "-b:v", "\(bitRate!)", "-maxrate", "\(bitRate!)"]
    let x264RC = qp.map { ["-qp", "\($0)"] } ?? ["-b:v", "\(bitRate!)", "-maxrate", "\(bitRate!)", "-bufsize", "\(bitRate!)"]
    let rawIn = ["-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "30", "-i", rawNV12]
    return compare(title, [
        command("vtk", vtk, ["encode", rawNV12, "--size", "\(width)x\(height)", "--pix-fmt", "nv12", "--keyint", "\(keyint)"]
                + vtkRC + ["-o", out, "-q"], environment: openh264),
        command("ffmpeg h264_vaapi", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                              "-filter_hw_device", "va"] + rawIn
                + ["-vf", "hwupload", "-c:v", "h264_vaapi", "-profile:v", "high", "-bf", "0", "-g", "\(keyint)"] + ffRC + ["-f", "h264", out],
                va: true, environment: openh264),
        command("openh264 direct", selfPath, ["--openh264-encode", rawI420, "\(width)", "\(height)", "\(frames)",
                                              qp.map { "qp=\($0)" } ?? "bps=\(bitRate!)", "\(keyint)", out]),
        command("x264 ultrafast", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1"] + rawIn
                + ["-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", "-bf", "0", "-g", "\(keyint)"] + x264RC + ["-f", "h264", out]),
    ])
}
let encodeCQP = encodeGroup("encode CQP", qp: qp, bitRate: nil)
let encodeCBR = encodeGroup("encode CBR", qp: nil, bitRate: cbr)
emit("\n### Encode through vtksoft, 300 frames 1280x720 NV12, IDR every \(keyint), no B-frames\n\nCQP \(qp)\n\n")
emit(table(encodeCQP, reference: "vtk"))
emit("\nCBR \(cbr / 1_000_000) Mbit/s\n\n")
emit(table(encodeCBR, reference: "vtk"))
let encodeSpeed = encodeSpeedRows(speedInput)
emit(encodeSpeedTable(encodeSpeed))

// MARK: 3. Round trip

let roundtripStream = work.appendingPathComponent("roundtrip.h264").path
let ffEncode = command("ffmpeg encode", ffmpeg, ["-nostdin", "-v", "error", "-y", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                 "-filter_hw_device", "va", "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)",
                                                 "-r", "30", "-i", rawNV12, "-vf", "hwupload", "-c:v", "h264_vaapi", "-profile:v", "high",
                                                 "-bf", "0", "-g", "\(keyint)", "-rc_mode", "CQP", "-qp", "\(qp)", "-f", "h264", roundtripStream],
                       va: true)
let ffCompare = command("ffmpeg decode+psnr", ffmpeg, ["-nostdin", "-v", "error", "-threads", "1"] + va
                        + ["-i", roundtripStream, "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "30", "-i", rawNV12,
                           "-lavfi", "[0:v]hwdownload,format=nv12[d];[d][1:v]psnr", "-f", "null", "-"], va: true)
let roundtrip = compare("round trip", [
    command("vtk", vtk, ["roundtrip", rawNV12, "--size", "\(width)x\(height)", "--pix-fmt", "nv12", "--qp", "\(qp)",
                         "--keyint", "\(keyint)", "--psnr", "--json"]),
    Command(name: "ffmpeg h264_vaapi, then VA decode + psnr", shown: "\(ffEncode.shown) && \(ffCompare.shown)") {
        let a = ffEncode.run(), b = ffCompare.run()
        return Sample(wall: a.wall + b.wall, cpu: a.cpu + b.cpu, rssKiB: max(a.rssKiB, b.rssKiB))
    },
])
emit("\n### Round trip with PSNR, 300 frames 1280x720, CQP \(qp)\n\n")
emit(table(roundtrip, reference: "vtk"))

// MARK: 3b. vtk suite: -j 1 against -j 2

let suiteJobs = suiteJobsComparison(vtk: vtk, work: work)
emit("\n### `vtk suite run`, -j 1 against -j 2 (\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs)\n\n")
emit(table(suiteJobs, reference: "-j 1"))

// MARK: 4. Kernels

struct Kernel { let name: String; let bytes: Int; let body: () -> Void }
let frameBytes = width * height * 3 / 2
let a = UnsafeMutablePointer<UInt8>.allocate(capacity: frameBytes), b = UnsafeMutablePointer<UInt8>.allocate(capacity: frameBytes)
defer { a.deallocate(); b.deallocate() }
// A real decoded frame (I420) and a slightly different one.
if let handle = fopen(rawI420, "rb") { _ = fread(a, 1, frameBytes, handle); fclose(handle) }
for i in 0..<frameBytes { b[i] = a[i] &+ UInt8(truncatingIfNeeded: (i * 7) % 5) }
let w = Int32(width), h = Int32(height), cw = Int32(width / 2)
let ySize = width * height, cSize = ySize / 4
nonisolated(unsafe) var sink: UInt64 = 0
nonisolated(unsafe) var ssimSink = 0.0
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
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
note("kernels")
var kernelRates = [[Double]](repeating: [], count: kernels.count)  // frames per second
for kernel in kernels { for _ in 0..<3 { kernel.body() } }
for _ in 0..<max(reps, 7) {
    for (i, kernel) in kernels.enumerated() {
        // About 0.1 s per sample.
        var iterations = 0
        let start = now()
        var elapsed = 0.0
        repeat { kernel.body(); iterations += 1; elapsed = now() - start } while elapsed < 0.1
        kernelRates[i].append(Double(iterations) / elapsed)
    }
}
emit("\n### Kernels on one 1280x720 frame (in-process, \(max(reps, 7)) samples of ~0.1 s each, alternated)\n\n")
emit("Bandwidth is the frame's bytes (NV12/I420: \(frameBytes); SSIM: the Y plane, \(ySize)) handled per second; PSNR and SSIM read two frames. "
     + "\"vs memcpy\" compares frames per second with memcpy of the whole frame in the same sample round.\n\n")
emit("| kernel | µs per frame, median (min–max) | GB/s | vs memcpy (frames/s), median (min–max) |\n|---|---:|---:|---:|\n")
var kernelJSON: [[String: Any]] = []
for (i, kernel) in kernels.enumerated() {
    let micro = kernelRates[i].map { 1e6 / $0 }
    let ratios = zip(kernelRates[i], kernelRates[0]).map { $0 / $1 }
    let gbps = median(kernelRates[i]) * Double(kernel.bytes) / 1e9
    emit("| \(kernel.name) | \(range(micro, { String(format: "%.0f", $0) })) | \(f2(gbps)) | \(range(ratios, f2)) |\n")
    kernelJSON.append(["kernel": kernel.name, "microsecondsPerFrame": micro, "ratioToMemcpy": ratios, "gigabytesPerSecond": gbps])
}
_ = (sink, ssimSink)

// MARK: 5. Memory: long and short stream

let memory = compare("memory, long vs short", [
    command("vtk decode 17 frames", vtk, ["decode", shortStream, "-o", "/dev/null", "-q"]),
    command("vtk decode 1700 frames", vtk, ["decode", longStream, "-o", "/dev/null", "-q"]),
], warmUp: false)
emit("\n### Peak memory, decoding a long and a short stream (testsrc2 352x288 libx264, made at bench time)\n\n")
emit("| command | peak RSS MiB, median (min–max) | wall s, median |\n|---|---:|---:|\n")
for row in memory { emit("| \(row.name): `\(row.command)` | \(range(row.peakRSSMiB, { String(format: "%.1f", $0) })) | \(f3(row.medianWall)) |\n") }
emit("\nPeak RSS of every other command is in the tables above (largest of the repetitions).\n")

// MARK: 6. Latency over RTP on loopback

latencySection()

// MARK: 7. vtk play in real time (also alone: --only play-timing)

emit(playTimingTable(playTimingRows(vtk: vtk, ffmpeg: ffmpeg, work: work)))

// MARK: Targets

func rowNamed(_ rows: [Row], _ name: String) -> Row { rows.first { $0.name == name }! }
func inverse(_ row: Row) -> String { range(row.ratioToReference.map { 1 / $0 }, f2) }
emit("\n### Targets\n\n| target | measured (median (min–max)) | met |\n|---|---:|:-:|\n")
do {
    let ff = rowNamed(decode1080i, "ffmpeg VA-API")
    emit("| decode 1080i MBAFF: vtk / ffmpeg VA-API ≤ 1 | \(inverse(ff)) | \(1 / ff.medianRatio <= 1 ? "yes" : "no") |\n")
}
for (label, rows) in [("decode 720p", decode720), ("decode CIF", decodeCIF)] {
    let ff = rowNamed(rows, "ffmpeg VA-API"), lav = rowNamed(rows, "libavcodec direct")
    emit("| \(label): vtk / ffmpeg VA-API ≤ 1 | \(inverse(ff)) | \(1 / ff.medianRatio <= 1 ? "yes" : "no") |\n")
    emit("| \(label): vtk / libavcodec direct ≤ 1.10 | \(inverse(lav)) | \(1 / lav.medianRatio <= 1.10 ? "yes" : "no") |\n")
}
for (label, rows) in [("encode CQP", encodeCQP), ("encode CBR", encodeCBR)] {
    let ff = rowNamed(rows, "ffmpeg h264_vaapi"), oh = rowNamed(rows, "openh264 direct")
    emit("| \(label): vtk / ffmpeg h264_vaapi ≤ 1 | \(inverse(ff)) | \(1 / ff.medianRatio <= 1 ? "yes" : "no") |\n")
    emit("| \(label): vtk / openh264 direct ≤ 1.10 | \(inverse(oh)) | \(1 / oh.medianRatio <= 1.10 ? "yes" : "no") |\n")
}
if let encodeSpeed { emit(encodeSpeedTargets(encodeSpeed)) }
let rtFF = roundtrip[1]
emit("| round trip: vtk / ffmpeg ≤ 1 | \(inverse(rtFF)) | \(1 / rtFF.medianRatio <= 1 ? "yes" : "no") |\n")
emit("| vtk suite run: -j 2 / -j 1 < 1 | \(f2(suiteJobs[1].medianRatio)) | \(suiteJobs[1].medianRatio < 1 ? "yes" : "no") |\n")
let psnrRatio = median(zip(kernelRates[3], kernelRates[0]).map { $0 / $1 })
emit("| PSNR ≥ 50% of memcpy | \(String(format: "%.0f%%", psnrRatio * 100)) | \(psnrRatio >= 0.5 ? "yes" : "no") |\n")
let rss720 = rowNamed(decode720, "vtk").peakRSSMiB.max() ?? 0
emit("| 720p decode peak RSS ≤ 100 MiB | \(String(format: "%.0f MiB", rss720)) | \(rss720 <= 100 ? "yes" : "no") |\n")
let longRSS = median(memory[1].peakRSSMiB), shortRSS = median(memory[0].peakRSSMiB)
emit("| peak RSS, 1700 frames vs 17 | \(String(format: "%.1f vs %.1f MiB", longRSS, shortRSS)) | \(longRSS <= shortRSS * 1.05 + 1 ? "yes" : "no") |\n")
let minutes = Date().timeIntervalSince(benchStarted) / 60
emit("\nLoad average at end \(loadAverage()); the benchmark took \(String(format: "%.1f", minutes)) min.\n")

// MARK: Files

try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
try? markdown.write(toFile: "\(outDir)/vtk-bench.md", atomically: true, encoding: .utf8)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
if let rowsJSON = try? JSONSerialization.jsonObject(with: encoder.encode(allRows)) {
    let object: [String: Any] = ["machine": ["cpus": sysconf(Int32(_SC_NPROCESSORS_ONLN)), "cpu": cpuModel(), "loadAtStart": loadAtStart],
                                 "repetitions": reps, "commands": rowsJSON, "kernels": kernelJSON]
    if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
        _ = FileManager.default.createFile(atPath: "\(outDir)/vtk-bench.json", contents: data)
    }
}
note("wrote \(outDir)/vtk-bench.md and \(outDir)/vtk-bench.json")
