import Foundation
import H264Bitstream
@testable import H264Encoding
import Testing
import VTKTestSupport

/// The engine's reconstruction must equal FFmpeg's software decode of its output, bit for bit.
@Suite("Encoder engine against FFmpeg's decoder")
struct EncoderOracleTests {
    static let cisco: [EngineHarness.Frame] = {
        guard let shared = TestPaths.shared else { return [] }
        return (try? EngineHarness.readI420(shared.appendingPathComponent("media/CiscoVT2people_320x192_12fps.yuv"),
                                            width: 320, height: 192, frames: 5)) ?? []
    }()
    static let small: [EngineHarness.Frame] = {
        guard let shared = TestPaths.shared else { return [] }
        return (try? EngineHarness.readI420(shared.appendingPathComponent("media/Static_152_100.yuv"),
                                            width: 152, height: 100, frames: 5)) ?? []
    }()

    func check(_ frames: [EngineHarness.Frame], _ config: EngineHarness.Config, minPSNR: Double = 0) throws {
        guard !frames.isEmpty, ProcessRunner.hasFFmpeg else {
            Issue.record("skipping: \(TestPaths.sharedMissingMessage) or no ffmpeg")
            return
        }
        let result = try EngineHarness.encode(frames, config)
        let decoded = try EngineHarness.ffmpegDecode(result.stream, width: frames[0].width, height: frames[0].height)
        #expect(decoded.errors.isEmpty, "FFmpeg: \(decoded.errors)")
        #expect(decoded.frames.count == config.pattern.count)
        let mismatch = EngineHarness.firstMismatch(result.reconstructions, decoded.frames)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        let shown = config.pattern.map { frames[$0.1] }.enumerated().sorted { config.pattern[$0.offset].1 < config.pattern[$1.offset].1 }.map { $0.element }
        let psnr = EngineHarness.psnr(result.reconstructions, shown)
        #expect(psnr >= minPSNR, "Y-PSNR \(psnr)")
    }

    @Test("I pictures, CAVLC, QPs 0 to 51", arguments: [0, 12, 27, 40, 51])
    func intra(qp: Int) throws {
        var c = EngineHarness.Config()
        c.qp = qp
        c.pattern = [(.i, 0), (.i, 1)]
        try check(Self.cisco, c, minPSNR: qp <= 27 ? 36 : 0)
    }

    @Test("I pictures: cropping, two slices, deblocking off / across slices off / offsets, chroma QP offset")
    func intraControls() throws {
        for (idc, a, b, slices, offset) in [(1, 0, 0, 2, 0), (2, 3, -2, 3, 4), (0, -6, 6, 2, -12), (0, 6, 6, 1, 0)] {
            var c = EngineHarness.Config()
            c.deblockingIdc = idc; c.alphaOffsetDiv2 = a; c.betaOffsetDiv2 = b; c.slicesPerPicture = slices; c.chromaQPOffset = offset
            c.qp = 32
            c.pattern = [(.i, 0)]
            try check(Self.small, c)
        }
    }

    @Test("P pictures: motion search, quarter samples, P_Skip", arguments: [18, 27, 38])
    func predicted(qp: Int) throws {
        var c = EngineHarness.Config()
        c.qp = qp
        c.pattern = [(.i, 0), (.p, 1), (.p, 2), (.p, 3), (.p, 4)]
        try check(Self.cisco, c)
    }

    @Test("P pictures: constrained intra prediction, slices, deblocking across slices off")
    func predictedControls() throws {
        var c = EngineHarness.Config()
        c.constrainedIntraPred = true
        c.slicesPerPicture = 2
        c.deblockingIdc = 2
        c.pattern = [(.i, 0), (.p, 1), (.p, 2)]
        try check(Self.small, c)
    }

    @Test("B pictures: L0, L1 and Bi 16x16", arguments: [0, 1])
    func bidirectional(deblockingIdc: Int) throws {
        var c = EngineHarness.Config()
        c.deblockingIdc = deblockingIdc
        c.pattern = [(.i, 0), (.p, 2), (.b, 1), (.p, 4), (.b, 3)]
        try check(Self.cisco, c)
    }

    @Test("720p: I, P and B from a conformance stream")
    func hd() throws {
        guard let frames = try EngineHarness.decodeConformance("VID_1280x720_cavlc_temporal_direct.264", width: 1280, height: 720, frames: 3) else {
            Issue.record("skipping: \(TestPaths.sharedMissingMessage)")
            return
        }
        var c = EngineHarness.Config()
        c.pattern = [(.i, 0), (.p, 2), (.b, 1)]
        try check(frames, c, minPSNR: 36)
    }
}
