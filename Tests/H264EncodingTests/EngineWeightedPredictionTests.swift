import H264Bitstream
@testable import H264Encoding
import Testing
import VTKTestSupport

/// Weighted sample prediction (8.4.2.3): the engine's reconstruction of pictures coded with implicit weights
/// (weighted_bipred_idc 2) and explicit ones (weighted_pred_flag, weighted_bipred_idc 1) must equal FFmpeg's
/// software decode of its output, bit for bit, with CAVLC and with CABAC.
@Suite("Encoder engine: weighted prediction against FFmpeg's decoder")
struct EngineWeightedPredictionTests {
    func check(_ frames: [EngineHarness.Frame], _ config: EngineHarness.Config) throws {
        guard !frames.isEmpty, ProcessRunner.hasFFmpeg else {
            try Test.cancel(Comment(rawValue: "skipping: \(TestPaths.sharedMissingMessage) or no ffmpeg"))
        }
        for cavlc in [true, false] {
            var c = config
            c.cavlc = cavlc
            let result = try EngineHarness.encode(frames, c)
            let decoded = try EngineHarness.ffmpegDecode(result.stream, width: frames[0].width, height: frames[0].height)
            #expect(decoded.errors.isEmpty, "\(cavlc ? "CAVLC" : "CABAC"): FFmpeg: \(decoded.errors)")
            #expect(decoded.frames.count == config.pattern.count)
            let mismatch = EngineHarness.firstMismatch(result.reconstructions, decoded.frames)
            #expect(mismatch == nil, "\(cavlc ? "CAVLC" : "CABAC"): \(mismatch ?? "")")
        }
    }

    /// Runs of two and three B pictures between anchors three and four apart: B pictures nearer one anchor, so
    /// implicit weights other than 32/32; the second run's first B, a reference (``EngineHarness/Config/referenceB``),
    /// is RefPicList1[0] of the B before it.
    static let unevenRuns: [(SliceType, Int)] = [(.i, 0), (.p, 3), (.b, 1), (.b, 2), (.p, 7), (.b, 5), (.b, 4), (.b, 6)]

    @Test("Implicit weights (8.4.3) from POC distances: 64 − DistScaleFactor / 4 and DistScaleFactor / 4, 32 each where undefined")
    func implicitWeights() {
        func ref(_ poc: Int, longTerm: Bool = false) -> ReferencePicture {
            ReferencePicture(picture: EncoderPicture(widthInMbs: 1, heightInMbs: 1), picOrderCnt: poc, isLongTerm: longTerm)
        }
        // tb 2, td 6: tx = (16384 + 3) / 6 = 2731, DistScaleFactor = (2 · 2731 + 32) >> 6 = 85, w1 = 21.
        #expect(PredictionWeights.implicitW1(current: 2, ref(0), ref(6)) == 21)
        // Halfway: 32.
        #expect(PredictionWeights.implicitW1(current: 4, ref(0), ref(8)) == 32)
        // Both references before the picture (tb 8, td 4): DistScaleFactor 512, w1 128, w0 −64.
        #expect(PredictionWeights.implicitW1(current: 8, ref(0), ref(4)) == 128)
        // Past the range (w1 > 128) or with a long-term reference or equal POCs: 32.
        #expect(PredictionWeights.implicitW1(current: 10, ref(0), ref(4)) == 32)
        #expect(PredictionWeights.implicitW1(current: 2, ref(0, longTerm: true), ref(6)) == 32)
        #expect(PredictionWeights.implicitW1(current: 2, ref(6), ref(6)) == 32)
        // Negative tb: the picture before both (tb −2, td 4): DistScaleFactor −128 >> 2 = −32.
        #expect(PredictionWeights.implicitW1(current: -2, ref(0), ref(4)) == -32)
    }

    @Test("B pictures with implicit weights (weighted_bipred_idc 2): Bi 16x16, B_Direct_16x16 and B_Skip", arguments: [22, 32])
    func implicitBipred(qp: Int) throws {
        var c = EngineHarness.Config()
        c.qp = qp
        c.weightedBipredIdc = 2
        c.pattern = Self.unevenRuns
        c.referenceB = [5]
        try check(EncoderOracleTests.ciscoAll, c)
        // The weights change the prediction: the stream is not the one of the default prediction.
        guard !EncoderOracleTests.ciscoAll.isEmpty else { return }
        var plain = c
        plain.weightedBipredIdc = 0
        #expect(try EngineHarness.encode(EncoderOracleTests.ciscoAll, c).stream != EngineHarness.encode(EncoderOracleTests.ciscoAll, plain).stream)
    }

