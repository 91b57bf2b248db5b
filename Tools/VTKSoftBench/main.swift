// VTKSoftBench: what vtksoft costs on top of the software codecs it wraps, at 720p.
//
// Decode: FFmpeg's VA-API hwaccel through vtksoft vs FFmpeg's own software decoder, both single
// threaded, same stream. Encode: FFmpeg's h264_vaapi through vtksoft vs openh264 called directly
// in-process with the same settings (High, CABAC, QP 27), same frames. Runs alternate; the table
// gives the median with min and max.
import COpenH264
import Foundation
import VTKTestSupport

let repetitions = Int(ProcessInfo.processInfo.environment["VTKSOFT_BENCH_REPS"] ?? "") ?? 5
let frames = 300
let width = 1280, height = 720

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("VTKSoftBench: \(message)\n".utf8))
    exit(1)
}

guard let shared = TestPaths.shared else { fail(TestPaths.sharedMissingMessage) }
guard VTKSoftFFmpeg.isAvailable else { fail(VTKSoftFFmpeg.unavailableReason ?? "") }
let stream = shared.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264")
let raw = TestPaths.scratch.appendingPathComponent("bench-720p.yuv")
// FFmpeg reads NV12, the surface format, so that its own pixel conversion is not counted against vtksoft.
let rawNV12 = TestPaths.scratch.appendingPathComponent("bench-720p.nv12")
defer {
    try? FileManager.default.removeItem(at: raw)
    try? FileManager.default.removeItem(at: rawNV12)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// The encoder input, decoded once (I420, what openh264 and ffmpeg's rawvideo input both read).
let made = try ProcessRunner.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-i", stream.path, "-frames:v", "\(frames)",
                                            "-pix_fmt", "yuv420p", "-f", "rawvideo", raw.path])
guard made.status == 0 else { fail(made.stderrText) }
let madeNV12 = try ProcessRunner.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)",
                                                "-i", raw.path, "-pix_fmt", "nv12", "-f", "rawvideo", rawNV12.path])
guard madeNV12.status == 0 else { fail(madeNV12.stderrText) }
let pictures = try Data(contentsOf: raw, options: .alwaysMapped)

/// Runs a tool and waits with waitpid: Foundation's Process polls for exit, which would quantize the timings.
func spawn(_ tool: String, _ arguments: [String], vtksoft: Bool) {
    guard let path = ProcessRunner.which(tool) else { fail("\(tool) not found") }
    var environment = ProcessInfo.processInfo.environment
    if vtksoft {
        environment.merge(VTKSoftDriverLocation.environment(display: Xvfb.shared?.display ?? ":0")) { $1 }
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, nil, argv, envp) == 0 else { fail("cannot start \(tool)") }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    guard status == 0 else { fail("\(tool) \(arguments.joined(separator: " ")) failed (status \(status))") }
}

func decodeThroughVTKSoft() {
    spawn("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                     "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi",
                     "-i", stream.path, "-vf", "hwdownload,format=nv12", "-f", "null", "-"], vtksoft: true)
}

func decodeInSoftware() {
    spawn("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-i", stream.path, "-vf", "format=nv12", "-f", "null", "-"], vtksoft: false)
}

func encodeThroughVTKSoft() {
    spawn("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                     "-filter_hw_device", "va", "-f", "rawvideo", "-pix_fmt", "nv12",
                     "-s", "\(width)x\(height)", "-r", "25", "-i", rawNV12.path,
                     "-vf", "hwupload", "-c:v", "h264_vaapi", "-bf", "0",
                     "-rc_mode", "CQP", "-qp", "27", "-f", "null", "-"], vtksoft: true)
}

