import Foundation
import H265Bitstream
@testable import H265Encoding
import VTKTestSupport

/// Builds H.265 Annex B streams with the engine from pictures made at run time, and decodes them with
/// FFmpeg's software decoder for comparison with the engine's reconstructions.
enum H265EngineHarness {
    struct Config {
        var width = 64, height = 64
        var bitDepth = 8
        var log2Ctb = 4, log2MinCb = 3, log2MinTb = 2, log2MaxTb = 4
        var maxTransformDepthIntra = 1, maxTransformDepthInter = 1
        var qp = 30
        var sao = false
        /// With `sao`: slice_sao_luma_flag and slice_sao_chroma_flag.
        var saoLuma = true, saoChroma = true
        /// slice_loop_filter_across_slices_enabled_flag (the PPS enables it).
        var loopFilterAcrossSlices = true
        var strongIntraSmoothing = true
        var signDataHiding = false
        var cuQpDelta = false
        var deblockingDisabled = false
        var betaOffsetDiv2 = 0, tcOffsetDiv2 = 0
        var cbQpOffset = 0, crQpOffset = 0
        var pcm = false
        var transquantBypass = false
        /// CTBs per slice (0: one slice).
        var ctbsPerSlice = 0
        var frames = 1
        /// Slice type of every picture after the first (an IDR I picture); P and B reference the picture before.
        var laterType = H265SliceType.p
        var cabacInitFlag = false
        /// Reference pictures per list (the most recent first), at most the pictures before.
        var refs = 1
        var tmvp = false
        var collocatedFromL0 = true
        var collocatedRefIdx = 0
        var maxMergeCand = 5
        var mvdL1Zero = false
        var parallelMergeLevelMinus2 = 0
        var amp = false
        /// Code pictures 0, 2, 1 (POC order 0, 1, 2): the B picture 1 refers to a later picture too.
        var randomAccessB = false
        /// Every picture the same as the first (its blocks should be skipped).
        var still = false
        /// Pictures to code instead of the generated ones (by POC, at the configured size and bit depth).
        var sources: [H265EncoderPicture] = []
        /// The SAO decision's λ scale (below 1: offsets that barely pay are coded too).
        var saoLambdaScale = 1.0
    }

