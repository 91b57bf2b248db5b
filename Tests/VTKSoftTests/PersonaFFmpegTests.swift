import Foundation
import Testing
import VTKTestSupport

/// FFmpeg (the control) and vainfo against vtksoft's personas (VTKSOFT_PERSONA): what each lists is its
/// table (../shared/personas/README.md), and FFmpeg's h264_vaapi and VA hwaccel decode work on each.
@Suite("FFmpeg and vainfo on vtksoft's driver personas")
struct PersonaFFmpegTests {
    /// (persona, vendor prefix, profile/entrypoint pairs vainfo must list, pairs it must not list).
    static let listings: [(String, String, [String], [String])] = [
        ("ihd-gen12", "Intel iHD driver", ["VAProfileH264Main:VAEntrypointVLD", "VAProfileH264High:VAEntrypointEncSliceLP"],
         ["VAProfileH264High:VAEntrypointEncSlice "]),
        ("ihd-gen12-nohuc", "Intel iHD driver", ["VAProfileH264Main:VAEntrypointEncSliceLP"], ["VAEntrypointEncSlice "]),
        ("ihd-dg2", "Intel iHD driver", ["VAProfileH264ConstrainedBaseline:VAEntrypointEncSliceLP"], ["VAEntrypointEncSlice "]),
        ("i965-gen9", "Intel i965 driver", ["VAProfileH264Main:VAEntrypointEncSlice", "VAProfileH264Main:VAEntrypointEncSliceLP"], []),
        ("radeonsi-24", "Mesa Gallium driver 24", ["VAProfileH264High:VAEntrypointEncSlice", "VAProfileH264High:VAEntrypointVLD"],
         ["VAEntrypointEncSliceLP"]),
        ("radeonsi-26", "Mesa Gallium driver 26", ["VAProfileH264High:VAEntrypointEncSlice"], ["VAEntrypointEncSliceLP"]),
        ("nvidia", "VA-API NVDEC driver [direct backend]", ["VAProfileH264High:VAEntrypointVLD", "VAProfileH264Main:VAEntrypointVLD"],
         ["VAEntrypointEncSlice"]),
        ("vtksoft", "vtksoft", ["VAProfileH264High:VAEntrypointEncSlice", "VAProfileH264High:VAEntrypointVLD"], ["VAEntrypointEncSliceLP"]),
    ]

    /// vainfo prints "VAProfileX<spaces>:<tab>VAEntrypointY"; squeezed to "VAProfileX:VAEntrypointY ".
    static func pairs(_ text: String) -> String {
        text.split(separator: "\n").map { $0.filter { $0 != " " && $0 != "\t" } + " " }.joined(separator: "\n")
    }

