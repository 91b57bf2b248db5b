import Foundation
import Testing
import VTKTestSupport

/// `vtk decode` and `vtk probe` on interlaced H.264 (field pictures, PAFF, MBAFF), against fluster's MD5s,
/// FFmpeg's software decode and FFmpeg's own reading of the stream (ffprobe's field_order, trace_headers).
@Suite("vtk decode and probe: interlaced H.264", .serialized)
struct InterlacedDecodeCommandTests {
    /// ffprobe's field order of a stream (from its parser: pic_struct, field parity, field order counts), as the
    /// Y4M header letter: "tt" -> t, "bb" -> b, anything else -> p.
    static func ffprobeInterlace(_ url: URL) throws -> String {
        let order = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0", url.path])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        return order.hasPrefix("tt") ? "t" : order.hasPrefix("bb") ? "b" : "p"
    }

    /// The Y4M header's I parameter of vtk's output.
    static func y4mInterlace(_ url: URL) throws -> String {
        let out = TestPaths.scratch.appendingPathComponent("interlaced-\(url.lastPathComponent).y4m")
        let run = try VTKBinary.run(["decode", "--device", "soft", "--quiet", url.path, "-o", out.path])
        #expect(run.status == 0, "\(run.stderrText.prefix(300))")
        let head = try FileHandle(forReadingFrom: out).read(upToCount: 120) ?? Data()
        let line = String(decoding: head.prefix { $0 != 0x0A }, as: UTF8.self)
        try? FileManager.default.removeItem(at: out)
        return line.split(separator: " ").first { $0.hasPrefix("I") }.map { String($0.dropFirst()) } ?? "?"
    }

    @Test("vtk decode --md5 equals reference.tsv and --framemd5 equals framemd5/, and Y4M carries ffprobe's field order",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.interlaced.isEmpty && ProcessRunner.hasFFmpeg, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.interlaced)
    func conformance(stream: ConformanceStream) throws {
        let md5 = try VTKBinary.run(["decode", "--device", "soft", "--quiet", "--md5", stream.url.path])
        #expect(md5.status == 0, "\(md5.stderrText.prefix(300))")
        #expect(md5.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)")
        let frames = try VTKBinary.run(["decode", "--device", "soft", "--quiet", "--framemd5", stream.url.path])
        let ours = frames.stdoutText.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
        #expect(ours == stream.frameMD5s, "per-frame MD5s differ from framemd5/ (\(ours.count) frames, \(stream.frameMD5s.count) expected)")
        #expect(try Self.y4mInterlace(stream.url) == (try Self.ffprobeInterlace(stream.url)))
    }

    @Test("libx264 MBAFF streams: vtk decode --framemd5 equals FFmpeg's software decode; Y4M It/Ib as ffprobe says",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.mbaff)
    func mbaff(stream: GeneratedStream) throws {
        let url = try stream.url()
        let reference = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-pix_fmt", "yuv420p", "-f", "framemd5", "-"])
            .stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        let frames = try VTKBinary.run(["decode", "--device", "soft", "--quiet", "--framemd5", url.path])
        #expect(frames.status == 0, "\(frames.stderrText.prefix(300))")
        let ours = frames.stdoutText.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
        #expect(ours.count == stream.frames)
        #expect(ours == reference)
        let interlace = try Self.y4mInterlace(url)
        #expect(interlace == (try Self.ffprobeInterlace(url)))
        #expect(interlace == (stream.name.contains("-tff-") ? "t" : "b"), "libx264 was asked for \(stream.name.contains("-tff-") ? "tff" : "bff")")
    }

    /// FFmpeg's trace_headers bitstream filter prints every slice header: the first slice of each picture
    /// gives its structure (field_pic_flag, bottom_field_flag; MBAFF from the SPS).
    static func traceStructures(_ url: URL) throws -> [String] {
        let trace = try ProcessRunner.run("ffmpeg", ["-v", "error", "-hide_banner", "-loglevel", "trace", "-i", url.path, "-c", "copy",
                                                     "-bsf:v", "trace_headers", "-f", "null", "-"])
        var structures: [String] = []
        var mbaff = false
        var inSlice = false, field = false
        func value(_ line: Substring) -> Int? { line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
        for line in trace.stderrText.split(separator: "\n") {
            if line.contains(" mb_adaptive_frame_field_flag ") { mbaff = value(line) == 1 }
            if line.contains(" first_mb_in_slice ") { inSlice = value(line) == 0 }
            guard inSlice else { continue }
            if line.contains(" field_pic_flag ") {
                field = value(line) == 1
                if !field { structures.append(mbaff ? "MBAFF frame" : "frame"); inSlice = false }
            } else if line.contains(" bottom_field_flag ") {
                structures.append(value(line) == 1 ? "bottom field" : "top field")
                inSlice = false
            }
        }
        return structures
    }

    @Test("vtk probe --json: each picture's structure as FFmpeg's trace_headers reads it, and the stream's field order",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.interlaced.isEmpty && ProcessRunner.hasFFmpeg, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.interlaced.filter { ["HCAFF1_HHI.264", "FRExt2_Panasonic.avc", "HCAMFF1_HHI.264", "freh4.264"].contains($0.file) })
    func probe(stream: ConformanceStream) throws {
        let run = try VTKBinary.run(["probe", "--json", stream.url.path])
        #expect(run.status == 0, "\(run.stderrText.prefix(300))")
        let json = try #require(JSONSerialization.jsonObject(with: Data(run.stdoutText.utf8)) as? [String: Any])
        let perFrame = try #require(json["per_frame"] as? [[String: Any]])
        let structures = perFrame.compactMap { $0["structure"] as? String }
        #expect(structures == (try Self.traceStructures(stream.url)))
        #expect(structures.contains { $0.hasSuffix("field") } == !["HCAMFF1_HHI.264"].contains(stream.file))
        // Both fields of a pair share one display index; the display indices cover every frame once.
        let display = Set(perFrame.compactMap { $0["display_index"] as? Int })
        #expect(display == Set(0..<stream.frames))
        let order = json["field_order"] as? String
        let ffprobe = try Self.ffprobeInterlace(stream.url)
        #expect(order == "top field first" && ffprobe == "t", "ffprobe says \(ffprobe)")
    }
}
