import Foundation
import H265Bitstream
@testable import H265Encoding
import Testing
import VTKTestSupport

/// FFmpeg's software HEVC decoder as the oracle for the engine: pictures made at run time are coded,
/// the stream is decoded by FFmpeg, and every sample of the engine's reconstruction must equal FFmpeg's.
///
/// Rules of comparison: all pictures, all three planes, the whole coded size (the SPS has no conformance
/// window); FFmpeg must print no error. A PSNR floor guards against a reconstruction that matches only
/// because both sides decode the same garbage.
@Suite(.enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed: the engine oracle cannot run"))
struct H265EngineOracleTests {
    @discardableResult
    static func check(_ c: H265EngineHarness.Config, minPSNR: Double = 30, label: String) throws -> H265CodingStatistics {
        let result = try H265EngineHarness.encode(c)
        let (errors, decoded) = try H265EngineHarness.ffmpegDecode(result.stream, bitDepth: c.bitDepth)
        #expect(errors.isEmpty, "\(label): FFmpeg says \(errors.prefix(400))")
        let mismatch = H265EngineHarness.firstMismatch(result, decoded: decoded)
        #expect(mismatch == nil, "\(label): \(mismatch ?? "")")
        let psnr = H265EngineHarness.lumaPSNR(result)
        #expect(psnr >= minPSNR, "\(label): Y-PSNR \(psnr)")
        print("H265EngineOracle: \(label): \(result.stream.count) bytes, Y-PSNR \(String(format: "%.2f", psnr)) dB, \(result.statistics)")
        return result.statistics
    }

    @Test("I pictures, CTB 16/32/64, QPs 4 to 51", arguments: [(4, 22), (5, 37), (6, 51), (4, 4)])
    func intra(_ ctbAndQP: (Int, Int)) throws {
        var c = H265EngineHarness.Config()
        c.width = 96
        c.height = 80
        c.log2Ctb = ctbAndQP.0
        c.log2MaxTb = min(ctbAndQP.0, 5)
        c.qp = ctbAndQP.1
        try Self.check(c, minPSNR: ctbAndQP.1 > 40 ? 15 : ctbAndQP.1 > 30 ? 24 : 30, label: "I CTB \(1 << ctbAndQP.0) QP \(ctbAndQP.1)")
    }

    @Test("I pictures: SAO syntax, slices, sign data hiding, cu_qp_delta, PCM and bypass allowed, chroma QP offsets")
    func intraTools() throws {
        var c = H265EngineHarness.Config()
        c.width = 80
        c.height = 72
        c.sao = true
        c.ctbsPerSlice = 7
        c.signDataHiding = true
        c.cuQpDelta = true
        c.pcm = true
        c.transquantBypass = true
        c.cbQpOffset = 3
        c.crQpOffset = -2
        c.qp = 27
        try Self.check(c, label: "I tools")
    }

    @Test("I pictures: 4x4 transform blocks (chroma after the fourth), 8x8 largest transform, deblocking offsets and off")
    func intraTransformSizes() throws {
        var c = H265EngineHarness.Config()
        c.width = 48
        c.height = 40
        c.log2MaxTb = 2
        c.log2Ctb = 4
        c.betaOffsetDiv2 = 3
        c.tcOffsetDiv2 = -2
        try Self.check(c, label: "I 4x4 TBs")
        c.log2MaxTb = 3
        c.betaOffsetDiv2 = -1
        c.tcOffsetDiv2 = 4
        try Self.check(c, label: "I 8x8 TBs")
        c.deblockingDisabled = true
        c.height = 48
        c.log2MinTb = 3
        c.log2MinCb = 4
        c.log2MaxTb = 4
        try Self.check(c, label: "I deblocking off, 16x16 CBs")
    }

    @Test("Main 10 I pictures")
    func main10() throws {
        var c = H265EngineHarness.Config()
        c.bitDepth = 10
        c.qp = 20
        try Self.check(c, label: "Main 10 I")
    }

    @Test("P pictures: skip, merge, AMVP, quarter-sample motion, one and two references", arguments: [1, 2])
    func pPictures(_ refs: Int) throws {
        var c = H265EngineHarness.Config()
        c.frames = 4
        c.laterType = .p
        c.refs = refs
        let s = try Self.check(c, label: "P refs \(refs)")
        #expect(s.mergeCUs > 0 && s.amvpCUs > 0, "\(s)")
    }

    @Test("Still pictures: P and B coding units are skipped")
    func still() throws {
        var c = H265EngineHarness.Config()
        c.frames = 3
        c.still = true
        c.qp = 36
        c.tmvp = true
        var s = try Self.check(c, minPSNR: 25, label: "still P")
        #expect(s.skippedCUs > 0, "\(s)")
        c.laterType = .b
        s = try Self.check(c, minPSNR: 25, label: "still B")
        #expect(s.skippedCUs > 0, "\(s)")
    }

    @Test("P pictures with temporal MV prediction, CTB 32, 3 merge candidates, parallel merge level 16")
    func pTemporal() throws {
        var c = H265EngineHarness.Config()
        c.width = 96
        c.frames = 4
        c.log2Ctb = 5
        c.log2MaxTb = 5
        c.tmvp = true
        c.refs = 2
        c.maxMergeCand = 3
        c.parallelMergeLevelMinus2 = 2
        c.amp = true
        let s = try Self.check(c, label: "P TMVP")
        #expect(s.skippedCUs + s.mergeCUs > 0 && s.amvpCUs > 0, "\(s)")
    }

    @Test("Low-delay B pictures: bi-prediction, TMVP from either list, mvd_l1_zero, cabac_init_flag", arguments: [false, true])
    func lowDelayB(_ variant: Bool) throws {
        var c = H265EngineHarness.Config()
        c.frames = 4
        c.laterType = .b
        c.refs = 2
        c.tmvp = true
        c.collocatedFromL0 = variant
        c.collocatedRefIdx = 1
        c.mvdL1Zero = variant
        c.cabacInitFlag = !variant
        c.signDataHiding = variant
        c.sao = variant
        let s = try Self.check(c, label: "low-delay B \(variant)")
        #expect(s.biPredictedCUs > 0 && s.amvpCUs > 0, "\(s)")
    }

    @Test("Random access B pictures (a later reference, TMVP scaling), slices, Main 10")
    func randomAccessB() throws {
        var c = H265EngineHarness.Config()
        c.frames = 5
        c.randomAccessB = true
        c.refs = 2
        c.tmvp = true
        c.collocatedFromL0 = false
        c.ctbsPerSlice = 5
        let s = try Self.check(c, label: "random access B")
        #expect(s.biPredictedCUs > 0 && s.amvpCUs > 0, "\(s)")
        c.bitDepth = 10
        c.ctbsPerSlice = 0
        try Self.check(c, label: "random access B, Main 10")
    }

    @Test func sizesThatAreNotWholeMinimumCodingBlocksAreRefused() throws {
        var c = H265EngineHarness.Config()
        c.height = 40
        c.log2MinCb = 4
        c.log2MinTb = 3
        #expect(throws: H265EncodingError.self) { try H265EngineHarness.encode(c) }
    }
}
