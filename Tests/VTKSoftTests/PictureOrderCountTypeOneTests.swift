import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// POC type 1 (8.2.1.2) through vtksoft. VA does not carry the offsets type 1 derives POCs from, so
/// vtksoft hands libavcodec the client's POCs (as type 0). libx264 streams that need right POCs to decode
/// (B-frames with temporal direct prediction and implicit weights, progressive and MBAFF) are rewritten at
/// run time to POC type 1 with a non-trivial offset cycle and the same POCs: FFmpeg's software decoder (the
/// oracle) decodes the rewrite like the original, and so must FFmpeg's VA hwaccel through vtksoft.
@Suite("POC type 1 through vtksoft")
struct PictureOrderCountTypeOneTests {
    static let streams: [GeneratedStream] = [
        GeneratedStream(name: "x264-temporal-direct-weightb-176x144", width: 176, height: 144, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-x264-params", "bframes=3:b-pyramid=none:direct=temporal:weightb=1:ref=3:keyint=10"]),
        GeneratedStream(name: "x264-mbaff-temporal-direct-weightb-176x144", width: 176, height: 144, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-flags", "+ildct", "-x264-params", "tff=1:bframes=2:direct=temporal:weightb=1:ref=2:keyint=10"]),
    ]

    /// The offsets of the rewrite: every POC is expected at 2·absFrameNum, a non-reference one 1 lower.
    static let offsetForRefFrame = 2, offsetForNonRefPic = -1

    /// `bytes` (POC type 0, frames only) rewritten to POC type 1 with the same TopFieldOrderCnt and
    /// BottomFieldOrderCnt for every picture: delta_pic_order_cnt[0] is the POC less the expected one (8.2.1.2).
    static func typeOne(_ bytes: [UInt8]) throws -> [UInt8] {
        var prevMsb = 0, prevLsb = 0, prevFrameNum = 0, prevFrameNumOffset = 0
        var lastPicture = -1, top = 0, bottomDelta = 0, expected = 0
        return try SliceRewriter.rewrite(bytes, editSPS: { sps in
            sps.picOrderCntType = 1
            sps.deltaPicOrderAlwaysZeroFlag = false
            sps.offsetForNonRefPic = offsetForNonRefPic
            sps.offsetForTopToBottomField = 0
            sps.offsetForRefFrame = [offsetForRefFrame]
        }, editSlice: { slice in
            let h = slice.header, original = slice.originalSPS
            if slice.pictureIndex != lastPicture {
                lastPicture = slice.pictureIndex
                // 8.2.1.1 on the original: the POC MSB from the previous reference picture.
                let maxLsb = original.maxPicOrderCntLsb, lsb = h.picOrderCntLsb
                if h.idrPicFlag { prevMsb = 0; prevLsb = 0 }
                let msb = lsb < prevLsb && prevLsb - lsb >= maxLsb / 2 ? prevMsb + maxLsb
                    : lsb > prevLsb && lsb - prevLsb > maxLsb / 2 ? prevMsb - maxLsb : prevMsb
                top = msb + lsb
                bottomDelta = h.deltaPicOrderCntBottom
                if h.nalRefIdc != 0 { prevMsb = msb; prevLsb = lsb }
                // 8.2.1.2 with the new offsets: the expected POC.
                let frameNumOffset = h.idrPicFlag ? 0 : prevFrameNum > h.frameNum ? prevFrameNumOffset + original.maxFrameNum : prevFrameNumOffset
                prevFrameNum = h.frameNum
                prevFrameNumOffset = frameNumOffset
                var absFrameNum = frameNumOffset + h.frameNum
                if h.nalRefIdc == 0 && absFrameNum > 0 { absFrameNum -= 1 }
                expected = absFrameNum > 0 ? (absFrameNum - 1) * offsetForRefFrame + offsetForRefFrame : 0
                if h.nalRefIdc == 0 { expected += offsetForNonRefPic }
            }
            slice.header.deltaPicOrderCnt = [top - expected, bottomDelta]
        })
    }

    @Test("A POC type 1 rewrite decodes through FFmpeg's VA hwaccel on vtksoft as the original does",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: streams)
    func typeOneDecodes(_ stream: GeneratedStream) throws {
        let original = try stream.url()
        let rewritten = TestPaths.scratch.appendingPathComponent("poc1-\(UUID().uuidString).264")
        defer { try? FileManager.default.removeItem(at: rewritten) }
        try Data(try Self.typeOne([UInt8](try Data(contentsOf: original)))).write(to: rewritten)
        let expected = try #require(try VTKSoftFFmpeg.softwareDecodeMD5(original))
        // The oracle: FFmpeg's own type-1 derivation gives the original POCs, so the original pictures.
        #expect(try VTKSoftFFmpeg.softwareDecodeMD5(rewritten) == expected, "the rewrite changed the POCs")
        let (md5, run) = try VTKSoftFFmpeg.hardwareDecodeMD5(rewritten)
        #expect(md5 == expected, "\(stream.name): \(run.result.stderrText.prefix(300))")
        #expect(run.violations == 0)
    }
}
