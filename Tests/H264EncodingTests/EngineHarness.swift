import Foundation
import H264Bitstream
@testable import H264Encoding
import VTKTestSupport

/// Builds Annex B streams with the engine and checks them against FFmpeg's software decoder.
enum EngineHarness {
    struct Frame {
        var width: Int, height: Int
        var y: [UInt8], cb: [UInt8], cr: [UInt8]
    }

    /// `frames` frames of FFmpeg's testsrc2 at `width`x`height` (through `filter` when given), made now; none without FFmpeg.
    static func testsrc2(width: Int, height: Int, frames: Int, filter: String? = nil) -> [Frame] {
        guard ProcessRunner.hasFFmpeg else { return [] }
        let url = TestPaths.scratch.appendingPathComponent("testsrc2-\(width)x\(height)-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: url) }
        guard let r = try? ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30"]
                                             + (filter.map { ["-vf", $0] } ?? [])
                                             + ["-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-y", url.path]),
              r.status == 0 else { return [] }
        return (try? readI420(url, width: width, height: height, frames: frames)) ?? []
    }

    /// Reads I420 frames from a raw file.
    static func readI420(_ url: URL, width: Int, height: Int, frames: Int) throws -> [Frame] {
        let data = try Data(contentsOf: url)
        let size = width * height * 3 / 2
        return (0..<min(frames, data.count / size)).map { i in
            let base = i * size
            let y = [UInt8](data[base..<(base + width * height)])
            let cb = [UInt8](data[(base + width * height)..<(base + width * height * 5 / 4)])
            let cr = [UInt8](data[(base + width * height * 5 / 4)..<(base + size)])
            return Frame(width: width, height: height, y: y, cb: cb, cr: cr)
        }
    }

