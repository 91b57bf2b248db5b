import Foundation
import Testing
import VTKTestSupport

/// `vtk decode` on H.265 through vtksoft, against FFmpeg's software decoder (reference.tsv, framemd5/).
@Suite("vtk decode for H.265 through vtksoft", .serialized)
struct H265DecodeTests {
    @Test("vtk decode --md5 equals reference.tsv for every H.265 stream, and --framemd5 equals framemd5/",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          arguments: H265ConformanceStream.names)
    func decodeMD5(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        // One run prints both: a line per frame, then MD5= of the whole output. For the long 720p stream the
        // whole-output MD5 alone is checked (frames of a fixed size: equal output bytes are equal frames),
        // which halves the time hashing takes in a debug build.
        let perFrame = stream.frames <= 100
        let result = try VTKBinary.run(["decode", stream.url.path, "--md5", "--device", "soft", "-q"] + (perFrame ? ["--framemd5"] : []))
        #expect(result.status == 0, "\(result.stderrText)")
        let output = result.stdoutText.split(separator: "\n")
        #expect(output.last.map(String.init) == "MD5=\(stream.md5)")
        guard perFrame else { return }
        let lines = output.filter { $0.contains("\t") }.map { $0.split(separator: "\t").last.map(String.init) ?? "" }
        #expect(lines == stream.frameMD5s, "\(name): frame MD5s differ")
        #expect(lines.count == stream.frames)
    }

    @Test("libx265 streams made at run time decode like FFmpeg's software decoder",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.h265)
    func generated(_ stream: GeneratedStream) throws {
        let url = try stream.url()
        let theirs = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "md5", "-"])
        let ours = try VTKBinary.run(["decode", url.path, "--md5", "--device", "soft", "-q"])
        #expect(ours.status == 0, "\(ours.stderrText)")
        #expect(ours.stdoutText == theirs.stdoutText && ours.stdoutText.hasPrefix("MD5="))
    }

    static func stream(_ name: String) throws -> ConformanceStream {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        return stream
    }

    @Test("Main 10 output: Y4M C420p10, raw p010 and yuv420p10le, PNG as 8-bit RGB",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func tenBitOutputs() throws {
        let stream = try Self.stream("x265_cif_main10.265")
        let y4m = TestPaths.scratch.appendingPathComponent("main10.y4m")
        #expect(try VTKBinary.run(["decode", stream.url.path, "-o", y4m.path, "--device", "soft", "-q"]).status == 0)
        let header = try String(decoding: Data(contentsOf: y4m).prefix(80), as: UTF8.self)
        #expect(header.hasPrefix("YUV4MPEG2 W352 H288 ") && header.contains(" C420p10"), "\(header)")
        // FFmpeg reads the Y4M back as yuv420p10le: the same MD5 as the reference.
        let back = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", y4m.path, "-f", "md5", "-"])
        #expect(back.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)")

        for (format, ffmpegFormat) in [("p010", "p010le"), ("yuv420p10le", "yuv420p10le")] {
            let raw = TestPaths.scratch.appendingPathComponent("main10.\(format)")
            #expect(try VTKBinary.run(["decode", stream.url.path, "-o", raw.path, "--pix-fmt", format, "--device", "soft", "-q"]).status == 0)
            let size = try Data(contentsOf: raw).count
            #expect(size == stream.frames * 352 * 288 * 3)
            let md5 = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", ffmpegFormat, "-s", "352x288", "-i", raw.path,
                                                       "-pix_fmt", "yuv420p10le", "-f", "md5", "-"])
            #expect(md5.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)", "\(format)")
        }

        let pictures = TestPaths.scratch.appendingPathComponent("main10-png")
        #expect(try VTKBinary.run(["decode", stream.url.path, "--frames", pictures.path, "--device", "soft", "-q"]).status == 0)
        let png = pictures.appendingPathComponent("frame-000000.png")
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,pix_fmt", "-of", "csv=p=0", png.path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "352,288,rgb24")
    }

    @Test("H.265 is told from H.264 by its NAL headers; --codec forces the codec",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func detection() throws {
        let stream = try Self.stream("x265_cif_lossless.265")
        // Through a pipe: detection reads the first bytes and hands them to the decoder again.
        let piped = try VTKBinary.run(["decode", "-", "--md5", "--device", "soft", "-q"], stdin: stream.url)
        #expect(piped.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)", "\(piped.stderrText)")
        let forced = try VTKBinary.run(["decode", stream.url.path, "--codec", "h265", "--md5", "--device", "soft", "-q"])
        #expect(forced.stdoutText.contains(stream.md5))
        // Read as H.264, the stream has no decodable picture: an input error, not a crash.
        let wrong = try VTKBinary.run(["decode", stream.url.path, "--codec", "h264", "--md5", "--device", "soft", "-q"])
        #expect(wrong.status == 3, "\(wrong.stderrText)")
        let bad = try VTKBinary.run(["decode", stream.url.path, "--codec", "vp9"])
        #expect(bad.status == 2)
    }

    @Test("starting at a CRA: frames from the CRA on equal the reference, its RASL pictures are skipped and reported",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func startAtCRA() throws {
        let stream = try Self.stream("x265_cif_opengop_cra.265")
        let bytes = Array(try Data(contentsOf: stream.url))
        // Cut before the first CRA's NAL unit (type 21), keeping the VPS/SPS/PPS at the start.
        var craStart: Int?, parameterSetsEnd = 0, i = 0
        while i + 4 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                let type = (bytes[i + 3] >> 1) & 0x3F
                if !(32...34).contains(type) && parameterSetsEnd == 0 { parameterSetsEnd = i }
                if type == 21 { craStart = i; break }
            }
            i += 1
        }
        let cra = try #require(craStart)
        let cut = TestPaths.scratch.appendingPathComponent("from-cra.265")
        try Data(bytes[..<parameterSetsEnd] + bytes[cra...]).write(to: cut)
        let result = try VTKBinary.run(["decode", cut.path, "--framemd5", "--device", "soft"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("RASL picture"))
        let ours = result.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").last ?? "") }
        // FFmpeg's own decoder on the cut stream is the oracle for which frames come out.
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", cut.path, "-f", "framemd5", "-"])
        let theirs = ffmpeg.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
        #expect(ours == theirs)
        #expect(!ours.isEmpty && Set(ours).isSubset(of: Set(stream.frameMD5s)))
    }
}

