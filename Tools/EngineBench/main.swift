// engine-bench: speed and rate-distortion of vtksoft's own H.264 engine (H264Encoding) on real 720p
// content, beside openh264 at the same PSNR. Times are CPU time of this thread (the machine is shared).
//
//   swift run -c release engine-bench [--frames N] [--qp Q] [--bframes] [--cabac] [--openh264] [--input file.264] [--output out.264]
//                                     [--slices N] [--slice-threads 1|2]
// With --slices, the picture is cut into N slices of whole macroblock rows and the engine codes them on
// --slice-threads threads (default 2): the summary then also gives wall time and the process's CPU time.
import BenchSupport
import Foundation
import H264Bitstream
import H264Encoding

struct Options {
    var frames = 300
    var qp = 27
    var bframes = false
    var cabac = false
    var openh264 = false
    var output: String? = nil  // the coded stream (slices only, Annex B), to compare runs bit for bit
    var input = "../shared/conformance/h264/VID_1280x720_cavlc_temporal_direct.264"
    var width = 1280, height = 720
    var slices = 1
    var sliceThreads = 2
}

var options = Options()
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--frames": options.frames = Int(args.next() ?? "") ?? options.frames
    case "--qp": options.qp = Int(args.next() ?? "") ?? options.qp
    case "--bframes": options.bframes = true
    case "--cabac": options.cabac = true
    case "--openh264": options.openh264 = true
    case "--input": options.input = args.next() ?? options.input
    case "--output": options.output = args.next()
    case "--slices": options.slices = max(1, Int(args.next() ?? "") ?? 1)
    case "--slice-threads": options.sliceThreads = max(1, Int(args.next() ?? "") ?? 2)
    case "--size":
        let parts = (args.next() ?? "").split(separator: "x").compactMap { Int($0) }
        if parts.count == 2 { options.width = parts[0]; options.height = parts[1] }
    default:
        FileHandle.standardError.write("unknown option \(a)\n".data(using: .utf8)!)
        exit(2)
    }
}

