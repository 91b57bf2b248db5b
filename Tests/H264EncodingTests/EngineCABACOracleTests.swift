import H264Bitstream
@testable import H264Encoding
import Testing
import VTKTestSupport

/// The engine's pictures coded with CABAC: its reconstruction must equal FFmpeg's software decode of the
/// output, bit for bit, and the CABAC stream must decode to the same pixels as the engine's CAVLC stream
/// of the same pictures (same decisions, other entropy coder).
@Suite("Encoder engine with CABAC against FFmpeg's decoder")
struct EngineCABACOracleTests {
    /// Returns the CABAC encoding.
    @discardableResult
    func check(_ frames: [EngineHarness.Frame], _ config: EngineHarness.Config) throws -> EngineHarness.Result {
        guard !frames.isEmpty, ProcessRunner.hasFFmpeg else {
            try Test.cancel(Comment(rawValue: "skipping: \(TestPaths.sharedMissingMessage) or no ffmpeg"))
        }
        var cabacConfig = config
        cabacConfig.cavlc = false
        let cabac = try EngineHarness.encode(frames, cabacConfig)
        let decoded = try EngineHarness.ffmpegDecode(cabac.stream, width: frames[0].width, height: frames[0].height)
        #expect(decoded.errors.isEmpty, "FFmpeg: \(decoded.errors)")
        #expect(decoded.frames.count == config.pattern.count)
        let mismatch = EngineHarness.firstMismatch(cabac.reconstructions, decoded.frames)
        #expect(mismatch == nil, "CABAC recon vs FFmpeg: \(mismatch ?? "")")

        var cavlcConfig = config
        cavlcConfig.cavlc = true
        let cavlc = try EngineHarness.encode(frames, cavlcConfig)
        let twin = EngineHarness.firstMismatch(cavlc.reconstructions, decoded.frames)
        #expect(twin == nil, "CAVLC recon vs FFmpeg's CABAC decode: \(twin ?? "")")
        // At QP 0 the bins outrun the bytes and cabac_zero_words (9.3.4.6) can make CABAC the larger stream.
        if config.qp >= 12 { #expect(cabac.bits < cavlc.bits, "CABAC \(cabac.bits) bits, CAVLC \(cavlc.bits)") }
        return cabac
    }

    @Test("I pictures, QPs 0 to 51", arguments: [0, 22, 27, 32, 51])
    func intra(qp: Int) throws {
        var c = EngineHarness.Config()
        c.qp = qp
        c.pattern = [(.i, 0)]
        try check(EncoderOracleTests.cisco, c)
    }

    @Test("16x8 and 8x16 partitions in P (two references) and B pictures of a pyramid, Main and High profile (CABAC against FFmpeg and its CAVLC twin)",
          arguments: [(false, 27), (true, 32)])
    func partitions(high: Bool, qp: Int) throws {
        var c = high ? EncoderOracleTests.high(qp: qp, deblockingIdc: 0, cavlc: false) : EngineHarness.Config()
        c.qp = qp
        c.referencesP = 2
        c.pattern = [(.i, 0), (.p, 4), (.b, 2), (.b, 1), (.b, 3), (.p, 8), (.b, 6), (.b, 5), (.b, 7)]
        c.referenceB = [2, 6]
        let result = try check(EncoderOracleTests.ciscoAll, c)
        #expect(EncoderOracleTests.partitioned(result, c.pattern, .p) > 0, "\(result.partitionedCounts)")
        #expect(EncoderOracleTests.partitioned(result, c.pattern, .b) > 0, "\(result.partitionedCounts)")
    }

    @Test("I, P and B pictures; slices and deblocking controls")
    func inter() throws {
        var c = EngineHarness.Config()
        c.pattern = [(.i, 0), (.p, 2), (.b, 1)]
        try check(EncoderOracleTests.cisco, c)
        for (idc, slices, qp) in [(1, 2, 32), (2, 3, 22)] {
            c.deblockingIdc = idc
            c.slicesPerPicture = slices
            c.qp = qp
            try check(EncoderOracleTests.small, c)
        }
    }

    @Test("High profile: the 8x8 transform in P and B macroblocks (ctxBlockCat 5), QPs and deblocking",
          arguments: zip([0, 18, 27, 36, 51], [0, 1, 0, 2, 1]))
    func transform8x8(qp: Int, deblockingIdc: Int) throws {
        let c = EncoderOracleTests.high(qp: qp, deblockingIdc: deblockingIdc, cavlc: false)
        let counts = try check(EncoderOracleTests.ciscoAll, c).transform8x8Counts
        // (at QP 36 a B picture of partitions and skips may have no luma coefficients at all)
        if qp <= 27 { #expect(counts.dropFirst().allSatisfy { $0 > 0 }, "8x8 macroblocks per picture: \(counts)") }
        if qp <= 36 { #expect(counts.dropFirst().reduce(0, +) > 0, "8x8 macroblocks per picture: \(counts)") }
    }

    @Test("High profile I pictures: Intra 8x8, QPs and deblocking", arguments: zip([0, 20, 32, 51], [0, 2, 1, 0]))
    func intra8x8(qp: Int, deblockingIdc: Int) throws {
        var c = EncoderOracleTests.high(qp: qp, deblockingIdc: deblockingIdc, cavlc: false)
        c.pattern = [(.i, 0)]
        let counts = try check(EncoderOracleTests.cisco, c).transform8x8Counts
        if qp <= 32 { #expect(counts.allSatisfy { $0 > 0 }, "8x8 macroblocks per picture: \(counts)") }
    }

    @Test("cabac_init_idc 1 and 2, Main and High profile: every initialisation column, the 8x8 contexts (402...435) included", arguments: [1, 2])
    func transform8x8InitColumns(cabacInitIdc: Int) throws {
        var c = EncoderOracleTests.high(qp: 26, deblockingIdc: 0, cavlc: false)
        c.cabacInitIdc = cabacInitIdc
        var main = c
        main.transform8x8Mode = false
        try check(EncoderOracleTests.ciscoAll, main)
        let counts = try check(EncoderOracleTests.ciscoAll, c).transform8x8Counts
        #expect(counts.dropFirst().allSatisfy { $0 > 0 }, "8x8 macroblocks per picture: \(counts)")
    }

    @Test("High profile, slices and constrained intra prediction: transform_size_8x8_flag contexts at slice edges")
    func transform8x8Slices() throws {
        var c = EncoderOracleTests.high(qp: 30, deblockingIdc: 0, cavlc: false)
        c.slicesPerPicture = 3
        c.constrainedIntraPred = true
        try check(EncoderOracleTests.ciscoAll, c)
    }

    @Test("P and B pictures with constrained intra prediction and a High profile PPS (transform_8x8_mode_flag)")
    func constrainedIntraHigh() throws {
        var c = EngineHarness.Config()
        c.transform8x8Mode = true
        c.constrainedIntraPred = true
        c.slicesPerPicture = 2
        c.pattern = [(.i, 0), (.p, 2), (.b, 1)]
        try check(EncoderOracleTests.small, c)
    }
}
