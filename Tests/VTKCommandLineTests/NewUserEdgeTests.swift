import Foundation
import Testing
import VTKTestSupport
@testable import VTKCommandLine

/// Fixtures made with ffmpeg at test time, each in its own scratch folder.
enum Fixture {
    static func folder(_ name: String) throws -> URL {
        let url = TestPaths.scratch.appendingPathComponent("edge-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs ffmpeg (quiet, overwriting) and requires it to succeed.
    static func ffmpeg(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y"] + arguments)
        try #require(result.status == 0, "ffmpeg \(arguments.joined(separator: " ")): \(result.stderrText)", sourceLocation: sourceLocation)
    }

    static func testsrc(_ size: String, rate: String = "30", frames: Int) -> [String] {
        ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p"]
    }

    /// ffprobe's value of one entry of the first video stream.
    static func ffprobe(_ url: URL, _ entry: String, extra: [String] = []) throws -> String {
        try ffprobe(url, [entry], extra: extra)[entry] ?? ""
    }

    static func ffprobe(_ url: URL, _ entries: [String], extra: [String] = []) throws -> [String: String] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0"] + extra
                                           + ["-show_entries", "stream=" + entries.joined(separator: ","), "-of", "default=nw=1", url.path])
        var values: [String: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    static func size(_ url: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? -1 }
}

/// The bugs a trial as a new user found (issue 12), each with the command that showed it.
@Suite("vtk at the edges a new user meets", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct NewUserEdgeTests {
    @Test("1. An output that is the input (by device and inode, also under another name) is refused and left intact")
    func sameFile() throws {
        let dir = try Fixture.folder("same")
        let y4m = dir.appendingPathComponent("same.y4m"), h264 = dir.appendingPathComponent("same.h264")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + [y4m.path])
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx264", h264.path])
        let link = dir.appendingPathComponent("alias.h264")
        try FileManager.default.linkItem(at: h264, to: link)
        let sizes = (Fixture.size(y4m), Fixture.size(h264))
        for arguments in [["encode", y4m.path, "-o", y4m.path], ["decode", h264.path, "-o", h264.path], ["decode", h264.path, "-o", link.path],
                          ["encode", y4m.path, "-o", dir.appendingPathComponent("../\(dir.lastPathComponent)/same.y4m").path]] {
            let result = try VTKBinary.run(arguments + ["--device", "soft"])
            #expect(result.status == 2, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.contains("is the input file"), "\(result.stderrText)")
        }
        #expect((Fixture.size(y4m), Fixture.size(h264)) == sizes)
    }

    @Test("2. --fps takes rationals up to 32 bits and decimals (29.97 is 30000/1001), in lowest terms")
    func frameRateParsing() throws {
        let cases: [(String, (Int, Int)?)] = [
            ("30000/1001", (30000, 1001)), ("29.97", (30000, 1001)), ("23.976", (24000, 1001)), ("59.94", (60000, 1001)),
            ("12.5", (25, 2)), ("60/2", (30, 1)), ("30", (30, 1)), ("30.0", (30, 1)), ("2147483647/1", (2_147_483_647, 1)),
            ("1/2147483647", (1, 2_147_483_647)), ("2147483648/1", nil), ("0", nil), ("-30", nil), ("30/0", nil), ("abc", nil), ("", nil), (".", nil),
        ]
        for (text, expected) in cases {
            let parsed = FrameRate.parse(text)
            #expect(parsed?.0 == expected?.0 && parsed?.1 == expected?.1, "'\(text)' gave \(String(describing: parsed))")
        }
        let dir = try Fixture.folder("fps")
        let raw = dir.appendingPathComponent("raw.yuv")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 2) + ["-f", "rawvideo", raw.path])
        for fps in ["30000/1001", "29.97", "24000/1001", "12.5"] {
            let result = try VTKBinary.run(["encode", raw.path, "--size", "64x48", "--fps", fps, "-o", "/dev/null", "--device", "soft", "-q"])
            #expect(result.status == 0, "--fps \(fps): \(result.stderrText)")
        }
    }

