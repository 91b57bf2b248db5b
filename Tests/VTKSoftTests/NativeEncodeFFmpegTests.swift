import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// FFmpeg's h264_vaapi (a VA client written by nobody here) encodes through vtksoft's native engine: the
/// stream decodes with FFmpeg, its SPS/PPS are the packed headers FFmpeg sent, and the driver's
/// reconstructions (MD5s in VTKSOFT_CAPTURE) equal FFmpeg's software decode frame by frame.
@Suite("FFmpeg's h264_vaapi through vtksoft's native encoder")
struct NativeEncodeFFmpegTests {
    typealias Configuration = FFmpegEncodeCheck.Configuration

    /// Every value of each axis at least once: -bf 0/2, CABAC/CAVLC, the three profiles, CQP 22/27/32, CBR, VBR.
    static let configurations: [Configuration] = [
        ["-profile:v", "constrained_baseline", "-coder", "cavlc", "-bf", "0", "-rc_mode", "CQP", "-qp", "22"],
        ["-profile:v", "main", "-coder", "cabac", "-bf", "2", "-rc_mode", "CQP", "-qp", "27"],
        ["-profile:v", "high", "-coder", "cavlc", "-bf", "2", "-rc_mode", "CQP", "-qp", "32"],
        ["-profile:v", "high", "-coder", "cabac", "-bf", "0", "-rc_mode", "CBR", "-b:v", "400k"],
        ["-profile:v", "main", "-coder", "cavlc", "-bf", "2", "-rc_mode", "VBR", "-b:v", "300k", "-maxrate", "600k"],
        ["-profile:v", "high", "-coder", "cabac", "-bf", "2", "-rc_mode", "CQP", "-qp", "27", "-slices", "2"],
        ["-profile:v", "high", "-coder", "cavlc", "-bf", "2", "-rc_mode", "CQP", "-qp", "27", "-slices", "3"],
    ].map(Configuration.init)