    @Test("vainfo --display x11 under each persona lists what its table says",
          .enabled(if: VTKSoftFFmpeg.vainfoUnavailableReason == nil, "\(VTKSoftFFmpeg.vainfoUnavailableReason ?? "")"),
          arguments: listings.map(\.0))
    func vainfo(persona: String) throws {
        let (_, vendor, present, absent) = try #require(Self.listings.first { $0.0 == persona })
        let run = try VTKSoftFFmpeg.run("vainfo", ["--display", "x11"], extraEnvironment: ["VTKSOFT_PERSONA": persona])
        let text = run.result.stdoutText + run.result.stderrText
        #expect(run.result.status == 0, "\(text)")
        #expect(text.contains("Driver version: \(vendor)"), "\(text)")
        let listed = Self.pairs(text)
        for pair in present { #expect(listed.contains(pair), "\(persona): \(pair) missing:\n\(text)") }
        for pair in absent { #expect(!listed.contains(pair.hasSuffix(" ") ? pair : pair), "\(persona): \(pair) listed:\n\(text)") }
        // Every persona's real driver decodes H.265 Main, which vtksoft now does too: listed with VLD. What
        // vtksoft cannot run (Main 12) stays in the tables and is not advertised; H.265 encode is listed as each
        // table says (HEVCEncodeVainfoTests).
        #expect(listed.contains("VAProfileHEVCMain:VAEntrypointVLD"), "\(persona): H.265 Main decode missing:\n\(text)")
        #expect(!text.contains("VAProfileHEVCMain12"))
        #expect(run.leakedObjects == 0)
    }

    static let encoders: [(String, [String])] = [
        ("ihd-gen12", ["-low_power", "1"]), ("ihd-dg2", ["-low_power", "1"]), ("i965-gen9", []),
        ("radeonsi-24", []), ("radeonsi-26", []), ("vtksoft", []),
    ]

    @Test("FFmpeg's h264_vaapi encodes on each persona (CQP and CBR) and the stream decodes with sane PSNR",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: encoders.map(\.0), ["CQP", "CBR"])
    func ffmpegEncode(persona: String, mode: String) throws {
        let extra = try #require(Self.encoders.first { $0.0 == persona }).1
        let input = ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10"]
        let output = TestPaths.scratch.appendingPathComponent("persona-ffmpeg-\(persona)-\(mode).h264")
        let rate = mode == "CQP" ? ["-rc_mode", "CQP", "-qp", "27"] : ["-rc_mode", "CBR", "-b:v", "600k"]
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice,
                                                  "-filter_hw_device", "va"] + input
                                                  + ["-frames:v", "4", "-vf", "format=nv12,hwupload", "-c:v", "h264_vaapi", "-bf", "0"]
                                                  + extra + rate + [output.path],
                                        extraEnvironment: ["VTKSOFT_PERSONA": persona])
        try #require(run.result.status == 0, "\(persona): \(run.result.stderrText.prefix(600))")
        let psnrRun = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "info", "-i", output.path] + input
                                            + ["-lavfi", "[0:v]settb=AVTB,setpts=N/(10*TB)[a];[1:v]settb=AVTB,setpts=N/(10*TB)[b];[a][b]psnr",
                                               "-frames:v", "4", "-f", "null", "-"])
        let psnr = try #require(VTKSoftFFmpeg.lumaPSNR(psnrRun.stderrText), "\(psnrRun.stderrText.suffix(400))")
        #expect(psnr > 30, "\(persona) \(mode): Y-PSNR \(psnr) dB")
    }

    @Test("FFmpeg's VA hwaccel decode equals the reference MD5 on each persona",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: listings.map(\.0))
    func ffmpegDecode(persona: String) throws {
        let stream = try #require(ConformanceStream.all.first)
        let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-hwaccel_flags", "allow_profile_mismatch",
                                                  "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va",
                                                  "-hwaccel_output_format", "vaapi", "-i", stream.url.path,
                                                  "-vf", "hwdownload,format=nv12,format=yuv420p", "-f", "md5", "-"],
                                        extraEnvironment: ["VTKSOFT_PERSONA": persona])
        #expect(run.result.status == 0, "\(run.result.stderrText.prefix(600))")
        #expect(run.result.stdoutText.contains("MD5=\(stream.md5)"), "\(persona): \(run.result.stdoutText) \(run.result.stderrText.prefix(400))")
    }
}

/// Every persona's real driver decodes interlaced H.264 (Persona.interlacedDecode): FFmpeg's hwaccel gives
/// the reference on a PAFF stream (field pictures) and an MBAFF one under each.
@Suite("Interlaced decode on vtksoft's driver personas")
struct PersonaInterlacedTests {
    static let personas = ["ihd-gen12", "ihd-gen12-nohuc", "ihd-dg2", "i965-gen9", "radeonsi-24", "radeonsi-26", "nvidia", "vtksoft"]

    @Test("FFmpeg's VA hwaccel decodes HCAFF1_HHI (PAFF) and HCAMFF1_HHI (MBAFF) to the reference under each persona",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"),
          arguments: personas)
    func interlaced(persona: String) throws {
        for stream in ConformanceStream.interlaced where ["HCAFF1_HHI.264", "HCAMFF1_HHI.264"].contains(stream.file) {
            let run = try VTKSoftFFmpeg.hardwareDecode(stream.url, muxer: "md5", extraEnvironment: ["VTKSOFT_PERSONA": persona])
            #expect(run.result.stdoutText.contains("MD5=\(stream.md5)"), "\(persona), \(stream.file): \(run.result.stderrText.prefix(300))")
            #expect(run.leakedObjects == 0)
        }
    }
}
