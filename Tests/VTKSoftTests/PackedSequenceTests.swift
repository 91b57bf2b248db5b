import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// radeonsi-24 parses a client's packed SPS and writes its own SPS with the fields Mesa 24's VA frontend
/// takes from it (parseEncSpsParamsH264, src/gallium/frontends/va/picture_h264_enc.c); the packed bytes
/// never reach the stream, and one that does not parse is ignored as the frontend ignores what it misreads.
@Suite("radeonsi-24: the client's packed SPS", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct PackedSequenceTests {
    /// An SPS for the 64x64 Constrained Baseline picture, with what Mesa takes made to differ from the
    /// sequence parameters (POC type 2, log2_max_frame_num_minus4 5, VUI timing) and what it does not
    /// (level 51).
    static var clientSPS: SequenceParameterSet {
        var sps = SequenceParameterSet()
        sps.profileIdc = 66
        sps.constraintSet0Flag = true
        sps.constraintSet1Flag = true
        sps.levelIdc = 51
        sps.log2MaxFrameNumMinus4 = 5
        sps.picOrderCntType = 2
        sps.picWidthInMbsMinus1 = VTKSoftVAClient.size / 16 - 1
        sps.picHeightInMapUnitsMinus1 = VTKSoftVAClient.size / 16 - 1
        sps.vuiParametersPresentFlag = true
        sps.vui.timingInfoPresentFlag = true
        sps.vui.numUnitsInTick = 1
        sps.vui.timeScale = 50
        sps.vui.fixedFrameRateFlag = true
        return sps
    }

    static func encode(packed: [UInt8]) throws -> (stream: [UInt8], sps: SequenceParameterSet) {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        try #require(VTKSoftCounters.setPersona("radeonsi-24", in: owner.display), "vtksoft_display_set_persona")
        let stream = try VTKSoftVAClient(display: owner.display).encodeOnePicture(packedSequence: packed)
        let units = AnnexBScanner.nalUnits(in: stream)
        #expect(units.filter { $0.type == .sequenceParameterSet }.count == 1, "one SPS, the driver's: \(units.map(\.type))")
        let sps = try SequenceParameterSet(nalUnit: try #require(units.first { $0.type == .sequenceParameterSet }))
        return (stream, sps)
    }

    /// FFmpeg decodes the stream without a complaint: the slice headers agree with the SPS they go with.
    static func expectFFmpegDecodes(_ stream: [UInt8], _ name: String) throws {
        guard ProcessRunner.hasFFmpeg else { return }
        let file = TestPaths.scratch.appendingPathComponent(name)
        try Data(stream).write(to: file)
        let run = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderrText.isEmpty, "ffmpeg: \(run.stderrText)")
    }

    @Test("Mesa's fields (POC type, log2_max_frame_num, VUI timing) go into the driver's SPS; level and the packed bytes do not")
    func fieldsTaken() throws {
        let packed: [UInt8] = [0, 0, 0, 1] + Self.clientSPS.nalUnit().bytes
        let (stream, sps) = try Self.encode(packed: packed)
        #expect(sps.picOrderCntType == 2 && sps.log2MaxFrameNumMinus4 == 5)
        #expect(sps.vuiParametersPresentFlag && sps.vui.timingInfoPresentFlag && sps.vui.timeScale == 50 && sps.vui.numUnitsInTick == 1)
        #expect(sps.levelIdc == 30, "level_idc stays the sequence parameters' (Mesa 24 reads and drops it)")
        #expect(sps.nalUnit().bytes != Self.clientSPS.nalUnit().bytes, "the driver writes its own SPS, not the client's")
        try Self.expectFFmpegDecodes(stream, "radeonsi24-packed-sps.h264")
    }

    @Test("A packed SPS that does not parse is ignored and logged: vaEndPicture succeeds, the driver's SPS as without one",
          arguments: [("cut short", [0, 0, 0, 1, 0x67, 0x42] as [UInt8]), ("ue(v) past the end", [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E, 0x00, 0x00, 0x03, 0x00])])
    func malformed(name: String, packed: [UInt8]) throws {
        let before = try #require(VTKSoftCounters.encodeViolations)
        let (stream, sps) = try Self.encode(packed: packed)
        #expect((VTKSoftCounters.encodeViolations ?? 0) > before, "\(name): logged as a violation")
        #expect(sps.picOrderCntType == 0 && sps.levelIdc == 30 && !sps.vui.timingInfoPresentFlag, "\(name): the sequence parameters' SPS")
        try Self.expectFFmpegDecodes(stream, "radeonsi24-bad-packed-sps.h264")
    }
}
