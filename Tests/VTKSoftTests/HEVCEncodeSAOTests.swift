import CLibVA
import Foundation
import H265Bitstream
import NALStream
import Testing
import VTKTestSupport

/// SAO as a VA client asks for it: vtksoft writes the SPS and slice headers from the parameters
/// (sample_adaptive_offset_enabled_flag, slice_sao_luma_flag, slice_sao_chroma_flag), and codes sao() with them.
/// Rules: the headers, read back by vtk's H.265 parser, carry exactly the client's flags; FFmpeg decodes every
/// picture without error; the reconstructed surfaces equal FFmpeg's decode (luma, the plane the client reads back).
extension HEVCEncodeViolationTests {
    @Test("SAO from the client's parameters: headers as asked, reconstructions equal FFmpeg's decode", arguments: [false, true])
    func sampleAdaptiveOffset(_ sao: Bool) throws {
        let client = try Client()
        let (s0, idr) = try client.encode(Client.Picture(sao: sao))
        try #require(s0 == VA_STATUS_SUCCESS)
        var p = Client.Picture(idr: false, poc: 1, recon: 1, sao: sao)
        p.list0 = [Client.hevcEntry(client.recon[0], poc: 0)]
        p.referenceFrames = p.list0
        let (s1, inter) = try client.encode(p)
        try #require(s1 == VA_STATUS_SUCCESS)
        var sets = H265ParameterSets()
        var slices = 0
        for unit in AnnexBScanner.nalUnits(in: idr + inter) {
            let type = ((unit.bytes.first ?? 0) >> 1) & 0x3F
            if type >= 32 && type <= 34 { try sets.store(unit); continue }
            guard type < 32 else { continue }
            let header = try H265SliceSegmentHeader(nalUnit: unit, parameterSets: sets)
            #expect(header.saoLumaFlag == sao && header.saoChromaFlag == sao)
            slices += 1
        }
        #expect(sets.sps[0]?.sampleAdaptiveOffsetEnabledFlag == sao)
        #expect(slices == 2)
        guard ProcessRunner.which("ffmpeg") != nil else { return }
        let file = TestPaths.scratch.appendingPathComponent("hevc-sao-\(UUID().uuidString).h265")
        let output = TestPaths.scratch.appendingPathComponent("hevc-sao-\(UUID().uuidString).yuv")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: output)
        }
        try Data(idr + inter).write(to: file)
        let decode = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", output.path])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText.prefix(400))")
        let decoded = [UInt8](try Data(contentsOf: output))
        let size = Client.size * Client.size
        try #require(decoded.count == 2 * size * 3 / 2)
        for i in 0..<2 {
            let ours = try client.base.luma(client.recon[i])
            #expect(ours == Array(decoded[(i * size * 3 / 2)..<(i * size * 3 / 2 + size)]), "picture \(i)")
        }
    }
}
