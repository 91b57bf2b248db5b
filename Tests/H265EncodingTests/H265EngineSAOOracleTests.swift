import Foundation
import H265Bitstream
@testable import H265Encoding
import Testing
import VTKTestSupport

/// Sample adaptive offset under the same oracle as the rest of the engine (FFmpeg's decode equals the
/// reconstruction, every sample, every picture): band and edge offsets, merges, luma and chroma, Main and
/// Main 10, CTB 16/32/64, slices with and without filtering across them, with and without deblocking.
/// The coding statistics show that each case coded offsets (not only SaoTypeIdx 0); on the generated pictures
/// the decision's λ is lowered so that band offsets, which pay on them only at low rates, are coded too.
extension H265EngineOracleTests {
    @Test("SAO: band and edge offsets, merges, luma and chroma, by CTB size and bit depth",
          arguments: [(4, 8), (5, 8), (6, 8), (4, 10), (5, 10), (6, 10)])
    func sao(_ ctbAndBitDepth: (Int, Int)) throws {
        var c = H265EngineHarness.Config()
        c.log2Ctb = ctbAndBitDepth.0
        c.log2MaxTb = min(ctbAndBitDepth.0, 5)
        c.bitDepth = ctbAndBitDepth.1
        c.width = 3 << ctbAndBitDepth.0 + 8
        c.height = 2 << ctbAndBitDepth.0 + 8
        c.sao = true
        c.frames = 3
        c.qp = 34
        c.saoLambdaScale = 0.05
        let s = try Self.check(c, minPSNR: 24, label: "SAO CTB \(1 << c.log2Ctb), \(c.bitDepth) bits")
        #expect(s.saoBandComponents > 0 && s.saoEdgeComponents > 0, "\(s)")
    }

    @Test("SAO with slices: across slice boundaries or not, deblocking off, luma or chroma only", arguments: 0..<4)
    func saoSlices(_ variant: Int) throws {
        var c = H265EngineHarness.Config()
        c.width = 112
        c.height = 80
        c.sao = true
        c.ctbsPerSlice = [3, 5, 1, 7][variant]
        c.loopFilterAcrossSlices = variant % 2 == 0
        c.deblockingDisabled = variant == 1 || variant == 3
        c.saoLuma = variant != 2
        c.saoChroma = variant != 3
        c.frames = 2
        c.laterType = variant == 3 ? .b : .p
        // Chroma only: CTB 32, as 16x16 CTBs code no chroma edge offsets (H265SAODecision.chromaEdgeClasses).
        if variant == 2 { (c.log2Ctb, c.log2MaxTb) = (5, 5) }
        c.qp = 32
        c.saoLambdaScale = 0.3
        let s = try Self.check(c, minPSNR: 24, label: "SAO slices \(variant)")
        #expect(s.saoBandComponents > 0 && s.saoEdgeComponents > 0, "\(s)")
    }

    /// At the engine's own λ, natural content gets edge offsets and merges.
    @Test("SAO: natural content codes edge offsets and merges, Main and Main 10", arguments: [8, 10])
    func saoNatural(_ bitDepth: Int) throws {
        guard let pictures = try H265EngineHarness.naturalPictures(width: 256, height: 192, x: 512, y: 256, frames: 2, bitDepth: bitDepth) else {
            try Test.cancel(Comment(rawValue: "skipping: \(TestPaths.sharedMissingMessage)"))
        }
        var c = H265EngineHarness.Config()
        c.width = 256
        c.height = 192
        c.bitDepth = bitDepth
        c.sources = pictures
        c.log2Ctb = 5
        c.log2MaxTb = 5
        c.sao = true
        c.frames = 2
        c.qp = 27
        let s = try Self.check(c, minPSNR: 36, label: "SAO natural \(bitDepth) bits")
        #expect(s.saoEdgeComponents > 0 && s.saoMergedCTBs > 0, "\(s)")
    }

    /// SAO is not a no-op: on natural content at a fixed QP it lowers the distortion (Y-PSNR up by a margin
    /// above noise) and costs few bits: the offsets must buy more PSNR than the rate they add would elsewhere.
    @Test("SAO lowers distortion at a fixed QP on natural content")
    func saoLowersDistortion() throws {
        guard let pictures = try H265EngineHarness.naturalPictures(width: 256, height: 160, x: 384, y: 256, frames: 3, bitDepth: 8) else {
            try Test.cancel(Comment(rawValue: "skipping: \(TestPaths.sharedMissingMessage)"))
        }
        var c = H265EngineHarness.Config()
        c.width = 256
        c.height = 160
        c.sources = pictures
        c.log2Ctb = 5
        c.log2MaxTb = 5
        c.frames = 3
        c.qp = 37
        let off = try H265EngineHarness.encode(c)
        c.sao = true
        let on = try H265EngineHarness.encode(c)
        let (psnrOff, psnrOn) = (H265EngineHarness.lumaPSNR(off), H265EngineHarness.lumaPSNR(on))
        print(String(format: "H265EngineOracle: SAO off %d bytes %.3f dB, on %d bytes %.3f dB", off.stream.count, psnrOff, on.stream.count, psnrOn))
        #expect(psnrOn > psnrOff + 0.05, "Y-PSNR \(psnrOff) → \(psnrOn)")
        // Roughly 6 % more rate is worth 0.05 dB at these rates; SAO must spend far less than that per gain.
        #expect(Double(on.stream.count) < Double(off.stream.count) * 1.03, "\(off.stream.count) → \(on.stream.count) bytes")
    }
}