/// openh264 with the settings vtksoft gives it for FFmpeg's default h264_vaapi CQP stream.
func encodeWithOpenH264Directly() {
    var encoder: UnsafeMutablePointer<ISVCEncoder?>?
    guard WelsCreateSVCEncoder(&encoder) == 0, let encoder, let api = encoder.pointee?.pointee else { fail("WelsCreateSVCEncoder") }
    defer { WelsDestroySVCEncoder(encoder) }
    var p = SEncParamExt()
    _ = api.GetDefaultParams(encoder, &p)
    p.iUsageType = CAMERA_VIDEO_REAL_TIME
    p.iPicWidth = Int32(width)
    p.iPicHeight = Int32(height)
    p.fMaxFrameRate = 25
    p.iRCMode = RC_OFF_MODE
    p.iTemporalLayerNum = 1
    p.iSpatialLayerNum = 1
    p.uiIntraPeriod = 0
    p.bEnableSceneChangeDetect = false
    p.iNumRefFrame = 1
    p.iEntropyCodingModeFlag = 1
    p.bEnableFrameSkip = false
    p.iMultipleThreadIdc = 1
    p.bEnableAdaptiveQuant = false
    p.bEnableBackgroundDetection = false
    p.bEnableDenoise = false
    p.iMinQp = 27
    p.iMaxQp = 27
    p.sSpatialLayers.0.iVideoWidth = Int32(width)
    p.sSpatialLayers.0.iVideoHeight = Int32(height)
    p.sSpatialLayers.0.fFrameRate = 25
    p.sSpatialLayers.0.uiProfileIdc = PRO_HIGH
    p.sSpatialLayers.0.iDLayerQp = 27
    p.sSpatialLayers.0.iSpatialBitrate = 1_000_000
    p.iTargetBitrate = 1_000_000
    guard api.InitializeExt(encoder, &p) == 0 else { fail("InitializeExt") }
    defer { _ = api.Uninitialize(encoder) }
    var info = SFrameBSInfo()
    let frameSize = width * height * 3 / 2
    pictures.withUnsafeBytes { raw in
        let base = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress!)
        for index in 0..<frames {
            let y = base + index * frameSize
            var source = SSourcePicture()
            source.iColorFormat = Int32(videoFormatI420.rawValue)
            source.iPicWidth = Int32(width)
            source.iPicHeight = Int32(height)
            source.iStride = (Int32(width), Int32(width / 2), Int32(width / 2), 0)
            source.pData = (y, y + width * height, y + width * height * 5 / 4, nil)
            source.uiTimeStamp = Int64(index * 40)
            guard api.EncodeFrame(encoder, &source, &info) == 0 else { fail("EncodeFrame") }
        }
    }
}

struct Row {
    let name: String
    var vtksoft: [Double] = []
    var software: [Double] = []
}

var decode = Row(name: "Decode 720p, 300 frames (ffmpeg VA-API via vtksoft vs ffmpeg -threads 1 software)")
var encode = Row(name: "Encode 720p, 300 frames, CQP 27 (ffmpeg h264_vaapi via vtksoft vs openh264 in-process)")
decodeThroughVTKSoft()  // warm caches once
for _ in 0..<repetitions {
    decode.vtksoft.append(seconds(decodeThroughVTKSoft))
    decode.software.append(seconds(decodeInSoftware))
    encode.vtksoft.append(seconds(encodeThroughVTKSoft))
    encode.software.append(seconds(encodeWithOpenH264Directly))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func cell(_ values: [Double]) -> String {
    String(format: "%.3f s (%.3f–%.3f)", median(values), values.min() ?? 0, values.max() ?? 0)
}

print("| Workload | through vtksoft: median (min–max) | software directly: median (min–max) | overhead |")
print("|---|---|---|---|")
for row in [decode, encode] {
    let overhead = (median(row.vtksoft) / median(row.software) - 1) * 100
    print("| \(row.name) | \(cell(row.vtksoft)) | \(cell(row.software)) | \(String(format: "%+.1f%%", overhead)) |")
}
print("\n\(repetitions) alternating repetitions; \(ProcessInfo.processInfo.activeProcessorCount) cores.")