    /// A picture of gradients, edges, texture and noise, different for each index.
    static func sourcePicture(_ c: Config, index requested: Int) -> H265EncoderPicture {
        let index = c.still ? 0 : requested
        if !c.sources.isEmpty { return c.sources[index % c.sources.count] }
        var rng = SeededRandom(seed: UInt64(1000 + index))
        let maxValue = (1 << c.bitDepth) - 1
        func plane(_ w: Int, _ h: Int, _ phase: Int) -> [UInt16] {
            var out = [UInt16](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    // The pattern moves by (2, 1) samples per picture, the lower half by (-3, 2).
                    let lower = y > h / 2
                    let sx = x + (lower ? -3 : 2) * index + 40, sy = y + (lower ? 2 : 1) * index + 40
                    var v = (sx * 3 + sy * 2 + phase) % 256
                    if (sx / 13 + sy / 11) % 3 == 0 { v = 255 - v }
                    if sx % 37 > 25 && sy % 29 < 12 { v = (v / 32) * 32 }
                    v += Int(rng.next() % 9) - 4
                    out[y * w + x] = UInt16(min(max(v, 0), 255) * maxValue / 255)
                }
            }
            return out
        }
        return H265EncoderPicture(width: c.width, height: c.height, bitDepth: c.bitDepth,
                                  luma: plane(c.width, c.height, 0), cb: plane(c.width / 2, c.height / 2, 60),
                                  cr: plane(c.width / 2, c.height / 2, 140))
    }

    static func parameterSets(_ c: Config) -> (VideoParameterSet, H265SequenceParameterSet, H265PictureParameterSet) {
        var vps = VideoParameterSet()
        var ptl = ProfileTierLevel()
        ptl.generalProfileIdc = c.bitDepth == 8 ? 1 : 2
        ptl.generalProfileCompatibilityFlags = c.bitDepth == 8 ? 0x6000_0000 : 0x2000_0000
        ptl.generalProgressiveSourceFlag = true
        ptl.generalFrameOnlyConstraintFlag = true
        ptl.generalLevelIdc = 93
        vps.profileTierLevel = ptl
        vps.maxDecPicBufferingMinus1 = [2]
        vps.maxNumReorderPics = [0]
        vps.maxLatencyIncreasePlus1 = [0]
        var sps = H265SequenceParameterSet()
        sps.profileTierLevel = ptl
        sps.picWidthInLumaSamples = c.width
        sps.picHeightInLumaSamples = c.height
        sps.bitDepthLumaMinus8 = c.bitDepth - 8
        sps.bitDepthChromaMinus8 = c.bitDepth - 8
        sps.log2MaxPicOrderCntLsbMinus4 = 4
        sps.maxDecPicBufferingMinus1 = [2]
        sps.maxNumReorderPics = [0]
        sps.maxLatencyIncreasePlus1 = [0]
        sps.log2MinLumaCodingBlockSizeMinus3 = c.log2MinCb - 3
        sps.log2DiffMaxMinLumaCodingBlockSize = c.log2Ctb - c.log2MinCb
        sps.log2MinLumaTransformBlockSizeMinus2 = c.log2MinTb - 2
        sps.log2DiffMaxMinLumaTransformBlockSize = c.log2MaxTb - c.log2MinTb
        sps.maxTransformHierarchyDepthIntra = c.maxTransformDepthIntra
        sps.maxTransformHierarchyDepthInter = c.maxTransformDepthInter
        sps.sampleAdaptiveOffsetEnabledFlag = c.sao
        sps.temporalMvpEnabledFlag = c.tmvp
        sps.ampEnabledFlag = c.amp
        if c.randomAccessB { sps.maxNumReorderPics = [1]; vps.maxNumReorderPics = [1] }
        sps.strongIntraSmoothingEnabledFlag = c.strongIntraSmoothing
        sps.pcmEnabledFlag = c.pcm
        if c.pcm {
            sps.pcmSampleBitDepthLumaMinus1 = 7
            sps.pcmSampleBitDepthChromaMinus1 = 7
            sps.log2MinPcmLumaCodingBlockSizeMinus3 = 0
            sps.log2DiffMaxMinPcmLumaCodingBlockSize = 1
        }
        var set = ShortTermReferencePictureSet()
        set.deltaPocS0 = [-1]
        set.usedByCurrPicS0 = [true]
        sps.shortTermRefPicSets = [set]
        var pps = H265PictureParameterSet()
        pps.signDataHidingEnabledFlag = c.signDataHiding
        pps.cuQpDeltaEnabledFlag = c.cuQpDelta
        pps.cbQpOffset = c.cbQpOffset
        pps.crQpOffset = c.crQpOffset
        pps.cabacInitPresentFlag = true
        pps.transquantBypassEnabledFlag = c.transquantBypass
        pps.loopFilterAcrossSlicesEnabledFlag = true
        pps.log2ParallelMergeLevelMinus2 = c.parallelMergeLevelMinus2
        pps.deblockingFilterControlPresentFlag = true
        pps.deblockingFilterDisabledFlag = c.deblockingDisabled
        pps.betaOffsetDiv2 = c.betaOffsetDiv2
        pps.tcOffsetDiv2 = c.tcOffsetDiv2
        return (vps, sps, pps)
    }

    struct Result {
        var stream: [UInt8]
        var reconstructions: [H265EncoderPicture]
        var sources: [H265EncoderPicture]
        /// Summed over the pictures.
        var statistics = H265CodingStatistics()
    }

    /// Encodes `c.frames` pictures: an IDR, then pictures of `c.laterType` each referencing the one before.
    static func encode(_ c: Config) throws -> Result {
        let (vps, sps, pps) = parameterSets(c)
        _ = vps
        var stream: [UInt8] = []
        for unit in [vps.nalUnit(), sps.nalUnit(), pps.nalUnit()] { stream += [0, 0, 0, 1] + unit }
        var engine = H265PictureEncoder()
        engine.saoLambdaScale = c.saoLambdaScale
        var recons: [H265EncoderPicture] = [], sources: [H265EncoderPicture] = []
        let ctbs = sps.picSizeInCtbs
        let perSlice = c.ctbsPerSlice > 0 ? c.ctbsPerSlice : ctbs
        // Coding order: POC 0, 1, 2, ...; random access: 0, 2, 1, 4, 3, ...
        let order: [Int] = c.randomAccessB
            ? [0] + stride(from: 1, to: c.frames, by: 2).flatMap { $0 + 1 < c.frames ? [$0 + 1, $0] : [$0] }
            : Array(0..<c.frames)
        var coded: [(poc: Int, picture: H265EncoderPicture)] = []
        var statistics = H265CodingStatistics()
        for poc in order {
            let source = sourcePicture(c, index: poc)
            let isB = c.randomAccessB ? poc % 2 == 1 : c.laterType == .b
            let type: H265SliceType = poc == 0 ? .i : (isB ? .b : (c.randomAccessB ? .p : c.laterType))
            // References: the nearest coded pictures before (L0) and, for random access B, after.
            let before = coded.filter { $0.poc < poc }.sorted { $0.poc > $1.poc }.prefix(c.refs)
            let after = coded.filter { $0.poc > poc }.sorted { $0.poc < $1.poc }.prefix(c.refs)
            var set = ShortTermReferencePictureSet()
            set.deltaPocS0 = before.map { $0.poc - poc }
            set.usedByCurrPicS0 = before.map { _ in true }
            set.deltaPocS1 = after.map { $0.poc - poc }
            set.usedByCurrPicS1 = after.map { _ in true }
            // Keep every other coded picture in the RPS too, so that none is dropped while still needed.
            for other in coded where !before.contains(where: { $0.poc == other.poc }) && !after.contains(where: { $0.poc == other.poc }) {
                if other.poc < poc { set.deltaPocS0.append(other.poc - poc); set.usedByCurrPicS0.append(false) }
                else { set.deltaPocS1.append(other.poc - poc); set.usedByCurrPicS1.append(false) }
            }
            let s0 = zip(set.deltaPocS0, set.usedByCurrPicS0).sorted { $0.0 > $1.0 }
            set.deltaPocS0 = s0.map(\.0); set.usedByCurrPicS0 = s0.map(\.1)
            let s1 = zip(set.deltaPocS1, set.usedByCurrPicS1).sorted { $0.0 < $1.0 }
            set.deltaPocS1 = s1.map(\.0); set.usedByCurrPicS1 = s1.map(\.1)
            let list0 = Array(before) + Array(after), list1 = Array(after) + Array(before)
            var slices: [H265SliceRequest] = []
            var address = 0
            while address < ctbs {
                let count = min(perSlice, ctbs - address)
                var h = H265SliceSegmentHeader()
                h.nalUnitType = poc == 0 ? .idrWRADL : .trailR
                h.firstSliceSegmentInPicFlag = address == 0
                h.sliceSegmentAddress = address
                h.sliceType = type
                h.picOrderCntLsb = poc % 256
                if poc > 0 {
                    h.shortTermRefPicSetSpsFlag = false
                    h.shortTermRefPicSet = set
                    h.cabacInitFlag = c.cabacInitFlag
                    h.temporalMvpEnabledFlag = c.tmvp
                }
                if type != .i {
                    h.numRefIdxActiveOverrideFlag = true
                    h.numRefIdxL0ActiveMinus1 = list0.count - 1
                    h.numRefIdxL1ActiveMinus1 = type == .b ? list1.count - 1 : 0
                    h.collocatedFromL0Flag = type == .b ? c.collocatedFromL0 : true
                    h.collocatedRefIdx = min(c.collocatedRefIdx, (h.collocatedFromL0Flag ? list0.count : list1.count) - 1)
                    h.fiveMinusMaxNumMergeCand = 5 - c.maxMergeCand
                    h.mvdL1ZeroFlag = type == .b && c.mvdL1Zero
                }
                h.saoLumaFlag = c.sao && c.saoLuma
                h.saoChromaFlag = c.sao && c.saoChroma
                h.qpDelta = c.qp - 26
                h.deblockingFilterDisabledFlag = c.deblockingDisabled
                h.betaOffsetDiv2 = c.betaOffsetDiv2
                h.tcOffsetDiv2 = c.tcOffsetDiv2
                h.loopFilterAcrossSlicesEnabledFlag = c.loopFilterAcrossSlices
                slices.append(H265SliceRequest(header: h, ctbCount: count))
                address += count
            }
            let refs0 = type == .i ? [] : list0.map { H265ReferencePicture(picture: $0.picture, picOrderCnt: $0.poc) }
            let refs1 = type == .b ? list1.map { H265ReferencePicture(picture: $0.picture, picOrderCnt: $0.poc) } : []
            let request = H265EncodeRequest(vps: vps, sps: sps, pps: pps, slices: slices, source: source,
                                            refPicList0: refs0, refPicList1: refs1, picOrderCnt: poc)
            let result = try engine.encode(request)
            for unit in result.sliceNALUnits { stream += [0, 0, 0, 1] + unit }
            coded.append((poc, result.reconstruction))
            statistics.intraCUs += result.statistics.intraCUs
            statistics.skippedCUs += result.statistics.skippedCUs
            statistics.mergeCUs += result.statistics.mergeCUs
            statistics.amvpCUs += result.statistics.amvpCUs
            statistics.biPredictedCUs += result.statistics.biPredictedCUs
            statistics.saoBandComponents += result.statistics.saoBandComponents
            statistics.saoEdgeComponents += result.statistics.saoEdgeComponents
            statistics.saoMergedCTBs += result.statistics.saoMergedCTBs
        }
        // Output (POC) order, as FFmpeg gives the pictures.
        for (poc, picture) in coded.sorted(by: { $0.poc < $1.poc }) {
            recons.append(picture)
            sources.append(sourcePicture(c, index: poc))
        }
        return Result(stream: stream, reconstructions: recons, sources: sources, statistics: statistics)
    }

    /// FFmpeg's decode of `stream` as raw I420 (8 bits) or yuv420p10le, and its error output.
    static func ffmpegDecode(_ stream: [UInt8], bitDepth: Int) throws -> (errors: String, bytes: [UInt8]) {
        let input = TestPaths.scratch.appendingPathComponent("h265-engine-\(UUID().uuidString).265")
        let output = TestPaths.scratch.appendingPathComponent("h265-engine-\(UUID().uuidString).yuv")
        try Data(stream).write(to: input)
        if let keep = ProcessInfo.processInfo.environment["H265_ENGINE_DUMP"] { try? Data(stream).write(to: URL(fileURLWithPath: keep)) }
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", input.path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                                 "-pix_fmt", bitDepth == 8 ? "yuv420p" : "yuv420p10le", "-y", output.path])
        let bytes = (try? Data(contentsOf: output)).map { [UInt8]($0) } ?? []
        return (r.stderrText, bytes)
    }

    /// Where the engine's reconstructions first differ from FFmpeg's decode, or nil when equal.
    static func firstMismatch(_ result: Result, decoded: [UInt8]) -> String? {
        var offset = 0
        for (i, picture) in result.reconstructions.enumerated() {
            let ours = picture.i420Bytes()
            guard offset + ours.count <= decoded.count else { return "FFmpeg decoded \(decoded.count) bytes, picture \(i) needs \(offset + ours.count)" }
            let theirs = Array(decoded[offset..<(offset + ours.count)])
            if ours != theirs, let k = zip(ours, theirs).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                let sampleBytes = picture.bitDepth > 8 ? 2 : 1
                let s = k / sampleBytes
                let lumaCount = picture.width * picture.height
                let plane = s < lumaCount ? "Y" : s < lumaCount * 5 / 4 ? "Cb" : "Cr"
                let local = s < lumaCount ? s : s < lumaCount * 5 / 4 ? s - lumaCount : s - lumaCount * 5 / 4
                let w = s < lumaCount ? picture.width : picture.width / 2
                return "picture \(i): first difference in \(plane) at (\(local % w), \(local / w)): engine \(ours[k]), FFmpeg \(theirs[k])"
            }
            offset += ours.count
        }
        if offset != decoded.count { return "FFmpeg decoded \(decoded.count) bytes, the engine made \(offset)" }
        return nil
    }

    /// `frames` pictures of the 720p conformance stream (natural content), the width x height area at (x, y),
    /// at `bitDepth` (10: the 8-bit samples shifted up); nil without ../shared.
    static func naturalPictures(width: Int, height: Int, x: Int, y: Int, frames: Int, bitDepth: Int) throws -> [H265EncoderPicture]? {
        guard let shared = TestPaths.shared else { return nil }
        let input = shared.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264")
        let output = TestPaths.scratch.appendingPathComponent("h265-natural-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", input.path, "-frames:v", "\(frames)", "-vf", "crop=\(width):\(height):\(x):\(y)",
                                             "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", output.path])
        let bytes = [UInt8]((try? Data(contentsOf: output)) ?? Data())
        let size = width * height * 3 / 2
        guard bytes.count >= size * frames else { return nil }
        return (0..<frames).map { i in
            let base = i * size, shift = bitDepth - 8
            func plane(_ from: Int, _ count: Int) -> [UInt16] { bytes[(base + from)..<(base + from + count)].map { UInt16($0) << shift } }
            return H265EncoderPicture(width: width, height: height, bitDepth: bitDepth, luma: plane(0, width * height),
                                      cb: plane(width * height, width * height / 4), cr: plane(width * height * 5 / 4, width * height / 4))
        }
    }

    /// Y-PSNR of the reconstructions against the sources.
    static func lumaPSNR(_ result: Result) -> Double {
        var se = 0.0, n = 0.0
        for (r, s) in zip(result.reconstructions, result.sources) {
            for (a, b) in zip(r.luma, s.luma) { let d = Double(Int(a) - Int(b)); se += d * d }
            n += Double(r.luma.count)
        }
        let peak = Double((1 << (result.reconstructions.first?.bitDepth ?? 8)) - 1)
        return se == 0 ? 99 : 10 * log10(peak * peak * n / se)
    }
}
