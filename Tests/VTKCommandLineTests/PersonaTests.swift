import Foundation
import Testing
import VTKTestSupport

/// vtk and FFmpeg against vtksoft's personas of real drivers (VTKSOFT_PERSONA; ../shared/personas/README.md):
/// the matrix of persona x client x mode. vtk must work wherever FFmpeg does.
@Suite("vtk on vtksoft's driver personas", .serialized)
struct PersonaTests {
    static let encoders = ["ihd-gen12", "ihd-dg2", "i965-gen9", "radeonsi-24", "radeonsi-26", "vtksoft"]
    static let modes: [(name: String, options: [String])] = [
        ("CQP", ["--qp", "27"]),
        ("CBR", ["--bitrate", "600000", "--rc", "cbr"]),
        ("VBR", ["--bitrate", "600000", "--rc", "vbr"]),
    ]
    /// The entrypoint each persona's table leaves vtk (EncSlice first, then EncSliceLP, as FFmpeg).
    static let entrypoint = ["ihd-gen12": "EncSliceLP", "ihd-dg2": "EncSliceLP", "ihd-gen12-nohuc": "EncSliceLP"]

    /// 96x64, 6 frames of FFmpeg's testsrc as I420: small enough for the native engine in a debug build.
    static let clip: URL? = {
        guard ProcessRunner.hasFFmpeg else { return nil }
        let url = TestPaths.scratch.appendingPathComponent("persona-clip-96x64.yuv")
        let result = try? ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=10",
                                                       "-frames:v", "6", "-pix_fmt", "yuv420p", "-f", "rawvideo", url.path])
        return result?.status == 0 ? url : nil
    }()

    static func vtk(_ persona: String, _ arguments: [String]) throws -> ProcessRunner.Result {
        try VTKBinary.run(arguments, extraEnvironment: ["VTKSOFT_PERSONA": persona])
    }

    static var cases: [(String, String)] { encoders.flatMap { p in modes.map { (p, $0.name) } } }

    @Test("VTKSOFT_PERSONA=P vtk roundtrip --psnr --min-psnr 30 passes and names the entrypoint and packed headers",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: cases)
    func roundtrip(persona: String, mode: String) throws {
        let clip = try #require(Self.clip)
        let options = try #require(Self.modes.first { $0.name == mode }).options
        let run = try Self.vtk(persona, ["roundtrip", clip.path, "--size", "96x64", "--pix-fmt", "i420", "--psnr", "--min-psnr", "30",
                                         "--device", "soft"] + options)
        #expect(run.status == 0, "\(persona) \(mode): \(run.stdoutText)\(run.stderrText)")
        let expected = Self.entrypoint[persona] ?? "EncSlice"
        #expect(run.stdoutText.contains("entrypoint: \(expected),"), "\(run.stdoutText)")
        #expect(run.stdoutText.contains("packed headers "), "\(run.stdoutText)")
    }

    @Test("--device soft:ihd-gen12 is VTKSOFT_PERSONA=ihd-gen12", .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func deviceName() throws {
        let clip = try #require(Self.clip)
        let run = try VTKBinary.run(["roundtrip", clip.path, "--size", "96x64", "--pix-fmt", "i420", "--qp", "27", "--device", "soft:ihd-gen12"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stdoutText.contains("entrypoint: EncSliceLP,"), "\(run.stdoutText)")
    }

    /// Two vtksoft personas stand for a machine's two GPUs, listed through VTK_DEVICES (what `--device auto`
    /// tries instead of /dev/dri/renderD*): the decode-only nvidia one first.
    @Test("--device auto with an nvidia device listed first: encode and roundtrip on the next device, decode stays on nvidia",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func automaticDeviceSkipsDecodeOnly() throws {
        let clip = try #require(Self.clip)
        let devices = ["VTK_DEVICES": "soft:nvidia,soft:ihd-gen12"]
        let out = TestPaths.scratch.appendingPathComponent("auto-device.h264")
        let encode = try VTKBinary.run(["encode", clip.path, "--size", "96x64", "-o", out.path, "--device", "auto"], extraEnvironment: devices)
        #expect(encode.status == 0, "\(encode.stderrText)")
        #expect(encode.stderrText.contains("soft:ihd-gen12") && !encode.stderrText.contains("soft:nvidia"), "says where: \(encode.stderrText)")
        #expect(encode.stderrText.contains("EncSliceLP"), "\(encode.stderrText)")

        let roundtrip = try VTKBinary.run(["roundtrip", clip.path, "--size", "96x64", "--pix-fmt", "i420", "--psnr", "--min-psnr", "30",
                                           "--device", "auto"], extraEnvironment: devices)
        #expect(roundtrip.status == 0, "\(roundtrip.stdoutText)\(roundtrip.stderrText)")
        #expect(roundtrip.stdoutText.contains("device:     soft:ihd-gen12 ("), "\(roundtrip.stdoutText)")

        // nvidia decodes H.264: decode stays on the first device, and gives FFmpeg's pictures.
        let decode = try VTKBinary.run(["decode", out.path, "--md5", "--device", "auto"], extraEnvironment: devices)
        #expect(decode.status == 0, "\(decode.stderrText)")
        #expect(decode.stderrText.contains("on soft:nvidia"), "\(decode.stderrText)")
        let reference = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", out.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"])
        #expect(reference.status == 0 && decode.stdoutText == reference.stdoutText, "vtk \(decode.stdoutText) vs FFmpeg \(reference.stdoutText)")
    }

    @Test("ihd-gen12-nohuc: CQP encodes; CBR and VBR are refused with exit 4, naming the missing mode",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func withoutHuC() throws {
        let clip = try #require(Self.clip)
        let common = ["roundtrip", clip.path, "--size", "96x64", "--pix-fmt", "i420", "--psnr", "--min-psnr", "30", "--device", "soft"]
        let cqp = try Self.vtk("ihd-gen12-nohuc", common + ["--qp", "27"])
        #expect(cqp.status == 0, "\(cqp.stderrText)")
        for mode in ["cbr", "vbr"] {
            let run = try Self.vtk("ihd-gen12-nohuc", common + ["--bitrate", "600000", "--rc", mode])
            #expect(run.status == 4, "\(mode): \(run.stdoutText)\(run.stderrText)")
            #expect(run.stderrText.contains(mode.uppercased()), "\(run.stderrText)")
        }
    }

    @Test("nvidia: vtk encode exits 4 naming the device and the missing encode entrypoint",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func nvidiaEncode() throws {
        let clip = try #require(Self.clip)
        let out = TestPaths.scratch.appendingPathComponent("nvidia-refused.h264")
        let run = try Self.vtk("nvidia", ["encode", clip.path, "--size", "96x64", "-o", out.path, "--device", "soft"])
        #expect(run.status == 4, "\(run.stderrText)")
        #expect(run.stderrText.contains("NVDEC"), "names the device: \(run.stderrText)")
        #expect(run.stderrText.contains("EncSlice"), "names the entrypoint: \(run.stderrText)")
    }

    /// Conformance streams per persona: the first few for most, all of them for nvidia and vtksoft.
    static var decodeCases: [(String, ConformanceStream)] {
        let some = Array(ConformanceStream.all.prefix(3))
        return ["ihd-gen12", "ihd-dg2", "i965-gen9", "radeonsi-24", "radeonsi-26"].flatMap { p in some.map { (p, $0) } }
            + ConformanceStream.all.map { ("nvidia", $0) }
    }

    @Test("VTKSOFT_PERSONA=P vtk decode --md5 equals the reference (nvidia: through vaGetImage)",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: decodeCases)
    func decode(persona: String, stream: ConformanceStream) throws {
        let run = try Self.vtk(persona, ["decode", stream.url.path, "--md5", "--device", "soft", "-q"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)")
    }

    @Test("A damaged slice gives DECODING_ERROR from vaSyncSurface (ihd-gen12 and vtksoft itself); vtk flags the frame and keeps it",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ["ihd-gen12", "vtksoft"])
    func damagedSlice(persona: String) throws {
        let stream = try #require(ConformanceStream.all.first)
        let clean = try Self.vtk(persona, ["decode", stream.url.path, "--framemd5", "--device", "soft", "-q"])
        var bytes = try [UInt8](Data(contentsOf: stream.url))
        // Zero a run in the middle of the stream: slice data damage the decoder conceals.
        let start = bytes.count / 2
        for i in start..<min(start + 48, bytes.count) { bytes[i] = 0x5a }
        let damaged = TestPaths.scratch.appendingPathComponent("persona-damaged-\(persona).264")
        try Data(bytes).write(to: damaged)
        let run = try Self.vtk(persona, ["decode", damaged.path, "--framemd5", "--device", "soft", "-q"])
        let lines = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count }
        // Exit 3 (input error), every frame kept, the damaged one flagged as possibly wrong.
        #expect(run.status == 3, "\(run.stderrText)")
        #expect(lines(run.stdoutText) == lines(clean.stdoutText), "every frame kept: \(run.stderrText)")
        #expect(run.stderrText.contains("possibly wrong") && run.stderrText.contains("concealed errors"), "\(run.stderrText)")
    }
}
