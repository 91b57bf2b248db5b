import Foundation
import Testing
import VTKTestSupport

/// The friction a new user met (issue 12): messages, limits, spellings, outputs, summaries and help.
@Suite("vtk without friction", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct FrictionTests {
    static func json(_ result: ProcessRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText) \(result.stderrText)")
    }

    @Test("An unsupported profile: one line with the reason, named as a profile; no MD5 of nothing, no empty summary")
    func unsupportedProfile() throws {
        let stream = try Fixture.folder("hi10").appendingPathComponent("hi10.h264")
        try Fixture.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "5", "-pix_fmt", "yuv420p10le", "-c:v", "libx264", stream.path])
        let result = try VTKBinary.run(["decode", stream.path, "--md5", "--device", "soft"])
        #expect(result.status == 3)
        #expect(!result.stdoutText.contains("MD5="), "\(result.stdoutText)")
        #expect(!result.stderrText.contains("0 frames"), "\(result.stderrText)")
        let mentions = result.stderrText.components(separatedBy: "H.264 High 10 (profile_idc 110, 4:2:0, 10-bit): libva ").count - 1
        #expect(mentions == 1, "\(result.stderrText)")
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
    }

    @Test("libavcodec's own messages do not reach standard error")
    func libavcodecSilenced() throws {
        let clean = try GeneratedStream.standard[0].url()
        var bytes = [UInt8](try Data(contentsOf: clean))
        // Damage slice data in the middle of the stream, away from the parameter sets.
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 400, by: 7) { bytes[i] ^= 0x5A }
        let damaged = try Fixture.folder("damaged").appendingPathComponent("damaged.264")
        try Data(bytes).write(to: damaged)
        let result = try VTKBinary.run(["decode", damaged.path, "--device", "soft"])
        #expect(!result.stderrText.contains("[h264 @"), "\(result.stderrText)")
    }

    @Test("--json for encode and decode; -n N limits encode, decode, probe and roundtrip")
    func jsonAndFrameLimits() throws {
        let dir = try Fixture.folder("json")
        let y4m = dir.appendingPathComponent("in.y4m"), out = dir.appendingPathComponent("out.h264")
        try Fixture.ffmpeg(Fixture.testsrc("96x64", frames: 12) + [y4m.path])
        let encode = try Self.json(try VTKBinary.run(["encode", y4m.path, "-n", "7", "-o", out.path, "--json", "--device", "soft"]))
        #expect(encode["frames"] as? Int == 7)
        #expect(encode["file_bytes"] as? Int == Fixture.size(out))
        #expect((encode["payload_bytes"] as? Int).map { $0 > 0 && $0 < Fixture.size(out) } == true)
        #expect(try Fixture.ffprobe(out, "nb_read_frames", extra: ["-count_frames"]) == "7")

        let decode = try Self.json(try VTKBinary.run(["decode", out.path, "--frames", "5", "--md5", "--json", "--device", "soft"]))
        #expect(decode["frames"] as? Int == 5 && decode["width"] as? Int == 96 && decode["exitCode"] as? Int == 0)
        let theirs = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", out.path, "-frames:v", "5", "-pix_fmt", "yuv420p", "-f", "md5", "-"])
        #expect("MD5=\(decode["md5"] as? String ?? "")" == theirs.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        let framemd5 = try VTKBinary.run(["decode", out.path, "-n", "3", "--framemd5", "-q", "--device", "soft"])
        #expect(framemd5.stdoutText.split(separator: "\n").count == 3)

        let probe = try Self.json(try VTKBinary.run(["probe", out.path, "-n", "4", "--json"]))
        #expect(probe["frames"] as? Int == 4)
        let roundtrip = try Self.json(try VTKBinary.run(["roundtrip", y4m.path, "-n", "6", "--json", "--device", "soft"]))
        #expect(roundtrip["frames"] as? Int == 6)
    }

    @Test("ffmpeg spellings and typos get the vtk spelling; a mistyped command gets 'did you mean'")
    func suggestions() throws {
        let raw = try Fixture.folder("spell").appendingPathComponent("raw.yuv")
        try Data(repeating: 128, count: 64 * 48 * 3 / 2).write(to: raw)
        let cases: [([String], String)] = [
            (["encode", raw.path, "-s", "64x48", "-o", "/dev/null"], "did you mean --size?"),
            (["encode", raw.path, "-r", "25", "-o", "/dev/null"], "did you mean --fps?"),
            (["encode", raw.path, "-g", "25", "-o", "/dev/null"], "did you mean --keyint?"),
            (["encode", raw.path, "-b", "1M", "-o", "/dev/null"], "did you mean --bitrate?"),
            (["encode", raw.path, "--pix_fmt", "i420", "-o", "/dev/null"], "did you mean --pix-fmt?"),
            (["encode", raw.path, "--bitrat", "1M", "-o", "/dev/null"], "did you mean --bitrate?"),
            (["encode", raw.path, "--size", "64x48", "--pix-fmt", "yuv420p", "-o", "/dev/null"], "did you mean i420?"),
            (["encode", raw.path, "--size", "64x48", "--profile", "baseline", "-o", "/dev/null"], "did you mean constrained-baseline?"),
            (["decod", raw.path], "did you mean decode?"),
        ]
        for (arguments, hint) in cases {
            let result = try VTKBinary.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderrText.contains(hint), "\(arguments): \(result.stderrText)")
            #expect(!result.stderrText.contains("commands:"), "the whole usage was printed for \(arguments)")
        }
    }

    @Test("Output types follow the extension: .mov is MP4, .mkv and .png are refused, -o -.y4m is Y4M on stdout, --faststart on .h264 warns")
    func outputTypes() throws {
        let dir = try Fixture.folder("ext")
        let y4m = dir.appendingPathComponent("in.y4m")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + [y4m.path])
        let mov = dir.appendingPathComponent("out.mov")
        #expect(try VTKBinary.run(["encode", y4m.path, "-o", mov.path, "-q", "--device", "soft"]).status == 0)
        let format = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", mov.path])
        #expect(format.stdoutText.contains("mov,mp4"), "\(format.stdoutText)")
        #expect(try Fixture.ffprobe(mov, "nb_read_frames", extra: ["-count_frames"]) == "3")
        for name in ["out.mkv", "out.png"] {
            let result = try VTKBinary.run(["encode", y4m.path, "-o", dir.appendingPathComponent(name).path, "--device", "soft"])
            #expect(result.status == 2, "\(name): \(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path))
        }
        let h264 = dir.appendingPathComponent("out.h264")
        let faststart = try VTKBinary.run(["encode", y4m.path, "-o", h264.path, "--faststart", "--device", "soft"])
        #expect(faststart.status == 0 && faststart.stderrText.contains("--faststart applies to MP4 output only"), "\(faststart.stderrText)")
        let png = try VTKBinary.run(["decode", h264.path, "-o", dir.appendingPathComponent("x.png").path, "--device", "soft"])
        #expect(png.status == 2 && png.stderrText.contains("--png-dir"), "\(png.stderrText)")
        let stdoutY4M = try VTKBinary.run(["decode", h264.path, "-o", "-.y4m", "-q", "--device", "soft"])
        #expect(stdoutY4M.status == 0)
        #expect(stdoutY4M.stdout.starts(with: Array("YUV4MPEG2 W64 H48".utf8)))
    }

    @Test("--png-dir creates missing parents, --frames DIR still works, PNGs are compressed like ffmpeg's")
    func pngDirectory() throws {
        let dir = try Fixture.folder("png")
        let stream = try GeneratedStream.standard[0].url()
        let nested = dir.appendingPathComponent("a/b/c")
        #expect(try VTKBinary.run(["decode", stream.path, "--png-dir", nested.path, "-n", "2", "-q", "--device", "soft"]).status == 0)
        let first = nested.appendingPathComponent("frame-000000.png")
        #expect(FileManager.default.fileExists(atPath: nested.appendingPathComponent("frame-000001.png").path))
        let old = dir.appendingPathComponent("old")
        #expect(try VTKBinary.run(["decode", stream.path, "--frames", old.path, "-q", "--device", "soft"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: old.appendingPathComponent("frame-000000.png").path))
        // ffmpeg reads it back as the same picture it decodes itself (within rounding), and its own PNG is not much smaller.
        let theirs = dir.appendingPathComponent("ffmpeg.png")
        try Fixture.ffmpeg(["-i", stream.path, "-frames:v", "1", theirs.path])
        #expect(Fixture.size(first) < Fixture.size(theirs) * 3 / 2, "vtk \(Fixture.size(first)) bytes, ffmpeg \(Fixture.size(theirs))")
        #expect(try Fixture.ffprobe(first, "width") == "176")
    }

    @Test("The rate-control result: target, bit rate reached and whether CBR missed by more than 10%, on stderr and in JSON")
    func rateControlResult() throws {
        let dir = try Fixture.folder("cbr")
        let y4m = dir.appendingPathComponent("in.y4m")
        try Fixture.ffmpeg(Fixture.testsrc("320x240", frames: 30) + [y4m.path])
        for target in [100_000, 3_000_000] {
            let result = try VTKBinary.run(["encode", y4m.path, "--bitrate", "\(target)", "-o", dir.appendingPathComponent("o.h264").path, "--device", "soft"])
            #expect(result.status == 0)
            let json = try Self.json(try VTKBinary.run(["encode", y4m.path, "--bitrate", "\(target)", "--json", "-o", dir.appendingPathComponent("o.h264").path, "--device", "soft"]))
            let control = try #require(json["rate_control"] as? [String: Any])
            let bitrate = try #require(json["bitrate"] as? Double)
            let deviation = try #require(control["deviation"] as? Double)
            #expect(control["mode"] as? String == "CBR" && control["target"] as? Int == target)
            #expect(abs(deviation - (bitrate - Double(target)) / Double(target)) < 1e-9)
            #expect(control["missed_target"] as? Bool == (abs(deviation) > 0.10))
            #expect(result.stderrText.contains("CBR target \(String(format: "%.1f", Double(target) / 1000)) kbit/s, got"), "\(result.stderrText)")
            #expect(result.stderrText.contains("missed by more than 10%") == (abs(deviation) > 0.10), "\(result.stderrText)")
        }
    }

    @Test("Summary lines: under 100 characters, the file's real size, the device once")
    func summaryLines() throws {
        let dir = try Fixture.folder("summary")
        let y4m = dir.appendingPathComponent("in.y4m"), out = dir.appendingPathComponent("out.mp4")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + [y4m.path])
        let encode = try VTKBinary.run(["encode", y4m.path, "-o", out.path, "--device", "soft"])
        let decode = try VTKBinary.run(["decode", out.path, "--device", "soft"])
        for result in [encode, decode] {
            #expect(result.status == 0)
            for line in result.stderrText.split(separator: "\n") {
                #expect(line.count < 100, "\(line.count) characters: \(line)")
                #expect(!line.contains("vtksoft (vtksoft"), "\(line)")
            }
        }
        let size = Fixture.size(out)
        #expect(encode.stderrText.contains("(\(size < 1000 ? "\(size) B" : String(format: "%.1f kB", Double(size) / 1000)), "), "\(encode.stderrText)")
        #expect(encode.stderrText.contains("B payload"))
    }

    @Test("probe: GOP lengths in the same order in text and JSON, truncation marked with …")
    func probeConsistency() throws {
        let stream = try Fixture.folder("gop").appendingPathComponent("gop.h264")
        // IDRs every 5 frames, then a longer last GOP: the lengths are not sorted.
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 48) + ["-c:v", "libx264", "-x264-params", "keyint=40:min-keyint=40:scenecut=0:bframes=0", stream.path])
        let json = try Self.json(try VTKBinary.run(["probe", stream.path, "--json"]))
        let lengths = try #require((json["gop"] as? [String: Any])?["lengths"] as? [Int])
        #expect(lengths == [40, 8])
        let text = try VTKBinary.run(["probe", stream.path]).stdoutText
        #expect(text.contains("lengths 40, 8, pattern IPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP…"), "\(text)")
        #expect(json["problems_left_out"] as? Int == 0)
    }

    @Test("Help: examples on every page, only the command's exit codes, --version listed, decode says frames are discarded without -o")
    func helpPages() throws {
        let top = try VTKBinary.run(["--help"]).stdoutText
        #expect(top.contains("--version"))
        let expectations: [String: (has: [Int32], lacks: [Int32])] = [
            "info": ([0, 2, 4], [1, 3, 5]), "probe": ([0, 2, 3], [1, 4, 5]), "decode": ([0, 2, 3, 4, 5], [1]), "roundtrip": ([0, 1, 2, 3], []),
        ]
        for (command, codes) in expectations {
            let help = try VTKBinary.run(["help", command]).stdoutText
            let examples = help.components(separatedBy: "examples:\n").last?.split(separator: "\n").prefix { $0.hasPrefix("  vtk ") || $0.hasPrefix("  ffmpeg ") }
            #expect((2...3).contains(examples?.count ?? 0), "\(command): \(help)")
            let exitSection = help.components(separatedBy: "exit codes:\n").last ?? ""
            for code in codes.has { #expect(exitSection.contains("  \(code)  "), "\(command) lacks exit code \(code)") }
            for code in codes.lacks { #expect(!exitSection.contains("  \(code)  "), "\(command) lists exit code \(code)") }
        }
        #expect(try VTKBinary.run(["help", "decode"]).stdoutText.contains("discarded"))
    }
}
