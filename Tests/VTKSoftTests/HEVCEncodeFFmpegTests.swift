import Foundation
import Testing
import VTKTestSupport

/// FFmpeg's hevc_vaapi (a VA client written by nobody here) encodes through vtksoft's H.265 engine: FFmpeg
/// decodes every frame without an error line, Y-PSNR against the source is at least 35 dB, and the driver's
/// reconstructions (MD5s in VTKSOFT_CAPTURE) equal FFmpeg's software decode frame by frame. The capture is
/// the parity tests' too, so the HEVC encode parameters are also read back here (POC, IDR flag).
@Suite("FFmpeg's hevc_vaapi through vtksoft's H.265 engine", .serialized,
       .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
struct HEVCEncodeFFmpegTests {
    typealias Configuration = FFmpegEncodeCheck.Configuration

    /// Intra only, -bf 0 and -bf 2 at CQP (QP 24: 35 dB with margin on this small busy picture), CBR and VBR.
    static let configurations: [Configuration] = [
        ["-g", "1", "-bf", "0", "-rc_mode", "CQP", "-qp", "24"],
        ["-bf", "0", "-rc_mode", "CQP", "-qp", "24"],
        ["-bf", "2", "-rc_mode", "CQP", "-qp", "24"],
        ["-bf", "0", "-rc_mode", "CBR", "-b:v", "1500k"],
        ["-bf", "2", "-rc_mode", "VBR", "-b:v", "1200k", "-maxrate", "2400k"],
    ].map(Configuration.init)

    static let frames = 8
    static let size = "160x96"

    /// One captured picture: POC and IDR flag from the picture parameters, what the driver reported.
    struct CapturedPicture {
        let poc: Int
        let idr: Bool
        let reconstructionMD5: String?
        let violations: [String]
    }

    static func capturedPictures(_ file: URL) throws -> [CapturedPicture] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let buffers = try #require(object["buffers"] as? [[String: Any]])
            let picture = try #require(buffers.first { $0["type"] as? String == "VAEncPictureParameterBufferType" }?["value"] as? [String: Any])
            let current = try #require(picture["decoded_curr_pic"] as? [String: Any])
            let fields = try #require(picture["pic_fields"] as? [String: Any])
            let encode = object["encode"] as? [String: Any]
            return CapturedPicture(poc: try #require(current["pic_order_cnt"] as? Int), idr: fields["idr_pic_flag"] as? Int == 1,
                                   reconstructionMD5: encode?["reconstruction_md5"] as? String,
                                   violations: encode?["violations"] as? [String] ?? ["no encode report: \(encode ?? [:])"])
        }
    }

    /// Y-PSNR of `coded` against the lavfi source, frame by frame (rawvideo both sides, so no timestamps pair them).
    static func lumaPSNR(_ coded: URL, source: URL) throws -> Double {
        let decoded = coded.appendingPathExtension("yuv")
        defer { try? FileManager.default.removeItem(at: decoded) }
        let d = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", coded.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", decoded.path])
        try #require(d.status == 0, "\(d.stderrText.prefix(300))")
        let r = try ProcessRunner.run("ffmpeg", ["-nostdin", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i", decoded.path,
                                                 "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i", source.path, "-lavfi", "psnr", "-f", "null", "-"])
        let line = try #require(r.stderrText.split(separator: "\n").last { $0.contains("PSNR y:") })
        let value = try #require(line.split(separator: " ").first { $0.hasPrefix("y:") }?.dropFirst(2))
        return try #require(Double(value))
    }

    @Test("Decodes with every frame and no error, Y-PSNR >= 35 dB; reconstructions equal FFmpeg's decode", arguments: configurations)
    func encode(_ configuration: Configuration) throws {
        let name = configuration.description.replacingOccurrences(of: " ", with: "_")
        let source = TestPaths.scratch.appendingPathComponent("hevc-source-\(Self.size).yuv")
        if !FileManager.default.fileExists(atPath: source.path) {
            let r = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(Self.size):rate=30",
                                                     "-frames:v", "\(Self.frames)", "-f", "rawvideo", "-pix_fmt", "yuv420p", source.path])
            try #require(r.status == 0, "\(r.stderrText)")
        }
        let output = TestPaths.scratch.appendingPathComponent("hevc\(name).hevc")
        let capture = TestPaths.scratch.appendingPathComponent("hevc\(name)-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-filter_hw_device", "va",
                                                  "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", Self.size, "-r", "30", "-i", source.path,
                                                  "-vf", "format=nv12,hwupload", "-c:v", "hevc_vaapi"] + configuration.arguments + [output.path],
                                        extraEnvironment: ["VTKSOFT_CAPTURE": capture.path])
        try #require(run.result.status == 0, "\(run.result.stderrText.prefix(800))")
        #expect(run.leakedObjects == 0)

        let decoded = try FFmpegEncodeCheck.decodedFrameMD5s(output, frames: Self.frames, configuration: configuration,
                                                             decodeOptions: ["-pix_fmt", "yuv420p"])
        #expect(try Self.lumaPSNR(output, source: source) >= 35)

        let pictures = try Self.capturedPictures(capture)
        #expect(pictures.flatMap(\.violations).isEmpty, "\(pictures.flatMap(\.violations).prefix(3))")
        let ordered = FFmpegEncodeCheck.displayOrder(pictures.map { ($0.idr, $0.poc, $0.reconstructionMD5) })
        #expect(ordered == decoded.map { Optional($0) }, "reconstruction MD5s (display order) vs FFmpeg's decode")
    }
}
