import Foundation
import Testing
import VTKTestSupport

@Suite("FFmpeg's h264_vaapi encodes through vtksoft")
struct EncodeTests {
    struct Clip: Sendable, CustomStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let frames: Int
        /// ffmpeg input options that read the source (raw I420 file or a stream to decode).
        let input: [String]
        var description: String { name }
    }

    enum Mode: String, Sendable, CaseIterable { case cqp = "CQP", cbr = "CBR" }

    static let clips: [Clip] = {
        guard let shared = TestPaths.shared else {
            // Without ../shared: camera-like content is replaced by a synthetic source.
            return [Clip(name: "testsrc2 320x192", width: 320, height: 192, frames: 30,
                         input: ["-f", "lavfi", "-i", "testsrc2=size=320x192:rate=12"])]
        }
        let media = shared.appendingPathComponent("media")
        let raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p"]
        return [
            Clip(name: "CiscoVT2people 320x192", width: 320, height: 192, frames: 9,
                 input: raw + ["-s", "320x192", "-r", "12", "-i", media.appendingPathComponent("CiscoVT2people_320x192_12fps.yuv").path]),
            Clip(name: "Static 152x100", width: 152, height: 100, frames: 10,
                 input: raw + ["-s", "152x100", "-r", "25", "-i", media.appendingPathComponent("Static_152_100.yuv").path]),
            Clip(name: "VID 1280x720", width: 1280, height: 720, frames: 300,
                 input: ["-i", shared.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264").path]),
        ]
    }()

    /// The default engine (native) on every clip; openh264 (VTKSOFT_ENCODER=openh264) on the small ones, which keeps it covered.
    static var cases: [(Clip, Mode, String)] {
        clips.flatMap { clip in
            Mode.allCases.flatMap { mode in (clip.width * clip.height > 320 * 192 ? ["native"] : ["native", "openh264"]).map { (clip, mode, $0) } }
        }
    }

    @Test("Encoded stream decodes in software with every frame, the right size and sane PSNR, on each engine",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: cases)
    func encode(_ clip: Clip, _ mode: Mode, _ engine: String) throws {
        let output = TestPaths.scratch.appendingPathComponent("\(clip.name.replacingOccurrences(of: " ", with: "_"))-\(mode.rawValue)-\(engine).h264")
        let rate = mode == .cqp ? ["-rc_mode", "CQP", "-qp", "27"] : ["-rc_mode", "CBR", "-b:v", "1M"]
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                  "-filter_hw_device", "va"] + clip.input
                                                  + ["-frames:v", "\(clip.frames)", "-vf", "format=nv12,hwupload",
                                                     "-c:v", "h264_vaapi", "-bf", "0"] + rate + [output.path],
                                  extraEnvironment: ["VTKSOFT_ENCODER": engine])
        try #require(run.result.status == 0, "\(run.result.stderrText.prefix(600))")
        #expect(run.leakedObjects == 0)

        // Decodes without error, every frame, at the display size.
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                     "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", output.path])
        #expect(probe.stderrText.isEmpty, "\(probe.stderrText.prefix(400))")
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "\(clip.width),\(clip.height),\(clip.frames)")

        let psnrRun = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "info", "-i", output.path] + clip.input
                                            // Raw .264 input has no timestamps: pair frames by index, not by time.
                                            + ["-lavfi", "[0:v]settb=AVTB,setpts=N/(25*TB)[a];[1:v]settb=AVTB,setpts=N/(25*TB)[b];[a][b]psnr", "-frames:v", "\(clip.frames)", "-f", "null", "-"])
        let psnr = try #require(VTKSoftFFmpeg.lumaPSNR(psnrRun.stderrText), "\(psnrRun.stderrText.suffix(400))")
        let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        print("vtksoft encode (\(engine)) \(clip.name) \(mode.rawValue): Y-PSNR \(String(format: "%.2f", psnr)) dB, \(size) bytes, \(clip.frames) frames")
        #expect(psnr > 30, "Y-PSNR \(psnr) dB")
    }
}