@Suite("vtk decode of H.265 MP4 files made by FFmpeg", .serialized)
struct H265MP4DecodeTests {
    /// Every stream as hvc1; three of them also as hev1, with faststart and fragmented.
    static let muxings: [(tag: String, flags: [String], streams: [String]?)] = [
        ("hvc1", [], nil),
        ("hev1", [], ["x265_cif_bpyramid.265", "x265_cif_main10.265", "x265_cif_opengop_cra.265"]),
        ("hvc1", ["-movflags", "+faststart"], ["x265_cif_bpyramid.265", "x265_cif_main10.265", "x265_cif_opengop_cra.265"]),
        ("hvc1", ["-movflags", "+frag_keyframe+empty_moov"], ["x265_cif_bpyramid.265", "x265_cif_main10.265", "x265_cif_opengop_cra.265"]),
    ]

    @Test("MP4s remuxed by FFmpeg (hvc1, hev1, faststart, fragmented) decode to the reference MD5s",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func remuxed() throws {
        guard !H265ConformanceStream.all.isEmpty else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        for (n, muxing) in Self.muxings.enumerated() {
            for stream in H265ConformanceStream.all where muxing.streams?.contains(stream.file) ?? (stream.frames <= 40) {
                let mp4 = TestPaths.scratch.appendingPathComponent("vtk-\(n)-\(stream.file).mp4")
                let remux = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-i", stream.url.path, "-c", "copy", "-tag:v", muxing.tag]
                                                  + muxing.flags + [mp4.path])
                try #require(remux.status == 0, "\(remux.stderrText)")
                let result = try VTKBinary.run(["decode", mp4.path, "--md5", "--device", "soft", "-q"])
                #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)",
                        "\(stream.file) \(muxing.tag) \(muxing.flags): \(result.stderrText.prefix(300))")
            }
        }
    }
}

