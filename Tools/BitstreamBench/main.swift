// Benchmark of the bitstream layer: NAL scanning, access-unit assembly and header parsing, beside
// FFmpeg's demuxer+parser (`ffmpeg -c copy -f null`) and FFmpeg's software decoder on the same file.
//
//     swift run -c release bitstream-bench [STREAM] [--repetitions N] [--json FILE]
//
// Every figure is measured in this run: in-process timings repeat the work until it takes at least
// 0.2 s, and each measurement is repeated N times (default 7); the table gives median, min and max.
import Foundation
import H264Bitstream

struct Stats: Codable {
    var median: Double
    var min: Double
    var max: Double
    init(_ samples: [Double]) {
        let s = samples.sorted()
        median = s[s.count / 2]
        min = s.first!
        max = s.last!
    }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

/// Seconds per run of `body`, repeated until 0.2 s have passed.
func timePerRun(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var runs = 0
    let start = clock.now
    repeat {
        body()
        runs += 1
    } while clock.now - start < .milliseconds(200)
    return seconds(clock.now - start) / Double(runs)
}

func wallTime(_ executable: String, _ arguments: [String]) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let clock = ContinuousClock()
    let start = clock.now
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    return process.terminationStatus == 0 ? seconds(clock.now - start) : nil
}

var arguments = Array(CommandLine.arguments.dropFirst())
var repetitions = 7
var jsonPath: String?
var path = "../shared/conformance/h264/VID_1280x720_cavlc_temporal_direct.264"
while let arg = arguments.first {
    arguments.removeFirst()
    switch arg {
    case "--repetitions": repetitions = Int(arguments.removeFirst()) ?? 7
    case "--json": jsonPath = arguments.removeFirst()
    case "-h", "--help":
        print("usage: bitstream-bench [STREAM] [--repetitions N] [--json FILE]")
        exit(0)
    default: path = arg
    }
}

guard let data = FileManager.default.contents(atPath: path) else {
    FileHandle.standardError.write("bitstream-bench: cannot read \(path) (is ../shared present? pass a stream path)\n".data(using: .utf8)!)
    exit(3)
}
let bytes = [UInt8](data)
let megabytes = Double(bytes.count) / 1e6
let accessUnits = AccessUnitAssembler.accessUnits(in: bytes)
let pictures = accessUnits.filter(\.hasPicture).count
let slices = accessUnits.reduce(0) { $0 + $1.slices.count }

var scan: [Double] = [], assemble: [Double] = [], chunked: [Double] = [], headers: [Double] = []
var ffmpegCopy: [Double] = [], ffmpegDecode: [Double] = []
let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

for _ in 0..<repetitions {
    // 1. Start-code scan only (the NAL unit list, payloads not copied).
    scan.append(timePerRun { precondition(!AnnexBScanner.startCodeOffsets(in: bytes).isEmpty) })
    // 2. Scan + access-unit assembly + SPS/PPS/SEI/slice-header parsing of every slice.
    assemble.append(timePerRun { precondition(AccessUnitAssembler.accessUnits(in: bytes).count == accessUnits.count) })
    // 3. The same from 64 KiB chunks, as from a pipe (NAL units copied out of the chunk buffer).
    chunked.append(timePerRun {
        var assembler = AccessUnitAssembler()
        var count = 0
        var i = 0
        while i < bytes.count {
            count += assembler.append(bytes[i..<min(i + 65536, bytes.count)]).count
            i += 65536
        }
        count += assembler.finish().count
        precondition(count == accessUnits.count)
    })
    // 4. Slice-header parsing alone.
    let sets = accessUnits.last!.parameterSets
    let sliceUnits = accessUnits.flatMap { $0.slices.map(\.nalUnit) }
    headers.append(timePerRun {
        for unit in sliceUnits { _ = try? SliceHeader(nalUnit: unit, parameterSets: sets) }
    })
    if let ffmpeg {
        if let t = wallTime(ffmpeg, ["-v", "error", "-i", path, "-c", "copy", "-f", "null", "-"]) { ffmpegCopy.append(t) }
        if let t = wallTime(ffmpeg, ["-v", "error", "-threads", "1", "-i", path, "-f", "null", "-"]) { ffmpegDecode.append(t) }
    }
}

struct Row: Codable { var name: String; var seconds: Stats; var megabytesPerSecond: Double }
var rows: [Row] = []
@MainActor func add(_ name: String, _ samples: [Double]) {
    guard !samples.isEmpty else { return }
    let stats = Stats(samples)
    rows.append(Row(name: name, seconds: stats, megabytesPerSecond: megabytes / stats.median))
}
add("vtk start-code scan", scan)
add("vtk scan + access units + all headers", assemble)
add("vtk same, from 64 KiB chunks", chunked)
add("vtk slice headers only (\(slices) slices)", headers)
add("ffmpeg -c copy -f null (process wall time)", ffmpegCopy)
add("ffmpeg software decode, 1 thread (process wall time)", ffmpegDecode)

print("Stream: \((path as NSString).lastPathComponent), \(bytes.count) bytes, \(pictures) pictures, \(slices) slices; \(repetitions) repetitions\n")
print("| work | median ms | min ms | max ms | MB/s (median) |")
print("|---|---:|---:|---:|---:|")
for row in rows {
    print(String(format: "| %@ | %.3f | %.3f | %.3f | %.0f |", row.name, row.seconds.median * 1e3, row.seconds.min * 1e3,
                 row.seconds.max * 1e3, row.megabytesPerSecond))
}
if let decode = rows.first(where: { $0.name.hasPrefix("ffmpeg software decode") }), let all = rows.first(where: { $0.name.hasPrefix("vtk scan +") }) {
    print(String(format: "\nHeader parsing share of a single-threaded software decode: %.2f%%", 100 * all.seconds.median / decode.seconds.median))
}
if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(rows).write(to: URL(fileURLWithPath: jsonPath))
}