    @Test("3. --fps overrides a Y4M header's rate, with a note")
    func frameRateOverridesY4M() throws {
        let dir = try Fixture.folder("y4mfps")
        let y4m = dir.appendingPathComponent("in.y4m"), mp4 = dir.appendingPathComponent("out.mp4")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", rate: "25", frames: 4) + [y4m.path])
        let result = try VTKBinary.run(["encode", y4m.path, "--fps", "50", "-o", mp4.path, "--device", "soft"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("--fps 50 overrides the Y4M header's 25 fps"), "\(result.stderrText)")
        #expect(try Fixture.ffprobe(mp4, "r_frame_rate") == "50/1")
    }

    @Test("4. The frame rate survives: VUI timing in Annex B output, MP4 -> Y4M, and x264's 60/2 written as 30/1")
    func frameRateKept() throws {
        let dir = try Fixture.folder("rate")
        let raw = dir.appendingPathComponent("raw.yuv")
        try Fixture.ffmpeg(Fixture.testsrc("640x360", frames: 3) + ["-f", "rawvideo", raw.path])
        for name in ["o.h264", "o.mp4"] {
            let out = dir.appendingPathComponent(name)
            let result = try VTKBinary.run(["encode", raw.path, "--size", "640x360", "--fps", "30000/1001", "-o", out.path, "--device", "soft", "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(try Fixture.ffprobe(out, "r_frame_rate") == "30000/1001", "\(name)")
        }
        // An MP4 at 24 fps, and an x264 Annex B stream at 30 fps (VUI time_scale 60, num_units_in_tick 1).
        let mp4 = dir.appendingPathComponent("in.mp4"), annexB = dir.appendingPathComponent("in.h264")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", rate: "24", frames: 5) + ["-c:v", "libx264", "-bf", "2", mp4.path])
        try Fixture.ffmpeg(Fixture.testsrc("64x48", rate: "30", frames: 5) + ["-c:v", "libx264", annexB.path])
        for (input, header) in [(mp4, "F24:1"), (annexB, "F30:1")] {
            let y4m = dir.appendingPathComponent(input.lastPathComponent + ".y4m")
            let result = try VTKBinary.run(["decode", input.path, "-o", y4m.path, "--device", "soft", "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
            let firstLine = String(decoding: try Data(contentsOf: y4m).prefix { $0 != 0x0A }, as: UTF8.self)
            #expect(firstLine.split(separator: " ").contains(Substring(header)), "\(input.lastPathComponent): \(firstLine)")
        }
    }

    @Test("5. MPEG-TS and MKV are named, with what to do (HEVC decodes); encode refuses MP4 and H.264 input")
    func signatures() throws {
        let dir = try Fixture.folder("sig")
        let h264 = dir.appendingPathComponent("in.h264"), mp4 = dir.appendingPathComponent("in.mp4")
        let hevc = dir.appendingPathComponent("in.hevc"), ts = dir.appendingPathComponent("in.ts"), mkv = dir.appendingPathComponent("in.mkv")
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx264", h264.path])
        for file in [mp4, ts, mkv] { try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx264", file.path]) }
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx265", "-x265-params", "log-level=none", "-f", "hevc", hevc.path])
        // H.265 is decoded and probed (issue 17); forced as H.264 it is named.
        #expect(try VTKBinary.run(["decode", hevc.path, "--device", "soft", "-q"]).status == 0)
        #expect(try VTKBinary.run(["probe", hevc.path]).status == 0)
        let forced = try VTKBinary.run(["decode", hevc.path, "--codec", "h264", "--device", "soft"])
        #expect(forced.status == 3 && forced.stderrText.contains("H.265 (HEVC)"), "\(forced.stderrText)")
        for (file, words) in [(ts, "MPEG transport stream"), (mkv, "Matroska")] {
            for command in ["decode", "probe"] {
                let result = try VTKBinary.run([command, file.path] + (command == "decode" ? ["--device", "soft"] : []))
                #expect(result.status == 3, "\(command) \(file.lastPathComponent): \(result.stderrText)")
                #expect(result.stderrText.contains(words) && result.stderrText.contains("ffmpeg -i"), "\(result.stderrText)")
            }
        }
        // Through a pipe too.
        let piped = try VTKBinary.run(["decode", "-", "--device", "soft"], stdin: ts)
        #expect(piped.status == 3 && piped.stderrText.contains("MPEG transport stream"), "\(piped.stderrText)")
        for file in [mp4, h264] {
            let result = try VTKBinary.run(["encode", file.path, "--size", "64x48", "-o", dir.appendingPathComponent("x.h264").path, "--device", "soft"])
            #expect(result.status == 3, "\(result.stderrText)")
            #expect(result.stderrText.contains("already coded"), "\(result.stderrText)")
        }
        #expect(InputSignature(head: [0, 0, 0, 1, 0x40, 0x01, 0x0C]) == .hevcAnnexB)
        #expect(InputSignature(head: [0, 0, 0, 1, 0x67, 0x64, 0x00]) == .h264AnnexB)
        #expect(InputSignature(head: [0x1A, 0x45, 0xDF, 0xA3, 0x01]) == .matroska)
        #expect(InputSignature(head: [UInt8](repeating: 0x80, count: 600)) == .unknown)
    }

    @Test("6. probe reads MP4 and MOV (B-frames, audio first) and agrees with ffprobe on profile, level, size and frames")
    func probeMP4() throws {
        let dir = try Fixture.folder("probe")
        let plain = dir.appendingPathComponent("bframes.mp4"), mov = dir.appendingPathComponent("bframes.mov")
        let audioFirst = dir.appendingPathComponent("audio-first.mp4")
        try Fixture.ffmpeg(Fixture.testsrc("208x120", frames: 17) + ["-c:v", "libx264", "-bf", "3", "-profile:v", "main", plain.path])
        try Fixture.ffmpeg(["-i", plain.path, "-c", "copy", mov.path])
        try Fixture.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-i", plain.path, "-map", "0:a", "-map", "1:v", "-c:v", "copy", "-c:a", "aac", audioFirst.path])
        for file in [plain, mov, audioFirst] {
            let result = try VTKBinary.run(["probe", file.path, "--json"])
            #expect(result.status == 0, "\(file.lastPathComponent): \(result.stderrText)")
            let ours = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            let theirs = try Fixture.ffprobe(file, ["profile", "level", "width", "height", "nb_read_frames"], extra: ["-count_frames"])
            try #require(theirs.count == 5, "ffprobe: \(theirs)")
            #expect(ours["profile"] as? String == theirs["profile"])
            #expect((ours["level"] as? Double).map { Int(($0 * 10).rounded()) } == theirs["level"].flatMap { Int($0) })
            #expect(ours["width"] as? Int == theirs["width"].flatMap { Int($0) } && ours["height"] as? Int == theirs["height"].flatMap { Int($0) })
            #expect(ours["frames"] as? Int == theirs["nb_read_frames"].flatMap { Int($0) })
            let frames = try #require(ours["per_frame"] as? [[String: Any]])
            #expect(frames.contains { ($0["slice_types"] as? [String])?.contains("B") == true })
            #expect(Set(frames.compactMap { $0["display_index"] as? Int }) == Set(0..<17))
        }
    }

    @Test("7. A size change mid-stream: probe and decode report both sizes; Y4M output is refused before writing")
    func sizeChange() throws {
        let dir = try Fixture.folder("resize")
        let a = dir.appendingPathComponent("a.h264"), b = dir.appendingPathComponent("b.h264"), both = dir.appendingPathComponent("ab.h264")
        try Fixture.ffmpeg(Fixture.testsrc("96x64", frames: 4) + ["-c:v", "libx264", a.path])
        try Fixture.ffmpeg(Fixture.testsrc("64x48", frames: 3) + ["-c:v", "libx264", b.path])
        try (try Data(contentsOf: a) + Data(contentsOf: b)).write(to: both)

        let probe = try VTKBinary.run(["probe", both.path, "--json"])
        let p = try #require(try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any])
        let rows = try #require(p["per_frame"] as? [[String: Any]])
        #expect(rows.map { "\($0["width"] ?? "")x\($0["height"] ?? "")" } == Array(repeating: "96x64", count: 4) + Array(repeating: "64x48", count: 3))
        #expect((p["sizes"] as? [Any])?.count == 2)
        #expect(try VTKBinary.run(["probe", both.path]).stdoutText.contains("size change: 96x64 from frame 0, 64x48 from frame 4"))

        let decode = try VTKBinary.run(["decode", both.path, "--device", "soft"])
        #expect(decode.status == 0)
        #expect(decode.stderrText.contains("7 frames 96x64, 64x48 from frame 4"), "\(decode.stderrText)")
        let json = try VTKBinary.run(["decode", both.path, "--device", "soft", "--json"])
        let j = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((j["sizes"] as? [[String: Any]])?.map { $0["first_frame"] as? Int } == [0, 4])

        let y4m = dir.appendingPathComponent("ab.y4m")
        let refused = try VTKBinary.run(["decode", both.path, "-o", y4m.path, "--device", "soft"])
        #expect(refused.status == 2, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("a Y4M file has one size") && refused.stderrText.contains(".yuv"), "\(refused.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: y4m.path))
        #expect(refused.stderrText.contains("(-n 4)"), "\(refused.stderrText)")
        let firstSize = try VTKBinary.run(["decode", both.path, "-o", y4m.path, "-n", "4", "--device", "soft"])
        #expect(firstSize.status == 0, "\(firstSize.stderrText)")
        try FileManager.default.removeItem(at: y4m)
        // From a pipe the change is found where it happens: the summary says what was written.
        let piped = try VTKBinary.run(["decode", "-", "-o", y4m.path, "--device", "soft"], stdin: both)
        #expect(piped.status == 5)
        #expect(piped.stderrText.contains("frames 0-3 were written"), "\(piped.stderrText)")
        #expect(!piped.stderrText.contains("7 frames"))
        let written = try Data(contentsOf: y4m)
        let header = written.prefix { $0 != 0x0A }.count + 1
        #expect(written.count == header + 4 * (6 + 96 * 64 * 3 / 2))
    }

    /// `vtk ARGS` under `script`, so standard error and output are a terminal; the transcript.
    /// With `pipe`, vtk reads that file from a pipe (`cat FILE | vtk ...`).
    static func terminal(_ arguments: [String], pipe: URL? = nil) throws -> String {
        guard let vtk = VTKBinary.url, let drivers = VTKSoftDriverLocation.directory else { return "" }
        func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let quoted = (pipe.map { "cat \(quote($0.path)) | " } ?? "") + ([vtk.path] + arguments).map(quote).joined(separator: " ")
        // Every progress update is drawn (no 0.2 s throttle), so what is drawn does not depend on speed.
        let result = try ProcessRunner.run("script", ["-qec", quoted, "/dev/null"],
                                           environment: ["VTKSOFT_DRIVERS_PATH": drivers.path, "TERM": "xterm", "VTK_PROGRESS_INTERVAL": "0"])
        return result.stdoutText
    }

    @Test("8. On a terminal, standard output never lands on the progress line",
          .enabled(if: ProcessRunner.which("script") != nil, "script (util-linux) is not installed"))
    func terminalOutput() throws {
        let stream = try GeneratedStream.standard[1].url()
        for flag in ["--md5", "--framemd5"] {
            let transcript = try Self.terminal(["decode", stream.path, flag, "--device", "soft"])
            #expect(transcript.contains("decode: "), "no progress line was drawn: \(transcript)")
            // Every line with a checksum starts with it, or follows the sequence that erases the line.
            for line in transcript.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) where line.contains("MD5=") || line.contains("\t") {
                let text = line.hasPrefix("\u{1B}[K") ? line.dropFirst(3) : line
                #expect(text.hasPrefix("MD5=") || text.first?.isNumber == true, "\(flag): '\(line)'")
            }
        }
    }

    @Test("9. Decode progress counts frames: the percentage is frames over the frame count")
    func progressByFrames() throws {
        #expect(ProgressLine.text(label: "decode", frames: 216, fraction: 216.0 / 300, elapsed: 2).contains(", 72%,"))
        #expect(!ProgressLine.text(label: "decode", frames: 216, fraction: nil, elapsed: 2).contains("%"))
        guard ProcessRunner.which("script") != nil else { return }
        let stream = GeneratedStream.standard[1]
        let transcript = try Self.terminal(["decode", try stream.url().path, "--device", "soft"])
        var draws = 0
        for line in transcript.split(separator: "\r") where line.hasPrefix("decode: ") && line.contains("%") {
            let frames = try #require(Int(line.dropFirst(8).prefix { $0.isNumber }))
            let percent = try #require(Int(line.split(separator: ",").first { $0.hasSuffix("%") }.map { $0.dropLast().trimmingCharacters(in: .whitespaces) } ?? ""))
            #expect(percent == frames * 100 / stream.frames, "'\(line)'")
            draws += 1
        }
        #expect(draws > stream.frames / 2, "\(transcript)")
        // A pipe has no frame count: frames and fps only.
        let piped = try Self.terminal(["decode", "-", "--device", "soft"], pipe: try stream.url())
        #expect(piped.contains("decode: ") && !piped.contains("%"), "\(piped)")
    }

    @Test("10. vtk help help")
    func helpHelp() throws {
        let result = try VTKBinary.run(["help", "help"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("commands:"))
    }

    @Test("11. roundtrip --json on a partial last frame: passed false, exitCode 3 and a warning")
    func roundtripVerdict() throws {
        let raw = try Fixture.folder("rt").appendingPathComponent("partial.yuv")
        try Data((0..<(2 * 64 * 48 * 3 / 2 + 10)).map { UInt8(truncatingIfNeeded: $0 * 5) }).write(to: raw)
        let result = try VTKBinary.run(["roundtrip", raw.path, "--size", "64x48", "--json", "--device", "soft"])
        #expect(result.status == 3)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["passed"] as? Bool == false)
        #expect(report["exit_code"] as? Int == 3)
        #expect((report["warnings"] as? [String])?.first?.contains("partial frame of 10 bytes") == true, "\(report["warnings"] ?? "")")
    }
}
