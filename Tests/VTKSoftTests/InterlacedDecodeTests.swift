import Foundation
import Testing
import VTKTestSupport

/// Field pictures, PAFF, MBAFF and 4:0:0 through vtksoft, for third-party VA clients: FFmpeg's hwaccel and
/// GStreamer's vaapih264dec render both fields of a frame into one surface in two pictures; vtksoft must
/// give the reference output (fluster's MD5s, frame by frame) and no parameter violation.
@Suite("Interlaced and monochrome H.264 through vtksoft")
struct InterlacedDecodeTests {
    /// FFmpeg's per-frame MD5s (I420) of its VA hwaccel decode through vtksoft.
    static func hardwareFrameMD5s(_ stream: URL) throws -> (md5s: [String], run: VTKSoftFFmpeg.Run) {
        let run = try VTKSoftFFmpeg.hardwareDecode(stream, muxer: "framemd5")
        return (frameMD5s(run.result.stdoutText), run)
    }

    /// The MD5 column of FFmpeg's framemd5 output.
    static func frameMD5s(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test("FFmpeg's VA hwaccel through vtksoft gives framemd5/ frame by frame on the interlaced and 4:0:0 conformance streams",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func ffmpegConformance() throws {
        var matched: [String] = []
        for stream in ConformanceStream.interlaced {
            let expected = stream.frameMD5s
            let (md5s, run) = try Self.hardwareFrameMD5s(stream.url)
            #expect(run.result.status == 0, "\(stream.file): \(run.result.stderrText.prefix(400))")
            #expect(expected.count == stream.frames, "\(stream.file): framemd5/ has \(expected.count) frames")
            #expect(md5s.count == expected.count, "\(stream.file): \(md5s.count) frames decoded, \(expected.count) expected")
            let bad = zip(md5s, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(bad == nil, "\(stream.file): frame \(bad?.offset ?? -1) differs from framemd5/")
            #expect(run.leakedObjects == 0, "\(stream.file): VA objects left at vaTerminate")
            #expect(run.violations == 0, "\(stream.file): FFmpeg's parameters contradict its slices")
            if bad == nil && md5s.count == expected.count { matched.append(stream.file) }
        }
        print("vtksoft interlaced decode through FFmpeg: \(matched.count)/\(ConformanceStream.interlaced.count) streams match framemd5/")
    }

    @Test("FFmpeg's VA hwaccel through vtksoft decodes libx264 MBAFF streams as FFmpeg's software decoder does",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: GeneratedStream.mbaff)
    func ffmpegMBAFF(_ stream: GeneratedStream) throws {
        let url = try stream.url()
        let expected = try #require(try VTKSoftFFmpeg.softwareDecodeMD5(url))
        let (md5, run) = try VTKSoftFFmpeg.hardwareDecodeMD5(url)
        #expect(md5 == expected, "\(stream.name): \(run.result.stderrText.prefix(400))")
        #expect(run.leakedObjects == 0)
        #expect(run.violations == 0)
    }

    /// GStreamer's h264parse (not VA) rejects FRExt2_Panasonic.avc: with a fakesink and no decoder at all it
    /// stops with "Invalid H.264 stream". The test checks that this is still so, and holds the stream to the
    /// reference once GStreamer parses it.
    static func gstreamerParses(_ stream: URL) throws -> Bool {
        try ProcessRunner.run("gst-launch-1.0", ["-q", "filesrc", "location=\(stream.path)", "!", "h264parse", "!", "fakesink"]).status == 0
    }

    @Test("GStreamer's vaapih264dec through vtksoft gives the reference MD5 on the interlaced and 4:0:0 conformance streams",
          .enabled(if: VTKSoftGStreamer.isAvailable, "\(VTKSoftGStreamer.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func gstreamerConformance() throws {
        var matched: [String] = [], unparsed: [String] = []
        for stream in ConformanceStream.interlaced {
            guard try Self.gstreamerParses(stream.url) else {
                unparsed.append(stream.file)
                continue
            }
            let (md5, run) = try VTKSoftGStreamer.decodeMD5(stream.url)
            #expect(md5 == stream.md5, "\(stream.file): \(run.result.stderrText.suffix(400))")
            #expect(run.leakedObjects == 0, "\(stream.file): VA objects left at vaTerminate")
            #expect(run.violations == 0, "\(stream.file): GStreamer's parameters contradict its slices")
            if md5 == stream.md5 { matched.append(stream.file) }
        }
        // Only the one stream GStreamer's own parser is known to refuse may be left out.
        #expect(unparsed.allSatisfy { $0 == "FRExt2_Panasonic.avc" }, "h264parse refuses \(unparsed)")
        print("vtksoft interlaced decode through GStreamer: \(matched.count)/\(ConformanceStream.interlaced.count) streams match "
              + "(h264parse refuses \(unparsed.isEmpty ? "none" : unparsed.joined(separator: ", ")) before any decoder)")
    }

    @Test("GStreamer's vaapih264dec through vtksoft decodes libx264 MBAFF streams as FFmpeg's software decoder does",
          .enabled(if: VTKSoftGStreamer.isAvailable, "\(VTKSoftGStreamer.unavailableReason ?? "")"),
          arguments: GeneratedStream.mbaff)
    func gstreamerMBAFF(_ stream: GeneratedStream) throws {
        let url = try stream.url()
        let expected = try #require(try VTKSoftFFmpeg.softwareDecodeMD5(url))
        let (md5, run) = try VTKSoftGStreamer.decodeMD5(url)
        #expect(md5 == expected, "\(stream.name): \(run.result.stderrText.suffix(400))")
        #expect(run.leakedObjects == 0)
        #expect(run.violations == 0)
    }

    @Test("VTKSOFT_CAPTURE names each picture's field and MbaffFrameFlag: PAFF fields pair on one surface, MBAFF frames are frames",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func captureFields() throws {
        for name in ["HCAFF1_HHI.264", "HCAMFF1_HHI.264"] {
            let stream = try #require(ConformanceStream.interlaced.first { $0.file == name })
            let capture = TestPaths.scratch.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: capture) }
            let run = try VTKSoftFFmpeg.hardwareDecode(stream.url, muxer: "null", filters: [], extraEnvironment: ["VTKSOFT_CAPTURE": capture.path])
            #expect(run.result.status == 0)
            let lines = try String(contentsOf: capture, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            var fields = 0, mbaff = 0, fieldReferences = 0, pairsOnOneSurface = 0, previous: (target: Int, field: String)?
            for line in lines {
                let buffers = (line["buffers"] as? [[String: Any]]) ?? []
                let picture = try #require(buffers.first { $0["type"] as? String == "VAPictureParameterBufferType" }?["value"] as? [String: Any])
                let current = try #require(picture["CurrPic"] as? [String: Any])
                let field = try #require(current["field"] as? String)
                let fieldPic = (picture["pic_fields"] as? [String: Any])?["field_pic_flag"] as? Int
                #expect((fieldPic == 1) == (field != "frame"), "\(name): CurrPic field \(field), field_pic_flag \(fieldPic ?? -1)")
                if picture["MbaffFrameFlag"] as? Int == 1 { mbaff += 1 }
                let target = line["render_target"] as? Int ?? -1
                if field != "frame" {
                    fields += 1
                    // A second field goes to its first field's surface: opposite parities in a row on one surface.
                    if let previous, previous.field != "frame", previous.field != field, previous.target == target { pairsOnOneSurface += 1 }
                    let slices = buffers.filter { $0["type"] as? String == "VASliceParameterBufferType" }.flatMap { ($0["value"] as? [[String: Any]]) ?? [] }
                    for slice in slices {
                        let count = (slice["num_ref_idx_l0_active_minus1"] as? Int ?? 0) + 1
                        let entries = ((slice["RefPicList0"] as? [[String: Any]]) ?? []).prefix(slice["slice_type"] as? Int == 2 ? 0 : count)
                        for entry in entries where (entry["flags"] as? Int ?? 1) & 1 == 0 {
                            #expect(["top", "bottom"].contains(entry["field"] as? String), "\(name): a field's reference names \(entry)")
                            fieldReferences += 1
                        }
                    }
                }
                previous = (target, field)
                #expect((line["violations"] as? [Any])?.isEmpty == true, "\(name): \(line["violations"] ?? "")")
            }
            if name == "HCAFF1_HHI.264" {
                #expect(fields > 0 && fieldReferences > 0, "\(name): PAFF has field pictures with field references")
                #expect(pairsOnOneSurface > 0 && pairsOnOneSurface * 2 <= fields, "\(name): \(pairsOnOneSurface) pairs of \(fields) fields")
            } else {
                #expect(fields == 0 && mbaff == lines.count, "\(name): every picture an MBAFF frame")
            }
        }
    }
}
