import Foundation
import Testing
import VTKTestSupport

/// RTP carries interlaced H.264 unchanged: both fields of a frame travel under one timestamp and vtk receive
/// decodes them into one woven frame.
@Suite("RTP: interlaced H.264", .serialized)
struct InterlacedRTPTests {
    @Test("FFmpeg sends field pictures (PAFF) and MBAFF, vtk receive --md5 equals reference.tsv",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.interlaced.isEmpty && ProcessRunner.hasFFmpeg, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ["HCAFF1_HHI.264", "HPCAFL_BRCM_C.264", "HCAMFF1_HHI.264"])
    func ffmpegToVTK(file: String) throws {
        let stream = try #require(ConformanceStream.interlaced.first { $0.file == file })
        let (receiver, port) = try Loopback.startReceiver(["--md5", "--stats", "--timeout", "120"])
        let ssrc: UInt32 = 0x2468_ACE0
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { try? FileManager.default.removeItem(at: sdp) }
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.url.path, "-c", "copy", "-f", "rtp", "-ssrc", "\(ssrc)",
                                                      "rtp://127.0.0.1:\(port)", "-sdp_file", sdp.path])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)
        let status = receiver.finish()
        #expect(status == 0, "\(receiver.stderr)")
        #expect(receiver.stdout.contains("MD5=\(stream.md5)"), "\(file): \(receiver.stdout)")
        #expect(receiver.stdout.contains("lost: 0"))
    }
}
