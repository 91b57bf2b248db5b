import BenchSupport
// encode-bench: vtk's H.264 encode (CompressionSession through vtksoft) at 720p, beside FFmpeg's
// h264_vaapi through the same driver and openh264 called directly.
//
//     swift build -c release && .build/release/encode-bench [--speed] [--rd] [--repetitions N]
//
// --speed (default): 300 frames, CQP 27, High, CABAC; the three encoders run in turn, N times
// (default 5), and the table gives median, min and max wall time. vtk and openh264 run in-process;
// FFmpeg is a whole process (its start-up is in its figure).
// --rd: Y-PSNR and bit rate for QP 22/27/32/37 and CBR 0.5/1/2/4 Mbit/s, vtk and FFmpeg h264_vaapi
// with the same settings (High, no B-frames, IDR every 60 frames), PSNR from ffmpeg's psnr filter.
import CompressionSession
import Foundation
import VideoAcceleration
import VTKMedia
import VTKTestSupport

let arguments = CommandLine.arguments.dropFirst()
let wantRD = arguments.contains("--rd")
let wantSpeed = arguments.contains("--speed") || !wantRD
let repetitions = arguments.firstIndex(of: "--repetitions").flatMap { Int(arguments[arguments.index(after: $0)]) } ?? 5
let (width, height, frames, rate, gop) = (1280, 720, 300, 30, 60)
// vtk's overhead over the codec it drives: vtksoft's openh264 engine, unless VTKSOFT_ENCODER names another
// (the native engine's speed is vtk-bench's encode-speed row).
setenv("VTKSOFT_ENCODER", "openh264", 0)
// libva loads vtksoft through LIBVA_DRIVERS_PATH, which the program sets, once (library code does not).
if let path = try? SoftwareDriverLocation.searchPathLeadingToSoftware() { setenv("LIBVA_DRIVERS_PATH", path, 1) }

guard VTKSoftFFmpeg.isAvailable else { fail(VTKSoftFFmpeg.unavailableReason ?? "") }
let work = TestPaths.scratch
let nv12URL = work.appendingPathComponent("encode-bench-720p.nv12")
let i420URL = work.appendingPathComponent("encode-bench-720p.yuv")
defer {
    try? FileManager.default.removeItem(at: nv12URL)
    try? FileManager.default.removeItem(at: i420URL)
}

/// The source: the 720p conformance stream decoded once, or testsrc2 without ../shared.
let sourceInput: [String] = TestPaths.shared.map {
    ["-i", $0.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264").path]
} ?? ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate)"]
let sourceName = TestPaths.shared == nil ? "testsrc2 1280x720" : "VID_1280x720_cavlc_temporal_direct.264"
for (url, format) in [(nv12URL, "nv12"), (i420URL, "yuv420p")] {
    let made = try ProcessRunner.run("ffmpeg", ["-nostdin", "-y", "-v", "error"] + sourceInput
                                     + ["-frames:v", "\(frames)", "-pix_fmt", format, "-f", "rawvideo", url.path])
    guard made.status == 0 else { fail(made.stderrText) }
}
let nv12 = try Data(contentsOf: nv12URL, options: .alwaysMapped)
let i420 = try Data(contentsOf: i420URL, options: .alwaysMapped)

