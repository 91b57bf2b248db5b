import Foundation
import Testing
import VTKTestSupport

@Suite("VTKSOFT_CAPTURE writes each picture's parameters as a JSON line")
struct CaptureTests {
    static func lines(_ file: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any])
        }
    }

    static func buffers(_ line: [String: Any], type: String) -> [[String: Any]] {
        ((line["buffers"] as? [[String: Any]]) ?? []).filter { $0["type"] as? String == type }
    }

    @Test("Decode: one line per picture with picture, slice and reference fields",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
    func decodeCapture() throws {
        let stream = GeneratedStream.standard[1]  // Main, B pyramid, weighted prediction
        let url = try stream.url()
        let capture = TestPaths.scratch.appendingPathComponent("capture-decode.jsonl")
        try? FileManager.default.removeItem(at: capture)
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                  "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi",
                                                  "-i", url.path, "-vf", "hwdownload,format=nv12", "-f", "null", "-"],
                                        extraEnvironment: ["VTKSOFT_CAPTURE": capture.path])
        #expect(run.result.status == 0, "\(run.result.stderrText.prefix(400))")
        let lines = try Self.lines(capture)
        #expect(lines.count == stream.frames)
        for line in lines {
            #expect(line["entrypoint"] as? String == "VAEntrypointVLD")
            #expect(line["render_target"] is Int)
            #expect((line["violations"] as? [Any])?.isEmpty == true, "FFmpeg's slice_data_bit_offset is where vtksoft finds slice_data()")
            let picture = try #require(Self.buffers(line, type: "VAPictureParameterBufferType").first?["value"] as? [String: Any])
            let current = try #require(picture["CurrPic"] as? [String: Any])
            for key in ["picture_id", "frame_idx", "flags", "TopFieldOrderCnt", "BottomFieldOrderCnt"] { #expect(current[key] is Int, "\(key)") }
            #expect((picture["ReferenceFrames"] as? [Any])?.count == 16)
            #expect((picture["seq_fields"] as? [String: Any])?["pic_order_cnt_type"] is Int)
            #expect((picture["pic_fields"] as? [String: Any])?["entropy_coding_mode_flag"] as? Int == 1)
            #expect(Self.buffers(line, type: "VAIQMatrixBufferType").count == 1)
            let slices = Self.buffers(line, type: "VASliceParameterBufferType").flatMap { ($0["value"] as? [[String: Any]]) ?? [] }
            #expect(!slices.isEmpty)
            for slice in slices {
                #expect((slice["RefPicList0"] as? [Any])?.count == 32)
                #expect((slice["RefPicList1"] as? [Any])?.count == 32)
                #expect((slice["luma_weight_l0"] as? [Any])?.count == 32)
                #expect((slice["chroma_weight_l0"] as? [Any])?.count == 64)
            }
        }
        // B pictures refer to other surfaces by id.
        let bSlices = lines.flatMap { Self.buffers($0, type: "VASliceParameterBufferType") }
            .flatMap { ($0["value"] as? [[String: Any]]) ?? [] }.filter { $0["slice_type"] as? Int == 1 }
        #expect(!bSlices.isEmpty)
    }

    @Test("Encode: one line per picture with sequence, picture, slice and rate-control fields",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
    func encodeCapture() throws {
        let capture = TestPaths.scratch.appendingPathComponent("capture-encode.jsonl")
        try? FileManager.default.removeItem(at: capture)
        let output = TestPaths.scratch.appendingPathComponent("capture-encode.h264")
        let frames = 8
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                  "-filter_hw_device", "va", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25",
                                                  "-frames:v", "\(frames)", "-vf", "format=nv12,hwupload", "-c:v", "h264_vaapi",
                                                  "-bf", "0", "-rc_mode", "CBR", "-b:v", "300k", output.path],
                                        extraEnvironment: ["VTKSOFT_CAPTURE": capture.path])
        #expect(run.result.status == 0, "\(run.result.stderrText.prefix(400))")
        let lines = try Self.lines(capture)
        #expect(lines.count == frames)
        let first = try #require(lines.first)
        let sequence = try #require(Self.buffers(first, type: "VAEncSequenceParameterBufferType").first?["value"] as? [String: Any])
        #expect(sequence["picture_width_in_mbs"] as? Int == 11)
        #expect(sequence["bits_per_second"] is Int)
        let picture = try #require(Self.buffers(first, type: "VAEncPictureParameterBufferType").first?["value"] as? [String: Any])
        #expect((picture["pic_fields"] as? [String: Any])?["idr_pic_flag"] as? Int == 1)
        #expect(picture["coded_buf"] is Int)
        #expect(!Self.buffers(first, type: "VAEncSliceParameterBufferType").isEmpty)
        let misc = Self.buffers(first, type: "VAEncMiscParameterBufferType").compactMap { $0["value"] as? [String: Any] }
        #expect(misc.contains { $0["bits_per_second"] as? Int == 300_000 })
    }
}
