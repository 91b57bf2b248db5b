import Foundation
import Testing
import VTKTestSupport

/// The built `vtk` binary, run end to end as users run it.
enum VTKBinary {
    static let url: URL? = VTKSoftDriverLocation.directory.map { $0.appendingPathComponent("vtk") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    static let missing: Comment = "the vtk binary and vtksoft were not found beside the test bundle: build the package first"
    static var available: Bool { url != nil }

    /// Runs vtk; under a sanitizer the VA clients it starts (suite's ffmpeg-vaapi, gst-vaapi) get its runtime.
    static func run(_ arguments: [String], stdin: URL? = nil, extraEnvironment: [String: String] = [:]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try #require(url).path, arguments,
                              environment: Sanitizer.vtkEnvironment.merging(["VTKSOFT_DRIVERS_PATH": try #require(VTKSoftDriverLocation.directory).path]) { $1 }
                                .merging(extraEnvironment) { $1 },
                              stdin: stdin)
    }
}

@Suite("vtk help and usage")
struct HelpTests {
    static let commands = ["encode", "decode", "roundtrip", "info", "probe", "send", "receive"]

    @Test("vtk --help lists every command and the exit codes", .enabled(if: VTKBinary.available, VTKBinary.missing))
    func topLevel() throws {
        let result = try VTKBinary.run(["--help"])
        #expect(result.status == 0)
        for command in Self.commands { #expect(result.stdoutText.contains("  \(command) "), "\(command)") }
        for code in 0...6 { #expect(result.stdoutText.contains("  \(code)  "), "exit code \(code)") }
        let none = try VTKBinary.run([])
        #expect(none.status == 2)
    }

    @Test("vtk help COMMAND and COMMAND --help document every option of the command",
          .enabled(if: VTKBinary.available, VTKBinary.missing), arguments: commands)
    func perCommand(command: String) throws {
        let help = try VTKBinary.run(["help", command])
        #expect(help.status == 0)
        #expect(help.stdoutText.hasPrefix("usage: vtk \(command)"))
        #expect(try VTKBinary.run([command, "--help"]).stdoutText == help.stdoutText)
        // Every option in the parser's table appears in the help.
        let options: [String: [String]] = [
            "encode": ["--output", "--size", "--pix-fmt", "--fps", "--qp", "--bitrate", "--rc", "--keyint", "--profile", "--device", "--quiet", "--faststart"],
            "decode": ["--output", "--pix-fmt", "--md5", "--framemd5", "--frames", "--device", "--quiet"],
            "roundtrip": ["--psnr", "--ssim", "--min-psnr", "--min-ssim", "--json", "--plot", "--size", "--qp", "--bitrate", "--device"],
            "info": ["--device", "--json"],
            "probe": ["--json"],
            "send": ["--sdp", "--fps", "--fast", "--mtu", "--loss", "--seed", "--reorder", "--bitrate", "--keyint", "--size"],
            "receive": ["--output", "--md5", "--framemd5", "--frames", "--duration", "--latency", "--stats", "--json", "--loss", "--seed", "--reorder"],
        ]
        for option in options[command] ?? [] { #expect(help.stdoutText.contains(option), "\(command) help lacks \(option)") }
        #expect(help.stdoutText.contains("exit codes:"))
        let unknown = try VTKBinary.run(["help", "nonsense"])
        #expect(unknown.status == 2)
    }
}

@Suite("vtk on bad input: exit codes and messages", .serialized)
struct BadInputCommandTests {
    static func expect(_ arguments: [String], exit code: Int32, message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try VTKBinary.run(arguments)
        #expect(result.status == code, "vtk \(arguments.joined(separator: " ")): exit \(result.status), stderr: \(result.stderrText)", sourceLocation: sourceLocation)
        #expect(result.stderrText.contains(message), "vtk \(arguments.joined(separator: " ")): stderr was \(result.stderrText)", sourceLocation: sourceLocation)
    }

    @Test("Missing, directory, empty, no SPS, unknown flag, conflicting flags, bad sizes, bad device",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func cases() throws {
        let dir = TestPaths.scratch
        let empty = dir.appendingPathComponent("empty.264")
        FileManager.default.createFile(atPath: empty.path, contents: Data())
        // A slice with no SPS or PPS before it.
        let noSPS = dir.appendingPathComponent("nosps.264")
        try Data([0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x33, 0xFF, 0x00, 0x10]).write(to: noSPS)
        let raw = dir.appendingPathComponent("raw.yuv")
        try Data(repeating: 128, count: 64 * 64 * 3 / 2).write(to: raw)

        try Self.expect(["decode", dir.appendingPathComponent("missing.264").path], exit: 3, message: "cannot open")
        try Self.expect(["decode", dir.path], exit: 3, message: "is a directory")
        try Self.expect(["decode", empty.path], exit: 3, message: "is empty")
        try Self.expect(["decode", noSPS.path], exit: 3, message: "missing PPS")
        try Self.expect(["decode", "--bogus", noSPS.path], exit: 2, message: "unknown option '--bogus'")
        try Self.expect(["frobnicate"], exit: 2, message: "unknown command 'frobnicate'")
        try Self.expect(["encode", raw.path, "-o", "/dev/null", "--size", "64x64", "--qp", "20", "--bitrate", "1M"], exit: 2, message: "--qp and --bitrate cannot be used together")
        try Self.expect(["encode", raw.path, "-o", "/dev/null", "--size", "63x64"], exit: 2, message: "even width and height")
        try Self.expect(["encode", raw.path, "-o", "/dev/null", "--size", "0x0"], exit: 2, message: "from 1 to 16384")
        try Self.expect(["encode", raw.path, "-o", "/dev/null"], exit: 2, message: "needs --size")
        try Self.expect(["encode", raw.path, "-o", "/dev/null", "--size", "64x64", "--rc", "vbr"], exit: 2, message: "--rc needs --bitrate")
        try Self.expect(["decode", "--device", "/dev/dri/renderD999", noSPS.path], exit: 4, message: "/dev/dri/renderD999 does not exist")
        try Self.expect(["info", "--device", "/nonexistent/device"], exit: 4, message: "does not exist")
    }

    @Test("An interlaced (MBAFF) stream, once refused, decodes to FFmpeg's software MD5 with exit 0",
          .enabled(if: VTKBinary.available, VTKBinary.missing),
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func interlaced() throws {
        let stream = TestPaths.scratch.appendingPathComponent("mbaff.264")
        let make = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "4",
                                                    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-x264-params", "interlaced=1", "-f", "h264", stream.path])
        try #require(make.status == 0)
        let reference = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"])
        try #require(reference.status == 0)
        let ours = try VTKBinary.run(["decode", stream.path, "--device", "soft", "--quiet", "--md5"])
        #expect(ours.status == 0, "\(ours.stderrText.prefix(300))")
        #expect(ours.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == reference.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("A raw file that is not a whole number of frames: the whole frames are encoded, the partial one reported",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func partialFrame() throws {
        let raw = TestPaths.scratch.appendingPathComponent("partial.yuv")
        let frame = 64 * 48 * 3 / 2
        try Data((0..<(3 * frame + 100)).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: raw)
        let out = TestPaths.scratch.appendingPathComponent("partial.h264")
        let result = try VTKBinary.run(["encode", raw.path, "--size", "64x48", "-o", out.path, "--device", "soft"])
        #expect(result.status == 3)
        #expect(result.stderrText.contains("partial frame of 100 bytes after 3 whole frame(s)"), "\(result.stderrText)")
        // Nothing encoded is lost: the three whole frames are in the output.
        let decoded = try VTKBinary.run(["decode", out.path, "--framemd5", "-q", "--device", "soft"])
        #expect(decoded.status == 0)
        #expect(decoded.stdoutText.split(separator: "\n").count == 3)
    }
}