func properties(qp: Int? = nil, bitRate: Int? = nil) -> CompressionProperties {
    var p = CompressionProperties()
    p.profile = .high
    p.expectedFrameRate = Double(rate)
    p.maxKeyFrameInterval = gop
    if let qp { (p.rateControl, p.quantizer) = (.constantQP, qp) }
    if let bitRate { (p.rateControl, p.averageBitRate) = (.constantBitRate, bitRate) }
    return p
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func cell(_ values: [Double]) -> String {
    String(format: "%.3f s (%.3f–%.3f)", median(values), values.min() ?? 0, values.max() ?? 0)
}

// MARK: Speed

if wantSpeed {
    var vtk: [Double] = [], ffmpeg: [Double] = [], openh264: [Double] = []
    let ffmpegArguments = FFmpegVAAPI.arguments(input: nv12URL, width: width, height: height, rate: rate, qp: 27, bitRate: nil,
                                                gop: 10 * frames, output: "/dev/null")  // -g 0 would make every picture an I picture
    var noKeyFrames = properties(qp: 27)
    noKeyFrames.maxKeyFrameInterval = 0
    _ = try VTKEncode.encode(nv12, width: width, height: height, frames: 30, properties: noKeyFrames)  // warm up
    var sizes = (vtk: 0, openh264: 0)
    for _ in 0..<repetitions {
        vtk.append(try seconds { sizes.vtk = try VTKEncode.encode(nv12, width: width, height: height, frames: frames, properties: noKeyFrames).count })
        ffmpeg.append(seconds { FFmpegVAAPI.run(ffmpegArguments) })
        openh264.append(seconds {
            sizes.openh264 = (try? i420.withUnsafeBytes { raw in
                try OpenH264Direct.encode(raw, width: width, height: height, frames: frames, qp: 27, bitRate: nil, keyint: 0, framesPerSecond: Float(rate))
            }) ?? 0
        })
    }
    print("### Encode speed: \(sourceName), \(frames) frames, CQP 27, High, CABAC, one IDR\n")
    print("| encoder | median (min–max) | fps (median) | vs vtk |")
    print("|---|---|---:|---:|")
    for (name, values) in [("vtk CompressionSession → vtksoft (in-process)", vtk),
                           ("FFmpeg h264_vaapi → vtksoft (whole process, -threads 1)", ffmpeg),
                           ("openh264 directly (in-process, I420 input)", openh264)] {
        let ratio = (median(values) / median(vtk) - 1) * 100
        print("| \(name) | \(cell(values)) | \(String(format: "%.1f", Double(frames) / median(values))) | \(String(format: "%+.1f%%", ratio)) |")
    }
    print("\n\(repetitions) alternating repetitions, \(ProcessInfo.processInfo.activeProcessorCount) cores; vtk's stream \(sizes.vtk) bytes, openh264's \(sizes.openh264) bytes.")
    print("vtk is \(String(format: "%.1f%%", (median(vtk) / median(openh264) - 1) * 100)) over openh264 alone, "
          + "\(String(format: "%.1f%%", (median(vtk) / median(ffmpeg) - 1) * 100)) against FFmpeg h264_vaapi.\n")
}

// MARK: Rate-distortion

/// Y-PSNR of `stream` against the NV12 source, frames paired by index.
func lumaPSNR(_ stream: URL) throws -> Double {
    let run = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "info", "-i", stream.path,
                                               "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "\(rate)", "-i", nv12URL.path,
                                               "-lavfi", "[0:v]settb=AVTB,setpts=N/(\(rate)*TB)[a];[1:v]settb=AVTB,setpts=N/(\(rate)*TB)[b];[a][b]psnr",
                                               "-frames:v", "\(frames)", "-f", "null", "-"])
    guard let psnr = VTKSoftFFmpeg.lumaPSNR(run.stderrText) else { fail("no PSNR for \(stream.path): \(run.stderrText.suffix(300))") }
    return psnr
}

func frameCount(_ stream: URL) throws -> Int {
    let out = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                                "-of", "csv=p=0", stream.path]).stdoutText
    return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

if wantRD {
    print("### Rate-distortion: \(sourceName), \(frames) frames at \(rate) fps, High, no B-frames, IDR every \(gop) frames\n")
    print("| setting | vtk kbit/s | vtk Y-PSNR dB | FFmpeg h264_vaapi kbit/s | FFmpeg Y-PSNR dB | same bytes |")
    print("|---|---:|---:|---:|---:|---|")
    let qps: [Int] = [22, 27, 32, 37], bitRates: [Int] = [500_000, 1_000_000, 2_000_000, 4_000_000]
    let points: [(String, Int?, Int?)] = qps.map { qp in ("CQP \(qp)", qp, nil) }
        + bitRates.map { bits in ("CBR \(Double(bits) / 1e6) Mbit/s", nil, bits) }
    for (name, qp, bitRate) in points {
        let tag = qp.map { "qp\($0)" } ?? "cbr\(bitRate! / 1000)k"
        let ours = work.appendingPathComponent("rd-vtk-\(tag).h264")
        let theirs = work.appendingPathComponent("rd-ffmpeg-\(tag).h264")
        defer {
            try? FileManager.default.removeItem(at: ours)
            try? FileManager.default.removeItem(at: theirs)
        }
        try Data(try VTKEncode.encode(nv12, width: width, height: height, frames: frames, properties: properties(qp: qp, bitRate: bitRate))).write(to: ours)
        FFmpegVAAPI.run(FFmpegVAAPI.arguments(input: nv12URL, width: width, height: height, rate: rate, qp: qp, bitRate: bitRate, gop: gop, output: theirs.path))
        var row: [String] = [name]
        for url in [ours, theirs] {
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            let count = try frameCount(url)
            guard count == frames else { fail("\(url.lastPathComponent) decodes to \(count) frames, not \(frames)") }
            row += [String(format: "%.0f", Double(size * 8) * Double(rate) / Double(frames) / 1000), String(format: "%.2f", try lumaPSNR(url))]
        }
        row.append(try Data(contentsOf: ours) == Data(contentsOf: theirs) ? "yes" : "no")
        print("| " + row.joined(separator: " | ") + " |")
    }
    print("")
}
