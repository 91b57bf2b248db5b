import Foundation
import Testing
import VTKTestSupport

/// `vtk decode` on ../shared/conformance/h265-robustness, inputs the fuzz targets found. The oracle for the
/// frame count is ffprobe (FFmpeg's software decoder); for the pixels, FFmpeg's own VA-API client on the same
/// driver (vtk's VA parameters must give what FFmpeg's give: libavcodec's software decoder reads this damaged
/// stream's parameter sets differently from what VA can carry, so its MD5 is not the reference here).
@Suite("vtk decode on H.265 robustness inputs", .serialized, .enabled(if: VTKBinary.available, VTKBinary.missing))
struct H265RobustnessDecodeTests {
    @Test("unreleased-picture.265 (fuzz-hevc): vtk decode --md5 gives its one frame and exit 0, never silence")
    func unreleasedPicture() throws {
        guard let shared = TestPaths.shared else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let url = shared.appendingPathComponent("conformance/h265-robustness/unreleased-picture.265")
        guard FileManager.default.fileExists(atPath: url.path) else { try Test.cancel("\(url.path) is absent: skipping") }
        let result = try VTKBinary.run(["decode", url.path, "--md5", "--json", "--device", "soft", "-q"])  // --json holds the MD5
        // Either its frame, or a clear error and a non-zero exit: never nothing with exit 0.
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try #require(try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
        let md5 = json["md5"] as? String
        #expect(md5 != nil, "no MD5: \(result.stdoutText) \(result.stderrText)")
        if ProcessRunner.hasFFmpeg {
            let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                          "stream=nb_read_frames", "-of", "csv=p=0", url.path])
            #expect(json["frames"] as? Int == Int(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(json)")
        }
        guard VTKSoftFFmpeg.isAvailable else { return }
        let reference = try VTKSoftFFmpeg.hardwareDecodeMD5(url)
        #expect(reference.md5 != nil && md5 == reference.md5,
                "vtk \(md5 ?? "nothing") vs FFmpeg VA-API \(reference.md5 ?? reference.run.result.stderrText)")
    }
}