    /// The first frames of a conformance stream, decoded by FFmpeg.
    static func decodeConformance(_ name: String, width: Int, height: Int, frames: Int) throws -> [Frame]? {
        guard let shared = TestPaths.shared else { return nil }
        let out = TestPaths.scratch.appendingPathComponent("src-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", shared.appendingPathComponent("conformance/h264/\(name)").path,
                                                 "-frames:v", "\(frames)", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", out.path])
        guard r.status == 0 else { return nil }
        return try readI420(out, width: width, height: height, frames: frames)
    }

    static func picture(_ f: Frame) -> EncoderPicture {
        var p = EncoderPicture(widthInMbs: (f.width + 15) / 16, heightInMbs: (f.height + 15) / 16)
        // Each plane is filled as a local value and stored once: a write per sample through the picture's
        // observed properties copied the whole plane each time (minutes per picture under ThreadSanitizer).
        func filled(_ plane: PaddedPlane, _ src: [UInt8], _ w: Int, _ h: Int) -> PaddedPlane {
            var plane = plane
            for y in 0..<plane.height {
                for x in 0..<plane.width { plane.samples[plane.index(x, y)] = src[min(y, h - 1) * w + min(x, w - 1)] }
            }
            return plane
        }
        p.luma = filled(p.luma, f.y, f.width, f.height)
        p.cb = filled(p.cb, f.cb, f.width / 2, f.height / 2)
        p.cr = filled(p.cr, f.cr, f.width / 2, f.height / 2)
        return p
    }

    struct Config {
        var qp = 27
        /// false: CABAC (PPS entropy_coding_mode_flag 1), for the CABAC back end.
        var cavlc = true
        var constrainedIntraPred = false
        var deblockingIdc = 0
        var alphaOffsetDiv2 = 0, betaOffsetDiv2 = 0
        var chromaQPOffset = 0
        var slicesPerPicture = 1
        /// H264PictureEncoder.sliceConcurrency: 2 codes a picture's slices in two groups at once.
        var sliceConcurrency = 2
        /// H264PictureEncoder.usableProcessors: with 2 and one slice, the rows are coded as a wavefront (nil: this machine's).
        var usableProcessors: Int? = nil
        /// High profile PPS with transform_8x8_mode_flag (the engine may choose the 8x8 transform).
        var transform8x8Mode = false
        /// SPS direct_8x8_inference_flag (B_Direct_16x16 may use the 8x8 transform only with it).
        var direct8x8Inference = true
        /// cabac_init_idc of P and B slices (CABAC only): which column of context initialisation (9.3.1.1).
        var cabacInitIdc = 0
        /// Coding pattern in decoding order: slice type and display index.
        var pattern: [(SliceType, Int)] = [(.i, 0)]
        /// Display indices of B pictures that are references (a pyramid): later B pictures then have a B
        /// picture as RefPicList1[0], whose motion their direct prediction reads (8.4.1.2.2).
        var referenceB: Set<Int> = []
        /// RefPicList0 of P pictures: up to this many references, the most recent first (8.2.4.2.1);
        /// num_ref_idx_l0_active_minus1 overridden in the slice header when more than one.
        var referencesP = 1
        /// PPS weighted_bipred_idc: 1 explicit (``weightTable``), 2 implicit from POC distances (8.4.3).
        var weightedBipredIdc = 0
        /// PPS weighted_pred_flag 1 (explicit weights in P slices) when set: the pred_weight_table of a P or
        /// (weighted_bipred_idc 1) B picture, from its display index and its lists' sizes.
        var weightTable: (@Sendable (_ display: Int, _ l0: Int, _ l1: Int) -> PredWeightTable)? = nil
    }

    static func parameterSets(width: Int, height: Int, _ c: Config) -> (SequenceParameterSet, PictureParameterSet) {
        var sps = SequenceParameterSet()
        sps.profileIdc = c.transform8x8Mode ? 100 : 77
        sps.levelIdc = 40
        sps.direct8x8InferenceFlag = c.direct8x8Inference
        sps.log2MaxFrameNumMinus4 = 4
        sps.picOrderCntType = 0
        sps.log2MaxPicOrderCntLsbMinus4 = 4
        sps.maxNumRefFrames = max(c.referenceB.isEmpty ? 2 : 3, c.referencesP)
        sps.picWidthInMbsMinus1 = (width + 15) / 16 - 1
        sps.picHeightInMapUnitsMinus1 = (height + 15) / 16 - 1
        if width % 16 != 0 || height % 16 != 0 {
            sps.frameCroppingFlag = true
            sps.frameCropRightOffset = ((width + 15) / 16 * 16 - width) / 2
            sps.frameCropBottomOffset = ((height + 15) / 16 * 16 - height) / 2
        }
        // FFmpeg reorders B pictures by this, not by guessing.
        sps.vuiParametersPresentFlag = true
        sps.vui.bitstreamRestrictionFlag = true
        sps.vui.maxNumReorderFrames = c.pattern.contains { $0.0 == .b } ? (c.referenceB.isEmpty ? 1 : 2) : 0
        sps.vui.maxDecFrameBuffering = sps.maxNumRefFrames
        var pps = PictureParameterSet()
        pps.entropyCodingModeFlag = !c.cavlc
        pps.deblockingFilterControlPresentFlag = true
        pps.constrainedIntraPredFlag = c.constrainedIntraPred
        pps.weightedPredFlag = c.weightTable != nil
        pps.weightedBipredIdc = c.weightedBipredIdc
        pps.chromaQpIndexOffset = c.chromaQPOffset
        pps.secondChromaQpIndexOffset = c.chromaQPOffset
        if c.transform8x8Mode {
            pps.hasHighProfileTail = true
            pps.transform8x8ModeFlag = true
            pps.secondChromaQpIndexOffset = c.chromaQPOffset + 2
        }
        return (sps, pps)
    }

    struct Result {
        var stream: [UInt8]
        /// Reconstructions in display order, cropped to the frame size.
        var reconstructions: [Frame]
        var bits: Int
        /// The largest ref_idx_l0 any macroblock used.
        var maxRefIdxL0 = -1
        /// Macroblocks coded with transform_size_8x8_flag = 1, per picture in coding order.
        var transform8x8Counts: [Int] = []
        /// Macroblocks coded with 16x8 or 8x16 partitions, per picture in coding order.
        var partitionedCounts: [Int] = []
    }

    static func encode(_ frames: [Frame], _ c: Config) throws -> Result {
        let width = frames[0].width, height = frames[0].height
        let (sps, pps) = parameterSets(width: width, height: height, c)
        var stream: [UInt8] = []
        func append(_ nal: [UInt8]) { stream += [0, 0, 0, 1] + nal }
        append(Array(sps.nalUnit().bytes))
        append(Array(pps.nalUnit(sps: sps).bytes))
        var encoder = H264PictureEncoder(sliceConcurrency: c.sliceConcurrency)
        if let usable = c.usableProcessors { encoder.usableProcessors = usable }
        var references: [ReferencePicture] = []  // most recent last
        var recons = [Frame?](repeating: nil, count: c.pattern.map { $0.1 }.max()! + 1)
        var frameNum = 0
        var bits = 0
        var maxRefIdxL0 = -1
        var transform8x8Counts: [Int] = []
        var partitionedCounts: [Int] = []
        let mbs = sps.picWidthInMbs * sps.frameHeightInMbs
        for (codingIndex, (type, display)) in c.pattern.enumerated() {
            let isReference = type != .b || c.referenceB.contains(display)
            let poc = 2 * display
            // Default lists (8.2.4.2): P by recency; B by POC before / after.
            var l0: [ReferencePicture] = [], l1: [ReferencePicture] = []
            if type == .p { l0 = Array(references.reversed().prefix(c.referencesP)) }
            if type == .b {
                l0 = [references.filter { $0.picOrderCnt < poc }.max { $0.picOrderCnt < $1.picOrderCnt }!]
                l1 = [references.filter { $0.picOrderCnt > poc }.min { $0.picOrderCnt < $1.picOrderCnt }!]
            }
            var slices: [SliceRequest] = []
            var first = 0
            for s in 0..<c.slicesPerPicture {
                let count = s == c.slicesPerPicture - 1 ? mbs - first : mbs / c.slicesPerPicture
                var h = SliceHeader()
                h.nalUnitType = codingIndex == 0 ? .idrSlice : .nonIDRSlice
                h.nalRefIdc = isReference ? 2 : 0
                h.firstMbInSlice = first
                h.sliceTypeRaw = type.rawValue
                h.frameNum = frameNum % 256
                h.picOrderCntLsb = poc % 256
                h.directSpatialMvPredFlag = true
                h.sliceQpDelta = c.qp - 26
                if !c.cavlc && type != .i { h.cabacInitIdc = c.cabacInitIdc }
                h.disableDeblockingFilterIdc = c.deblockingIdc
                h.sliceAlphaC0OffsetDiv2 = c.alphaOffsetDiv2
                h.sliceBetaOffsetDiv2 = c.betaOffsetDiv2
                h.decRefPicMarking = DecRefPicMarking()
                if type == .p && c.referencesP > 1 && references.count > 1 {
                    h.numRefIdxActiveOverrideFlag = true
                    h.numRefIdxL0ActiveMinus1 = min(c.referencesP, references.count) - 1
                }
                if let table = c.weightTable, type == .p || (type == .b && c.weightedBipredIdc == 1) {
                    h.predWeightTable = table(display, l0.count, l1.count)
                }
                slices.append(SliceRequest(header: h, macroblockCount: count))
                first += count
            }
            let request = EncodeRequest(sps: sps, pps: pps, slices: slices, source: picture(frames[display]),
                                        refPicList0: l0, refPicList1: l1, picOrderCnt: poc)
            let out = try encoder.encode(request)
            for nal in out.sliceNALUnits { append(nal); bits += nal.count * 8 }
            maxRefIdxL0 = max(maxRefIdxL0, out.maxRefIdxL0)
            transform8x8Counts.append(out.transform8x8Count)
            partitionedCounts.append(out.partitionedCount)
            recons[display] = crop(out.reconstruction, width: width, height: height)
            if isReference {
                references.append(ReferencePicture(picture: out.reconstruction, picOrderCnt: poc))
                if references.count > sps.maxNumRefFrames { references.removeFirst() }
                frameNum += 1
            }
        }
        return Result(stream: stream, reconstructions: recons.compactMap { $0 }, bits: bits, maxRefIdxL0: maxRefIdxL0,
                      transform8x8Counts: transform8x8Counts, partitionedCounts: partitionedCounts)
    }

    static func crop(_ p: EncoderPicture, width: Int, height: Int) -> Frame {
        func plane(_ pl: PaddedPlane, _ w: Int, _ h: Int) -> [UInt8] {
            var out = [UInt8](); out.reserveCapacity(w * h)
            for y in 0..<h { for x in 0..<w { out.append(pl.samples[pl.index(x, y)]) } }
            return out
        }
        return Frame(width: width, height: height, y: plane(p.luma, width, height), cb: plane(p.cb, width / 2, height / 2),
                     cr: plane(p.cr, width / 2, height / 2))
    }

    /// Decodes `stream` with FFmpeg; returns its error output and frames.
    static func ffmpegDecode(_ stream: [UInt8], width: Int, height: Int) throws -> (errors: String, frames: [Frame]) {
        let input = TestPaths.scratch.appendingPathComponent("enc-\(UUID().uuidString).264")
        let output = TestPaths.scratch.appendingPathComponent("dec-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: output) }
        try Data(stream).write(to: input)
        // ENGINE_DUMP=/path/prefix keeps each stream for inspection (ffmpeg -debug mb_type …).
        if let dump = ProcessInfo.processInfo.environment["ENGINE_DUMP"] { try? Data(stream).write(to: URL(fileURLWithPath: dump + "\(stream.count).264")) }
        let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", input.path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                                 "-pix_fmt", "yuv420p", "-y", output.path])
        let frames = (try? readI420(output, width: width, height: height, frames: 10_000)) ?? []
        return (r.stderrText + (r.status == 0 ? "" : "exit \(r.status)"), frames)
    }

    /// nil when every frame matches; else where the first difference is.
    static func firstMismatch(_ ours: [Frame], _ theirs: [Frame]) -> String? {
        if ours.count != theirs.count { return "frame count: ours \(ours.count), FFmpeg \(theirs.count)" }
        for (i, (a, b)) in zip(ours, theirs).enumerated() {
            for (name, pa, pb, w, scale) in [("Y", a.y, b.y, a.width, 16), ("Cb", a.cb, b.cb, a.width / 2, 8), ("Cr", a.cr, b.cr, a.width / 2, 8)] {
                if let k = pa.indices.first(where: { pa[$0] != pb[$0] }) {
                    let x = k % w, y = k / w
                    return "frame \(i) \(name) (\(x), \(y)): ours \(pa[k]), FFmpeg \(pb[k]); macroblock (\(x / scale), \(y / scale))"
                }
            }
        }
        return nil
    }

    static func psnr(_ a: [Frame], _ b: [Frame]) -> Double {
        var se = 0.0, n = 0.0
        for (x, y) in zip(a, b) { for (p, q) in zip(x.y, y.y) { let d = Double(Int(p) - Int(q)); se += d * d }; n += Double(x.y.count) }
        return se == 0 ? 99 : 10 * log10(255 * 255 * n / se)
    }
}
