import Foundation
import Testing
import VTKTestSupport

@Suite("vtk end to end through vtksoft", .serialized)
struct EndToEndTests {
    @Test("vtk decode --md5 equals reference.tsv for every conformance stream",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func decodeMD5(stream: ConformanceStream) throws {
        let result = try VTKBinary.run(["decode", stream.url.path, "--md5", "--device", "soft", "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)")
    }

    static let cisco: URL? = TestPaths.shared?.appendingPathComponent("media/CiscoVT2people_320x192_12fps.yuv")

    @Test("roundtrip on the Cisco clip: --min-psnr 30 passes, --min-psnr 99 fails with 1, Y-PSNR equals FFmpeg's psnr filter",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: TestPaths.shared != nil, Comment(rawValue: TestPaths.sharedMissingMessage)))
    func roundtripCisco() throws {
        let input = try #require(Self.cisco).path
        let common = [input, "--size", "320x192", "--pix-fmt", "i420", "--qp", "27", "--device", "soft"]
        let pass = try VTKBinary.run(["roundtrip"] + common + ["--psnr", "--min-psnr", "30", "--json"])
        #expect(pass.status == 0, "\(pass.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: pass.stdout) as? [String: Any])
        let psnr = try #require(report["psnr"] as? [String: Any])
        let y = try #require(psnr["y"] as? Double)
        for key in ["u", "v", "avg"] { #expect(psnr[key] is Double, "psnr.\(key)") }
        #expect(report["frames"] as? Int == 9)
        #expect(report["bitrate"] is Double)
        #expect((report["per_frame"] as? [Any])?.count == 9)
        #expect(report["ssim"] is [String: Any])
        let fail = try VTKBinary.run(["roundtrip"] + common + ["--psnr", "--min-psnr", "99"])
        #expect(fail.status == 1)
        #expect(fail.stderrText.contains("below --min-psnr"))
        // The same encode, measured by FFmpeg's psnr filter.
        let encoded = TestPaths.scratch.appendingPathComponent("cisco-qp27.h264")
        let encode = try VTKBinary.run(["encode", input, "--size", "320x192", "--qp", "27", "--device", "soft", "-q", "-o", encoded.path])
        #expect(encode.status == 0, "\(encode.stderrText)")
        // The psnr filter pairs frames by time: both inputs are renumbered 0, 1, 2 ... on one time base, as the
        // raw input's and the stream's (from its VUI timing, rounded by the demuxer) need not agree.
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "info", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x192", "-i", input,
                                                      "-i", encoded.path, "-lavfi", "[1:v]settb=1/30,setpts=N[a];[0:v]settb=1/30,setpts=N[b];[a][b]psnr",
                                                      "-f", "null", "-"])
        let text = ffmpeg.stderrText
        let range = try #require(text.range(of: "PSNR y:"))
        let theirs = try #require(Double(text[range.upperBound...].prefix { !$0.isWhitespace }))
        #expect(abs(theirs - y) < 0.05, "vtk \(y) dB, FFmpeg \(theirs) dB")
    }

