import Foundation
import Testing
import VTKTestSupport

/// GStreamer's vaapih265enc (gstreamer-vaapi, another VA client) encodes through vtksoft's H.265 engine: the
/// stream decodes in FFmpeg with every frame and no error line.
@Suite("GStreamer's vaapih265enc through vtksoft", .enabled(if: VTKSoftGStreamer.isAvailable, "\(VTKSoftGStreamer.unavailableReason ?? "")"))
struct HEVCEncodeGStreamerTests {
    @Test("vaapih265enc writes a stream FFmpeg decodes, every frame, no error")
    func encodes() throws {
        let output = TestPaths.scratch.appendingPathComponent("gst-hevc-\(UUID().uuidString).h265")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try VTKSoftGStreamer.encodeH265(frames: 10, width: 320, height: 192, to: output)
        try #require(run.result.status == 0, "\(run.result.stderrText.suffix(1500))")
        #expect(run.leakedObjects == 0)
        // gstreamer-vaapi's packed VPS/SPS/PPS parse and agree with its parameters at this size (at 192x128 its SPS
        // VUI ends early, which FFmpeg's parser retries around and vtksoft reports as a violation).
        #expect(run.violations ?? 0 == 0)
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                                                     "-of", "csv=p=0", output.path])
        #expect(probe.stderrText.isEmpty, "\(probe.stderrText.prefix(400))")
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "hevc,320,192,10", "\(probe.stdoutText)")
        let decode = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText.prefix(400))")
    }
}