func seconds(_ clock: clockid_t) -> Double {
    var t = timespec()
    clock_gettime(clock, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Decodes the input with ffmpeg into I420 frames.
/// A `.yuv` input is read as raw I420 (for valgrind, under which spawning ffmpeg fails).
@MainActor func decodeInput() -> Data {
    if options.input.hasSuffix(".yuv") {
        let all = (try? Data(contentsOf: URL(fileURLWithPath: options.input))) ?? Data()
        return all.prefix(options.frames * options.width * options.height * 3 / 2)
    }
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("engine-bench-\(getpid()).yuv")
    defer { try? FileManager.default.removeItem(at: out) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    p.arguments = ["-v", "error", "-i", options.input, "-frames:v", "\(options.frames)", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", out.path]
    try? p.run()
    p.waitUntilExit()
    return (try? Data(contentsOf: out)) ?? Data()
}

let yuv = decodeInput()
let w = options.width, h = options.height
let frameSize = w * h * 3 / 2
let frameCount = min(options.frames, yuv.count / frameSize)
guard frameCount > 0 else { print("no frames decoded from \(options.input)"); exit(1) }

@MainActor func picture(_ index: Int) -> EncoderPicture {
    var p = EncoderPicture(widthInMbs: (w + 15) / 16, heightInMbs: (h + 15) / 16)
    yuv.withUnsafeBytes { raw in
        let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + index * frameSize
        for (plane, offset, pw, ph) in [(\EncoderPicture.luma, 0, w, h), (\EncoderPicture.cb, w * h, w / 2, h / 2), (\EncoderPicture.cr, w * h * 5 / 4, w / 2, h / 2)] {
            let dstPlane = p[keyPath: plane]
            p[keyPath: plane].samples.withUnsafeMutableBufferPointer { dst in
                for y in 0..<dstPlane.height {
                    let sy = min(y, ph - 1)
                    let row = dst.baseAddress! + dstPlane.index(0, y)
                    row.update(from: base + offset + sy * pw, count: pw)
                    for x in pw..<dstPlane.width { row[x] = row[pw - 1] }
                }
            }
        }
    }
    return p
}

// Parameter sets as FFmpeg's h264_vaapi would send them (Main/High, one reference, deblocking on).
var sps = SequenceParameterSet()
sps.profileIdc = 100
sps.levelIdc = 41
sps.log2MaxFrameNumMinus4 = 4
sps.log2MaxPicOrderCntLsbMinus4 = 6
sps.maxNumRefFrames = 2
sps.picWidthInMbsMinus1 = (w + 15) / 16 - 1
sps.picHeightInMapUnitsMinus1 = (h + 15) / 16 - 1
var pps = PictureParameterSet()
pps.entropyCodingModeFlag = options.cabac
pps.deblockingFilterControlPresentFlag = true

// Coding order: I0 P1 P2 ... or I0 P2 B1 P4 B3 ...
var pattern: [(SliceType, Int)] = [(.i, 0)]
if options.bframes {
    var d = 2
    while d < frameCount { pattern.append((.p, d)); pattern.append((.b, d - 1)); d += 2 }
    if d - 1 < frameCount && d - 1 > pattern.last!.1 { pattern.append((.p, d - 1)) }
} else {
    for d in 1..<frameCount { pattern.append((.p, d)) }
}

var encoder = H264PictureEncoder(sliceConcurrency: options.sliceThreads)
var wallSeconds = 0.0, processSeconds = 0.0
var references: [ReferencePicture] = []
var totalBits = 0
var sumSE = 0.0
var encodeSeconds = 0.0
var frameNum = 0
var psnrSum = 0.0
var coded = Data()
for (codingIndex, (type, display)) in pattern.enumerated() {
    let source = picture(display)
    var header = SliceHeader()
    header.nalUnitType = codingIndex == 0 ? .idrSlice : .nonIDRSlice
    header.nalRefIdc = type == .b ? 0 : 2
    header.sliceTypeRaw = type.rawValue
    header.frameNum = frameNum % 256
    header.picOrderCntLsb = (2 * display) % 1024
    header.directSpatialMvPredFlag = true
    header.sliceQpDelta = options.qp - 26
    header.decRefPicMarking = DecRefPicMarking()
    var l0: [ReferencePicture] = [], l1: [ReferencePicture] = []
    let poc = 2 * display
    if type == .p { l0 = [references.last!] }
    if type == .b {
        l0 = [references.filter { $0.picOrderCnt < poc }.max { $0.picOrderCnt < $1.picOrderCnt }!]
        l1 = [references.filter { $0.picOrderCnt > poc }.min { $0.picOrderCnt < $1.picOrderCnt }!]
    }
    // slices of whole macroblock rows, the last taking the remainder
    let rows = sps.frameHeightInMbs, sliceCount = min(options.slices, rows)
    var slices: [SliceRequest] = []
    for k in 0..<sliceCount {
        let first = k * (rows / sliceCount), last = k == sliceCount - 1 ? rows : (k + 1) * (rows / sliceCount)
        header.firstMbInSlice = first * sps.picWidthInMbs
        slices.append(SliceRequest(header: header, macroblockCount: (last - first) * sps.picWidthInMbs))
    }
    let request = EncodeRequest(sps: sps, pps: pps, slices: slices, source: source, refPicList0: l0, refPicList1: l1, picOrderCnt: poc)
    let start = cpuSeconds(), wallStart = seconds(CLOCK_MONOTONIC), processStart = seconds(CLOCK_PROCESS_CPUTIME_ID)
    let out = try encoder.encode(request)
    encodeSeconds += cpuSeconds() - start
    wallSeconds += seconds(CLOCK_MONOTONIC) - wallStart
    processSeconds += seconds(CLOCK_PROCESS_CPUTIME_ID) - processStart
    totalBits += out.sliceNALUnits.reduce(0) { $0 + 8 * ($1.count + 4) }
    if options.output != nil { for nal in out.sliceNALUnits { coded.append(contentsOf: [0, 0, 0, 1] + nal) } }
    var se = 0.0
    for y in 0..<h {
        for x in 0..<w {
            let d = Double(Int(out.reconstruction.luma.samples[out.reconstruction.luma.index(x, y)]) - Int(source.luma.samples[source.luma.index(x, y)]))
            se += d * d
        }
    }
    sumSE += se
    psnrSum += se == 0 ? 99 : 10 * log10(255 * 255 * Double(w * h) / se)
    if type != .b {
        references.append(ReferencePicture(picture: out.reconstruction, picOrderCnt: poc))
        if references.count > 2 { references.removeFirst() }
        frameNum += 1
    }
}
if let output = options.output { try coded.write(to: URL(fileURLWithPath: output)) }
let seconds = Double(frameCount) / 30
let psnr = psnrSum / Double(frameCount)
print(String(format: "engine  %@ %@ QP %d: %d frames, %.1f fps (CPU), Y-PSNR %.2f dB, %.0f kb/s",
             options.cabac ? "CABAC" : "CAVLC", options.bframes ? "IPB" : "IPP", options.qp, frameCount,
             Double(frameCount) / encodeSeconds, psnr, Double(totalBits) / seconds / 1000))
if options.slices > 1 {
    print(String(format: "engine  %d slices on %d thread(s): %.2f s wall, %.2f s process CPU, %.2f s this thread's CPU",
                 options.slices, options.sliceThreads, wallSeconds, processSeconds, encodeSeconds))
}

if options.openh264 {
    // openh264 at several QPs: Y-PSNR from FFmpeg's decode of its output, then the rate at our PSNR.
    var points: [(psnr: Double, kbps: Double)] = []
    for qp in stride(from: options.qp - 4, through: options.qp + 4, by: 2) {
        var stream = Data()
        let start = cpuSeconds()
        let bytes = try yuv.withUnsafeBytes { raw in
            try OpenH264Direct.encode(raw, width: w, height: h, frames: frameCount, qp: Int32(qp), bitRate: nil, keyint: 0) { stream.append(contentsOf: $0) }
        }
        let fps = Double(frameCount) / (cpuSeconds() - start)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("engine-bench-oh264-\(getpid()).264")
        try stream.write(to: file)
        let dec = FileManager.default.temporaryDirectory.appendingPathComponent("engine-bench-oh264-\(getpid()).yuv")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", file.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", dec.path]
        try p.run(); p.waitUntilExit()
        let decoded = try Data(contentsOf: dec)
        try? FileManager.default.removeItem(at: file); try? FileManager.default.removeItem(at: dec)
        var sum = 0.0
        for f in 0..<frameCount {
            var se = 0.0
            decoded.withUnsafeBytes { a in
                yuv.withUnsafeBytes { b in
                    let pa = a.baseAddress!.assumingMemoryBound(to: UInt8.self) + f * frameSize
                    let pb = b.baseAddress!.assumingMemoryBound(to: UInt8.self) + f * frameSize
                    for i in 0..<(w * h) { let d = Double(Int(pa[i]) - Int(pb[i])); se += d * d }
                }
            }
            sum += se == 0 ? 99 : 10 * log10(255 * 255 * Double(w * h) / se)
        }
        let point = (psnr: sum / Double(frameCount), kbps: Double(bytes * 8) / seconds / 1000)
        points.append(point)
        print(String(format: "openh264 QP %d: %.1f fps (CPU, one thread), Y-PSNR %.2f dB, %.0f kb/s", qp, fps, point.psnr, point.kbps))
    }
    points.sort { $0.psnr < $1.psnr }
    if let hi = points.firstIndex(where: { $0.psnr >= psnr }), hi > 0 {
        let a = points[hi - 1], b = points[hi]
        let t = (psnr - a.psnr) / (b.psnr - a.psnr)
        let rate = exp(log(a.kbps) + t * (log(b.kbps) - log(a.kbps)))
        print(String(format: "openh264 at %.2f dB: %.0f kb/s; engine / openh264 = %.2f", psnr, rate, Double(totalBits) / seconds / 1000 / rate))
    }
}