    @Test("roundtrip with no input uses the built-in clip, writes a plot, and gives finite JSON numbers",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func builtInClip() throws {
        let plot = TestPaths.scratch.appendingPathComponent("plot.svg")
        let result = try VTKBinary.run(["roundtrip", "--psnr", "--ssim", "--json", "--frames", "20", "--plot", plot.path, "--device", "soft"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(!result.stdoutText.contains("nan") && !result.stdoutText.contains("inf"))
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["frames"] as? Int == 20)
        let ssim = try #require((report["ssim"] as? [String: Any])?["y"] as? Double)
        #expect(ssim > 0.9 && ssim <= 1)
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("polyline"))
    }

    @Test("encode -> MP4 and Y4M -> encode -> decode: sizes, frame counts and FFmpeg agree",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func containers() throws {
        let y4m = TestPaths.scratch.appendingPathComponent("src.y4m")
        let make = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=200x120:rate=25", "-frames:v", "12",
                                                    "-pix_fmt", "yuv420p", y4m.path])
        #expect(make.status == 0)
        let mp4 = TestPaths.scratch.appendingPathComponent("out.mp4")
        let encode = try VTKBinary.run(["encode", y4m.path, "-o", mp4.path, "--faststart", "--device", "soft", "-q"])
        #expect(encode.status == 0, "\(encode.stderrText)")
        let check = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", mp4.path, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderrText.isEmpty, "\(check.stderrText)")
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames,r_frame_rate",
                                                      "-of", "csv=p=0", mp4.path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "200,120,25/1,12")
        // vtk decodes its own MP4 to what FFmpeg decodes from it.
        let ours = try VTKBinary.run(["decode", mp4.path, "--md5", "--device", "soft", "-q"])
        let theirs = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", mp4.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"])
        #expect(ours.stdoutText == theirs.stdoutText)
    }

    @Test("decode --frames DIR writes one PNG per frame that FFmpeg reads at the display size; roundtrip takes a .y4m",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func picturesAndY4MRoundtrip() throws {
        let stream = GeneratedStream.standard[2]  // 202x130: odd chroma width, cropped
        let dir = TestPaths.scratch.appendingPathComponent("pictures")
        let decode = try VTKBinary.run(["decode", try stream.url().path, "--frames", dir.path, "--device", "soft", "-q"])
        #expect(decode.status == 0, "\(decode.stderrText)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count == stream.frames)
        #expect(names.first == "frame-000000.png")
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                                                      dir.appendingPathComponent(try #require(names.last)).path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "png,202,130")
        // The first picture agrees with FFmpeg's RGB rendering of the same frame (BT.601, limited range):
        // the two conversions round and upsample chroma differently, so compare the mean difference.
        let ours = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", dir.appendingPathComponent(names[0]).path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let theirs = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", try stream.url().path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(ours.stdout.count == 202 * 130 * 3 && theirs.stdout.count == 202 * 130 * 3)
        let meanDifference = Double(zip(ours.stdout, theirs.stdout).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(ours.stdout.count, 1))
        #expect(meanDifference < 2.5, "PNG differs from FFmpeg's RGB by \(meanDifference) on average")

        let y4m = TestPaths.scratch.appendingPathComponent("roundtrip.y4m")
        _ = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=15", "-frames:v", "10",
                                             "-pix_fmt", "yuv420p", y4m.path])
        let roundtrip = try VTKBinary.run(["roundtrip", y4m.path, "--psnr", "--json", "--device", "soft"])
        #expect(roundtrip.status == 0, "\(roundtrip.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: roundtrip.stdout) as? [String: Any])
        #expect(report["frames"] as? Int == 10 && report["width"] as? Int == 176 && report["frame_rate"] as? Double == 15)
    }

    @Test("vtk info names vtksoft's encoder engine and what it can do: native by default, openh264 with VTKSOFT_ENCODER=openh264",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          arguments: [("", "native"), ("openh264", "openh264"), ("native", "native")])
    func infoNamesEncoderEngine(variable: String, engine: String) throws {
        // An empty VTKSOFT_ENCODER is unset as far as vtksoft is concerned: the default engine.
        let environment = ["VTKSOFT_ENCODER": variable]
        let text = try VTKBinary.run(["info", "--device", "soft"], extraEnvironment: environment)
        #expect(text.status == 0, "\(text.stderrText)")
        #expect(text.stdoutText.contains("driver:     vtksoft: software VA-API driver (libavcodec decode, \(engine) encode)"), "\(text.stdoutText.prefix(400))")
        let info = try VTKBinary.run(["info", "--device", "soft", "--json"], extraEnvironment: environment)
        let json = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
        #expect((json["vendor"] as? String)?.contains("\(engine) encode") == true)
        let high = try #require((json["encode"] as? [[String: Any]])?.first { $0["profile"] as? String == "High" })
        let native = engine == "native"
        #expect(high["l0"] as? Int == (native ? 4 : 1) && high["l1"] as? Int == (native ? 1 : 0), "\(high)")
        #expect((high["packed_headers"] as? String == "none") != native, "\(high)")
    }

    @Test("vtk info and probe describe the device and the stream, also as JSON",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func infoAndProbe() throws {
        let info = try VTKBinary.run(["info", "--device", "soft", "--json"])
        #expect(info.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
        let capabilities = try #require(json["capabilities"] as? [[String: Any]])
        #expect(capabilities.contains { $0["profile"] as? String == "VAProfileH264High" && $0["entrypoint"] as? String == "VAEntrypointVLD" })
        #expect(capabilities.contains { $0["entrypoint"] as? String == "VAEntrypointEncSlice" && ($0["rate_control"] as? [String])?.contains("CBR") == true })
        let stream = GeneratedStream.standard[1]
        let probe = try VTKBinary.run(["probe", try stream.url().path, "--json"])
        #expect(probe.status == 0)
        let p = try #require(try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any])
        #expect(p["width"] as? Int == stream.width && p["height"] as? Int == stream.height)
        #expect(p["frames"] as? Int == stream.frames)
        let frames = try #require(p["per_frame"] as? [[String: Any]])
        #expect(frames.contains { ($0["slice_types"] as? [String])?.contains("B") == true })
        // Display indices are a permutation of 0..<frames.
        #expect(Set(frames.compactMap { $0["display_index"] as? Int }) == Set(0..<stream.frames))
    }
}