    /// A table with weights other than the default for each entry: a fade-like luma scale with an offset, chroma
    /// its own, every second entry of a list with flags 0 (default weights).
    static func table(denominator: Int, l0: Int, l1: Int, bipred: Bool) -> PredWeightTable {
        var t = PredWeightTable()
        t.lumaLog2WeightDenom = denominator
        t.chromaLog2WeightDenom = max(0, denominator - 1)
        func entry(_ k: Int, list: Int) -> PredWeightTable.Entry {
            var e = PredWeightTable.Entry()
            e.lumaWeightFlag = k % 2 == 0
            e.chromaWeightFlag = k % 2 == 0
            let one = 1 << denominator, chromaOne = 1 << t.chromaLog2WeightDenom
            // B pairs stay within 8.4.2.3.2's −128 <= w0 + w1 <= 128.
            e.lumaWeight = bipred ? (list == 0 ? one * 3 / 4 : one / 2 + 1) : one + one / 4 - k
            e.lumaOffset = list == 0 ? -3 + k : 5
            e.chromaWeight = [chromaOne - 1, bipred ? chromaOne / 2 : chromaOne + 2]
            e.chromaOffset = [2, -4]
            return e
        }
        t.l0 = (0..<l0).map { entry($0, list: 0) }
        t.l1 = (0..<l1).map { entry($0, list: 1) }
        return t
    }

    @Test("P pictures with explicit weights (weighted_pred_flag 1): P_L0_16x16 and P_Skip, several references, logWD 0 and 5",
          arguments: [0, 5])
    func explicitP(denominator: Int) throws {
        var c = EngineHarness.Config()
        c.referencesP = 3
        c.weightTable = { _, l0, l1 in Self.table(denominator: denominator, l0: l0, l1: l1, bipred: false) }
        c.pattern = [(.i, 0), (.p, 1), (.p, 2), (.p, 3), (.p, 4)]
        try check(EncoderOracleTests.ciscoAll, c)
    }

    @Test("B pictures with explicit weights (weighted_bipred_idc 1): L0, L1, Bi and direct, each list its own weights; Main and High (8x8 transform)",
          arguments: [false, true])
    func explicitBipred(high: Bool) throws {
        var c = EngineHarness.Config()
        c.transform8x8Mode = high
        c.weightedBipredIdc = 1
        c.weightTable = { _, l0, l1 in Self.table(denominator: 6, l0: l0, l1: l1, bipred: l1 > 0) }
        c.pattern = Self.unevenRuns
        c.referenceB = [5]
        try check(EncoderOracleTests.ciscoAll, c)
    }

    @Test("Weights the spec forbids are refused with a reason, never coded")
    func refusals() throws {
        var c = EngineHarness.Config()
        c.pattern = [(.p, 0)]
        let (sps, basePPS) = EngineHarness.parameterSets(width: 32, height: 32, c)
        let source = EncoderPicture(widthInMbs: 2, heightInMbs: 2)
        let list = [ReferencePicture(picture: source, picOrderCnt: 0)]
        func request(_ edit: (inout PictureParameterSet, inout SliceHeader) -> Void) -> EncodeRequest {
            var pps = basePPS
            var h = SliceHeader()
            h.sliceTypeRaw = 0
            edit(&pps, &h)
            return EncodeRequest(sps: sps, pps: pps, slices: [SliceRequest(header: h, macroblockCount: 4)], source: source,
                                 refPicList0: list, picOrderCnt: 2)
        }
        var encoder = H264PictureEncoder()
        #expect(throws: EncodingError.inconsistent("explicit weighted prediction without a pred_weight_table")) {
            try encoder.encode(request { p, _ in p.weightedPredFlag = true })
        }
        #expect(throws: EncodingError.inconsistent("weighted_bipred_idc 3 outside 0...2")) {
            try encoder.encode(request { p, _ in p.weightedBipredIdc = 3 })
        }
        #expect(throws: EncodingError.self) {
            try encoder.encode(request { p, h in
                p.weightedPredFlag = true
                h.predWeightTable = Self.table(denominator: 8, l0: 1, l1: 0, bipred: false)
            })
        }
        #expect(throws: EncodingError.self) {
            try encoder.encode(request { p, h in
                p.weightedPredFlag = true
                var t = Self.table(denominator: 5, l0: 1, l1: 0, bipred: false)
                t.l0[0].lumaWeight = 200
                h.predWeightTable = t
            })
        }
        // Flags 0: whatever the weights hold, the defaults apply and the picture is coded.
        _ = try encoder.encode(request { p, h in
            p.weightedPredFlag = true
            var t = PredWeightTable()
            t.l0 = [PredWeightTable.Entry()]
            t.l0[0].lumaWeight = 1000
            h.predWeightTable = t
        })
    }
}
