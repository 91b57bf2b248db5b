import Foundation
import Testing
import VTKTestSupport

/// vtksoft's openh264 engine with a client whose QP changes from picture to picture (vtk's CQP ladder: I pictures
/// 3 below the P QP, as FFmpeg's `-i_qoffset -3`). openh264 must move to the new QP in place: a new encoder per
/// QP change would open every GOP's first P picture with an unasked IDR. Checked by FFmpeg's picture types.
@Suite("openh264 engine: QP changes", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct OpenH264QPChangeTests {
    @Test("--qp 27 --keyint 12 on openh264: I pictures at QP 24, key frames on frames 0 and 12 alone, P pictures between")
    func ladderCodesNoExtraIDR() throws {
        let output = TestPaths.scratch.appendingPathComponent("openh264-qp-ladder.h264")
        let r = try VTKBinary.run(["encode", try FrameReorderingTests.input.get().path, "--qp", "27", "--keyint", "12", "-o", output.path],
                                  extraEnvironment: ["VTKSOFT_ENCODER": "openh264"])
        #expect(r.status == 0, "\(r.stderrText)")
        let frames = try FrameReorderingTests.ffprobe(output, "key_frame,pict_type")
        #expect(frames.count == FrameReorderingTests.frames)
        #expect(frames.indices.filter { frames[$0].hasPrefix("1") } == [0, 12], "\(frames)")
        let types: String = frames.map { line -> String in line.split(separator: ",").last.map(String.init) ?? "" }.joined()
        #expect(types == "IPPPPPPPPPPPIPPPPPPPPPPP")
        let decode = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
    }
}