@Suite("vtk on H.265 streams it cannot or must not decode", .serialized)
struct H265UnsupportedTests {
    @Test("4:2:2, 4:4:4, 4:0:0 and 12-bit streams: one clear line, exit 3",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: [("yuv422p", "4:2:2"), ("yuv444p", "4:4:4"), ("gray", "4:0:0"), ("yuv420p12le", "12-bit")])
    func unsupported(_ pixelFormat: String, _ said: String) throws {
        let url = TestPaths.scratch.appendingPathComponent("x265-\(pixelFormat).265")
        let encode = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=5", "-frames:v", "4",
                                                      "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", pixelFormat, url.path])
        guard encode.status == 0 else { try Test.cancel("this libx265 cannot encode \(pixelFormat)") }
        let result = try VTKBinary.run(["decode", url.path, "--md5", "--device", "soft", "-q"])
        #expect(result.status == 3)
        let lines = result.stderrText.split(separator: "\n").filter { $0.contains("unsupported stream") }
        #expect(lines.count == 1 && lines[0].contains(said), "\(result.stderrText)")
    }

    @Test("damaged copies of every H.265 stream: exit 0 or 3 with problems named, never a crash",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func damaged() throws {
        guard !H265ConformanceStream.all.isEmpty else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        for (n, stream) in H265ConformanceStream.all.filter({ $0.frames <= 40 }).enumerated() {
            var bytes = Array(try Data(contentsOf: stream.url))
            // Zero a run in the middle, flip bytes near the end, cut the last 100 bytes.
            let middle = bytes.count / 2
            for i in middle..<min(middle + 64, bytes.count) { bytes[i] = 0 }
            for i in stride(from: bytes.count * 3 / 4, to: bytes.count - 200, by: 997) { bytes[i] ^= 0x5A }
            bytes.removeLast(100)
            let url = TestPaths.scratch.appendingPathComponent("damaged-\(n).265")
            try Data(bytes).write(to: url)
            let result = try VTKBinary.run(["decode", url.path, "--md5", "--device", "soft", "-q"])
            #expect(result.status == 0 || result.status == 3, "\(stream.file): exit \(result.status): \(result.stderrText.suffix(300))")
            if result.status == 3 { #expect(result.stderrText.contains("byte"), "\(stream.file): \(result.stderrText.prefix(300))") }
        }
    }

    @Test("vtk probe on H.265: every picture with its type, POC and display position",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func probe() throws {
        guard let stream = H265ConformanceStream.named("x265_cif_opengop_cra.265") else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let result = try VTKBinary.run(["probe", stream.url.path, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(json["codec"] as? String == "h265" && json["width"] as? Int == 352 && json["bit_depth"] as? Int == 8)
        let frames = try #require(json["per_frame"] as? [[String: Any]])
        #expect(frames.count == stream.frames)
        #expect(Set(frames.compactMap { $0["display_index"] as? Int }) == Set(0..<stream.frames))
        // Display order is POC order within the stream's one sequence.
        let byDisplay = frames.sorted { ($0["display_index"] as? Int ?? 0) < ($1["display_index"] as? Int ?? 0) }.compactMap { $0["poc"] as? Int }
        #expect(byDisplay == byDisplay.sorted())
        #expect(frames.contains { $0["nal_unit_type"] as? String == "CRA" } && frames.contains { $0["nal_unit_type"] as? String == "RASL_N" })
    }
}

@Suite("vtk decode: no_output_of_prior_pics_flag, against FFmpeg")
struct H265NoOutputOfPriorPicsTests {
    @Test("a second IDR with no_output_of_prior_pics_flag 1 drops the pictures still waiting, as FFmpeg does",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func noOutputOfPriorPics() throws {
        guard let stream = H265ConformanceStream.named("x265_cif_bpyramid.265") else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let bytes = Array(try Data(contentsOf: stream.url))
        var second = bytes
        // The first IDR slice: first_slice_segment_in_pic_flag, then no_output_of_prior_pics_flag (7.3.6.1).
        var i = 0
        while i + 5 < second.count {
            if second[i] == 0, second[i + 1] == 0, second[i + 2] == 1, [19, 20].contains((second[i + 3] >> 1) & 0x3F) {
                second[i + 5] |= 0x40
                break
            }
            i += 1
        }
        let url = TestPaths.scratch.appendingPathComponent("no-output-of-prior-pics.265")
        try Data(bytes + second).write(to: url)
        let ours = try VTKBinary.run(["decode", url.path, "--framemd5", "--device", "soft", "-q"])
        let mine = ours.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").last ?? "") }
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "framemd5", "-"])
        let theirs = ffmpeg.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
        #expect(mine == theirs)
        #expect(mine.count < 2 * stream.frames, "some pictures were dropped")
    }
}
