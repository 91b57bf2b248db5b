// h265-engine-bench: speed and rate-distortion of vtksoft's own H.265 engine (H265Encoding) on real 720p
// content. Times are CPU time of this thread (the machine is shared). The engine's reconstruction equals a
// decoder's output (the oracle tests check it), so PSNR is measured on it directly.
//
//   swift run -c release h265-engine-bench [--frames N] [--qp Q] [--bframes] [--ctb 16|32|64] [--sao] [--output out.265]
//                                          [--input stream | --yuv file.yuv --size WxH]
import Foundation
import H265Bitstream
import H265Encoding

struct Options {
    var frames = 60
    var qp = 27
    var lowDelayB = false
    var log2Ctb = 5
    /// Sample adaptive offset on (SPS and slices).
    var sao = false
    var output: String? = nil
    var input = "../shared/conformance/h264/VID_1280x720_cavlc_temporal_direct.264"
    /// Raw I420 input instead of a stream to decode.
    var yuv: String? = nil
    var width = 1280, height = 720
}

var options = Options()
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--frames": options.frames = Int(args.next() ?? "") ?? options.frames
    case "--qp": options.qp = Int(args.next() ?? "") ?? options.qp
    case "--bframes": options.lowDelayB = true
    case "--sao": options.sao = true
    case "--ctb": options.log2Ctb = (Int(args.next() ?? "") ?? 32).trailingZeroBitCount
    case "--input": options.input = args.next() ?? options.input
    case "--output": options.output = args.next()
    case "--yuv": options.yuv = args.next()
    case "--size":
        let parts = (args.next() ?? "").split(separator: "x").compactMap { Int($0) }
        if parts.count == 2 { options.width = parts[0]; options.height = parts[1] }
    default:
        FileHandle.standardError.write(Data("unknown option \(a)\n".utf8))
        exit(2)
    }
}

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The input decoded by ffmpeg into I420 frames.
@MainActor func decodeInput() -> Data {
    if let yuv = options.yuv {
        return ((try? Data(contentsOf: URL(fileURLWithPath: yuv))) ?? Data()).prefix(options.frames * options.width * options.height * 3 / 2)
    }
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("h265-engine-bench-\(getpid()).yuv")
    defer { try? FileManager.default.removeItem(at: out) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    p.arguments = ["-v", "error", "-i", options.input, "-frames:v", "\(options.frames)", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", out.path]
    try? p.run()
    p.waitUntilExit()
    return (try? Data(contentsOf: out)) ?? Data()
}

let yuv = [UInt8](decodeInput())
let w = options.width, h = options.height
let frameSize = w * h * 3 / 2
let frameCount = min(options.frames, yuv.count / frameSize)
guard frameCount > 0 else { print("no frames decoded from \(options.input)"); exit(1) }

@MainActor func picture(_ index: Int) -> H265EncoderPicture {
    let base = index * frameSize
    return H265EncoderPicture(width: w, height: h, luma8: Array(yuv[base..<(base + w * h)]),
                              cb8: Array(yuv[(base + w * h)..<(base + w * h * 5 / 4)]), cr8: Array(yuv[(base + w * h * 5 / 4)..<(base + frameSize)]))
}

// Parameter sets in the shape FFmpeg's hevc_vaapi sends: Main, CTB 32 (or as asked), 8x8 to CTB coding blocks,
// 4x4 to 32x32 transforms, TMVP on, one reference, deblocking on.
var ptl = ProfileTierLevel()
ptl.generalProfileIdc = 1
ptl.generalProfileCompatibilityFlags = 0x6000_0000
ptl.generalLevelIdc = 120
var vps = VideoParameterSet()
vps.profileTierLevel = ptl
vps.maxDecPicBufferingMinus1 = [1]
vps.maxNumReorderPics = [0]
vps.maxLatencyIncreasePlus1 = [0]
var sps = H265SequenceParameterSet()
sps.profileTierLevel = ptl
sps.picWidthInLumaSamples = w
sps.picHeightInLumaSamples = h
sps.log2MaxPicOrderCntLsbMinus4 = 4
sps.maxDecPicBufferingMinus1 = [1]
sps.maxNumReorderPics = [0]
sps.maxLatencyIncreasePlus1 = [0]
sps.log2DiffMaxMinLumaCodingBlockSize = options.log2Ctb - 3
sps.log2DiffMaxMinLumaTransformBlockSize = 3
sps.maxTransformHierarchyDepthInter = 3
sps.maxTransformHierarchyDepthIntra = 3
sps.temporalMvpEnabledFlag = true
sps.strongIntraSmoothingEnabledFlag = true
sps.sampleAdaptiveOffsetEnabledFlag = options.sao
var set = ShortTermReferencePictureSet()
set.deltaPocS0 = [-1]
set.usedByCurrPicS0 = [true]
sps.shortTermRefPicSets = [set]
var pps = H265PictureParameterSet()
pps.loopFilterAcrossSlicesEnabledFlag = true
pps.deblockingFilterControlPresentFlag = true

/// Σ (a − b)² over two planes, in integers: exact, as the per-sample Double sum was (every partial sum is an integer
/// far below 2^53), and a loop that vectorises.
func squaredDifference(_ a: [UInt16], _ b: [UInt16]) -> Int {
    a.withUnsafeBufferPointer { pa in
        b.withUnsafeBufferPointer { pb in
            var sum = 0
            for i in 0..<min(pa.count, pb.count) {
                let d = Int32(pa[i]) &- Int32(pb[i])
                sum &+= Int(d &* d)
            }
            return sum
        }
    }
}

var encoder = H265PictureEncoder()
var stream: [UInt8] = []
for unit in [vps.nalUnit(), sps.nalUnit(), pps.nalUnit()] { stream += [0, 0, 0, 1] + unit }
var previous: H265ReferencePicture?
var seconds = 0.0
var squaredError = 0.0
var statistics = H265CodingStatistics()
for index in 0..<frameCount {
    let source = picture(index)
    var header = H265SliceSegmentHeader()
    header.nalUnitType = index == 0 ? .idrWRADL : .trailR
    header.firstSliceSegmentInPicFlag = true
    header.sliceType = index == 0 ? .i : (options.lowDelayB ? .b : .p)
    header.picOrderCntLsb = index % 256
    header.qpDelta = options.qp - 26
    header.loopFilterAcrossSlicesEnabledFlag = true
    header.saoLumaFlag = options.sao
    header.saoChromaFlag = options.sao
    if index > 0 {
        header.shortTermRefPicSetSpsFlag = true
        header.shortTermRefPicSet = set
        header.temporalMvpEnabledFlag = true
    }
    let refs = previous.map { [$0] } ?? []
    let request = H265EncodeRequest(vps: vps, sps: sps, pps: pps, slices: [H265SliceRequest(header: header, ctbCount: sps.picSizeInCtbs)],
                                    source: source, refPicList0: refs, refPicList1: options.lowDelayB ? refs : [], picOrderCnt: index)
    let start = cpuSeconds()
    let coded: H265EncodedPicture
    do { coded = try encoder.encode(request) } catch { print("encode failed: \(error)"); exit(1) }
    seconds += cpuSeconds() - start
    for unit in coded.sliceNALUnits { stream += [0, 0, 0, 1] + unit }
    squaredError += Double(squaredDifference(coded.reconstruction.luma, source.luma))
    previous = H265ReferencePicture(picture: coded.reconstruction, picOrderCnt: index)
    statistics.intraCUs += coded.statistics.intraCUs
    statistics.skippedCUs += coded.statistics.skippedCUs
    statistics.mergeCUs += coded.statistics.mergeCUs
    statistics.amvpCUs += coded.statistics.amvpCUs
    statistics.biPredictedCUs += coded.statistics.biPredictedCUs
    statistics.saoBandComponents += coded.statistics.saoBandComponents
    statistics.saoEdgeComponents += coded.statistics.saoEdgeComponents
    statistics.saoMergedCTBs += coded.statistics.saoMergedCTBs
}
if let output = options.output { try? Data(stream).write(to: URL(fileURLWithPath: output)) }
let psnr = 10 * log10(255.0 * 255.0 * Double(frameCount * w * h) / max(squaredError, 1))
let kbps = Double(stream.count * 8) / Double(frameCount) * 30 / 1000
print(String(format: "h265-engine: %d frames %dx%d QP %d: %.2f fps per CPU second, %.1f kbit/s at 30 fps, Y-PSNR %.2f dB",
             frameCount, w, h, options.qp, Double(frameCount) / seconds, kbps, psnr))
print("h265-engine: \(statistics)")