    static let frames = 9
    static var input: [String] {
        guard let shared = TestPaths.shared else { return ["-f", "lavfi", "-i", "testsrc2=size=320x192:rate=12"] }
        return ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x192", "-r", "12", "-i",
                shared.appendingPathComponent("media/CiscoVT2people_320x192_12fps.yuv").path]
    }

    /// One captured picture: POC and IDR flag from the picture parameters, what the driver reported.
    struct CapturedPicture {
        let poc: Int
        let idr: Bool
        let reconstructionMD5: String?
        let qp: Int?
        let violations: [String]
        let packedSequence: [UInt8]?
    }

    static func capturedPictures(_ file: URL) throws -> [CapturedPicture] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let buffers = try #require(object["buffers"] as? [[String: Any]])
            let picture = try #require(buffers.first { $0["type"] as? String == "VAEncPictureParameterBufferType" }?["value"] as? [String: Any])
            let current = try #require(picture["CurrPic"] as? [String: Any])
            let fields = try #require(picture["pic_fields"] as? [String: Any])
            // The data buffer that follows a packed header parameter buffer of type 1 (sequence).
            var packedSequence: [UInt8]?
            for (i, b) in buffers.enumerated() where b["type"] as? String == "VAEncPackedHeaderParameterBufferType" {
                if (b["value"] as? [String: Any])?["type"] as? Int == 1, i + 1 < buffers.count, let hex = buffers[i + 1]["data"] as? String {
                    packedSequence = stride(from: 0, to: hex.count, by: 2).compactMap {
                        let start = hex.index(hex.startIndex, offsetBy: $0)
                        return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
                    }
                }
            }
            let encode = object["encode"] as? [String: Any]
            return CapturedPicture(poc: try #require(current["TopFieldOrderCnt"] as? Int), idr: fields["idr_pic_flag"] as? Int == 1,
                                   reconstructionMD5: encode?["reconstruction_md5"] as? String, qp: encode?["qp"] as? Int,
                                   violations: encode?["violations"] as? [String] ?? ["no encode report"], packedSequence: packedSequence)
        }
    }

    @Test("Decodes with every frame and no error; SPS/PPS are FFmpeg's packed headers; reconstructions equal the decode",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: configurations)
    func encode(_ configuration: Configuration) throws {
        let name = configuration.description.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: ":", with: "")
        let output = TestPaths.scratch.appendingPathComponent("native\(name).h264")
        let capture = TestPaths.scratch.appendingPathComponent("native\(name)-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                  "-filter_hw_device", "va"] + Self.input
                                                  + ["-frames:v", "\(Self.frames)", "-vf", "format=nv12,hwupload", "-c:v", "h264_vaapi"]
                                                  + configuration.arguments + [output.path],
                                        extraEnvironment: ["VTKSOFT_ENCODER": "native", "VTKSOFT_CAPTURE": capture.path])
        try #require(run.result.status == 0, "\(run.result.stderrText.prefix(800))")
        #expect(run.leakedObjects == 0)

        // FFmpeg decodes it: no error line, every frame; B pictures where asked.
        let decoded = try FFmpegEncodeCheck.decodedFrameMD5s(output, frames: Self.frames, configuration: configuration)

        // A correct client gets no violation reported.
        let pictures = try Self.capturedPictures(capture)
        #expect(pictures.flatMap(\.violations).isEmpty, "\(pictures.flatMap(\.violations).prefix(3))")

        // Reconstructions in display order (by IDR period, then POC) equal the decoded frames.
        let ordered = FFmpegEncodeCheck.displayOrder(pictures.map { ($0.idr, $0.poc, $0.reconstructionMD5) })
        #expect(ordered == decoded.map { Optional($0) }, "reconstruction MD5s (display order) vs FFmpeg's decode")

        // The stream's SPS and PPS are the bytes FFmpeg packed.
        let stream = try [UInt8](Data(contentsOf: output))
        let units = AnnexBScanner.nalUnits(in: stream)
        let packed = AnnexBScanner.nalUnits(in: try #require(pictures.first?.packedSequence, "FFmpeg sent a packed sequence header"))
        for type in [NALUnitType.sequenceParameterSet, .pictureParameterSet] {
            let sent = try #require(packed.first { $0.type == type }, "packed \(type)")
            let written = try #require(units.first { $0.type == type }, "\(type) in the stream")
            #expect(Array(sent.bytes) == Array(written.bytes), "\(type)")
        }

        // Every slice header carries the QP the driver coded (CBR/VBR rewrite FFmpeg's packed slice_qp_delta).
        var sets = ParameterSets()
        var sliceQPs: [Int] = []
        for unit in units {
            if try sets.store(unit) { continue }
            guard unit.type.isSlice else { continue }
            let header = try SliceHeader(nalUnit: unit, parameterSets: sets)
            guard header.firstMbInSlice == 0, let pps = sets.pps[header.picParameterSetId] else { continue }
            sliceQPs.append(26 + pps.picInitQpMinus26 + header.sliceQpDelta)
        }
        #expect(sliceQPs == pictures.map { $0.qp ?? -1 }, "slice QPs in the stream vs the QPs the driver reports")
    }

    @Test("VTKSOFT_ENCODER chooses the engine, and the vendor string (what vtk info prints) names it",
          .enabled(if: VTKSoftFFmpeg.vainfoUnavailableReason == nil, "\(VTKSoftFFmpeg.vainfoUnavailableReason ?? "")"))
    func vendorNamesTheEngine() throws {
        for engine in ["native", "openh264"] {
            let run = try VTKSoftFFmpeg.run("vainfo", ["--display", "x11", "-a"], extraEnvironment: ["VTKSOFT_ENCODER": engine])
            let text = run.result.stdoutText + run.result.stderrText
            #expect(text.contains("\(engine) encode"), "\(engine): \(text.prefix(300))")
            // Only the native engine takes packed slice headers for H.264 (H.265 has its own engine either way).
            let h264 = text.components(separatedBy: "\n\n").filter { $0.contains("VAProfileH264") }.joined(separator: "\n")
            #expect(h264.contains("VA_ENC_PACKED_HEADER_SLICE") == (engine == "native"))
        }
    }
}
