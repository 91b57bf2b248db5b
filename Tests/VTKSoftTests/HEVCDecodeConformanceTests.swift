import Foundation
import Testing
import VTKTestSupport

@Suite("FFmpeg's VA-API hwaccel decodes H.265 through vtksoft")
struct HEVCDecodeConformanceTests {
    /// Main 10 surfaces are P010: downloaded as such and hashed as yuv420p10le, like the references.
    @Test("Every H.265 conformance stream decodes to the reference MD5",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !H265ConformanceStream.all.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func conformanceStreams() throws {
        var matched: [String] = []
        for stream in H265ConformanceStream.all {
            let formats = stream.profile == "Main 10" ? "format=p010,format=yuv420p10le" : "format=nv12,format=yuv420p"
            let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                      "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi",
                                                      "-i", stream.url.path, "-vf", "hwdownload,\(formats)", "-f", "md5", "-"])
            let md5 = run.result.stdoutText.split(separator: "\n").first { $0.hasPrefix("MD5=") }.map { String($0.dropFirst(4)) }
            #expect(md5 == stream.md5, "\(stream.file): \(run.result.stderrText.prefix(400))")
            #expect(run.leakedObjects == 0, "\(stream.file): VA objects left at vaTerminate")
            if md5 == stream.md5 { matched.append(stream.file) }
        }
        print("vtksoft HEVC decode: \(matched.count)/\(H265ConformanceStream.all.count) conformance streams match the reference MD5")
    }
}
