import Foundation
import H264Bitstream
@testable import H264Encoding
import Testing
import VTKTestSupport

/// A fade made at run time (FFmpeg's `fade` filter over testsrc2): P pictures with explicit weights from a
/// simple estimate (each picture's scale of the previous one, from the luma means above black and the chroma
/// distances from grey) cost fewer bits than the default prediction at as good a PSNR, and stay bit-exact.
@Suite("Encoder engine: explicit weights on a fade")
struct EngineWeightedFadeTests {
    static let frames = EngineHarness.testsrc2(width: 160, height: 96, frames: 8, filter: "fade=t=out:s=0:n=8")

    /// The scale k of picture `n` against picture `n − 1` (luma above 16, chroma around 128), as weights with
    /// denominators 6 and the offsets that keep black and grey where they are.
    static func table(_ n: Int) -> PredWeightTable {
        func mean(_ p: [UInt8]) -> Double { Double(p.reduce(0) { $0 + Int($1) }) / Double(p.count) }
        func spread(_ p: [UInt8]) -> Double { p.reduce(0.0) { $0 + abs(Double($1) - 128) } / Double(p.count) }
        let cur = frames[n], ref = frames[max(0, n - 1)]
        let k = max(0, (mean(cur.y) - 16) / max(1, mean(ref.y) - 16))
        let kc = max(0, (spread(cur.cb) + spread(cur.cr)) / max(1, spread(ref.cb) + spread(ref.cr)))
        var t = PredWeightTable()
        t.lumaLog2WeightDenom = 6
        t.chromaLog2WeightDenom = 6
        var e = PredWeightTable.Entry()
        (e.lumaWeightFlag, e.lumaWeight, e.lumaOffset) = (true, min(127, Int((64 * k).rounded())), Int((16 * (1 - k)).rounded()))
        let cw = min(127, Int((64 * kc).rounded())), co = Int((128 * (1 - kc)).rounded())
        (e.chromaWeightFlag, e.chromaWeight, e.chromaOffset) = (true, [cw, cw], [max(-128, min(127, co)), max(-128, min(127, co))])
        t.l0 = [e]
        return t
    }

    @Test("A fade to black: fewer bits with explicit weights than without, PSNR as good, reconstruction equal to FFmpeg's decode")
    func fade() throws {
        let frames = Self.frames
        guard !frames.isEmpty else { try Test.cancel("skipping: no ffmpeg") }
        var c = EngineHarness.Config()
        c.qp = 27
        c.pattern = (0..<frames.count).map { ($0 == 0 ? .i : .p, $0) }
        let plain = try EngineHarness.encode(frames, c)
        c.weightTable = { display, _, _ in Self.table(display) }
        let weighted = try EngineHarness.encode(frames, c)
        let decoded = try EngineHarness.ffmpegDecode(weighted.stream, width: 160, height: 96)
        #expect(decoded.errors.isEmpty, "FFmpeg: \(decoded.errors)")
        let mismatch = EngineHarness.firstMismatch(weighted.reconstructions, decoded.frames)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        let psnrPlain = EngineHarness.psnr(plain.reconstructions, frames), psnrWeighted = EngineHarness.psnr(weighted.reconstructions, frames)
        print("fade: \(plain.bits) bits, \(psnrPlain) dB without weights; \(weighted.bits) bits, \(psnrWeighted) dB with")
        #expect(Double(weighted.bits) < 0.9 * Double(plain.bits), "\(weighted.bits) bits with weights, \(plain.bits) without")
        #expect(psnrWeighted >= psnrPlain - 0.05, "Y-PSNR \(psnrWeighted) with weights, \(psnrPlain) without")
    }
}
