import Foundation

/// Runs third-party VA clients (ffmpeg, vainfo) against vtksoft on the test process's Xvfb display; under a
/// sanitizer, with its runtime preloaded (``VTKSoftDriverLocation/clientEnvironment(display:extra:)``).
public enum VTKSoftFFmpeg {
    /// Why third-party client tests cannot run here, or nil when they can.
    public static let unavailableReason: String? = {
        if let reason = Sanitizer.clientUnavailableReason { return reason }
        if !ProcessRunner.hasFFmpeg { return "ffmpeg/ffprobe not installed: skipping the third-party VA client checks" }
        if !Xvfb.isInstalled { return "Xvfb not installed: skipping the third-party VA client checks" }
        if VTKSoftDriverLocation.directory == nil { return VTKSoftDriverLocation.missingMessage }
        if Xvfb.shared == nil { return "Xvfb would not start: skipping the third-party VA client checks" }
        return nil
    }()

    public static var isAvailable: Bool { unavailableReason == nil }

    /// Why vainfo cannot be run against vtksoft here, or nil when it can.
    public static var vainfoUnavailableReason: String? {
        if let unavailableReason { return unavailableReason }
        return ProcessRunner.which("vainfo") == nil ? "vainfo not installed (package vainfo): skipping the vainfo checks" : nil
    }

    /// `-init_hw_device` value naming the VA device on the private X display.
    public static var hwDevice: String { "vaapi=va:\(Xvfb.shared?.display ?? ":0")" }

    public struct Run: Sendable {
        public let result: ProcessRunner.Result
        /// VA objects the client left alive at vaTerminate (VTKSOFT_LEAK_REPORT); nil if the driver
        /// never terminated (client crashed or never opened it).
        public let leakedObjects: Int?
        /// Decode parameters that contradicted their slice data (VTKSOFT_VIOLATION_REPORT's total); nil
        /// if the driver never terminated.
        public let violations: Int?
    }

    /// Runs `tool` with `environment`, plus the leak and violation report files; reads both back.
    public static func runReporting(_ tool: String, _ arguments: [String], environment: [String: String]) throws -> Run {
        let leakFile = TestPaths.scratch.appendingPathComponent("leak-\(UUID().uuidString).txt")
        let violationFile = TestPaths.scratch.appendingPathComponent("violations-\(UUID().uuidString).txt")
        defer {
            try? FileManager.default.removeItem(at: leakFile)
            try? FileManager.default.removeItem(at: violationFile)
        }
        var environment = environment
        environment["VTKSOFT_LEAK_REPORT"] = leakFile.path
        environment["VTKSOFT_VIOLATION_REPORT"] = violationFile.path
        let result = try ProcessRunner.run(tool, arguments, environment: environment)
        func firstNumber(_ file: URL) -> Int? {
            (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        return Run(result: result, leakedObjects: firstNumber(leakFile), violations: firstNumber(violationFile))
    }

    /// Runs the third-party VA client `tool` with vtksoft as the VA driver; `extraEnvironment` adds e.g. VTKSOFT_CAPTURE.
    public static func run(_ tool: String, _ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> Run {
        try runReporting(tool, arguments, environment: VTKSoftDriverLocation.clientEnvironment(display: Xvfb.shared?.display ?? ":0", extra: extraEnvironment))
    }

    /// MD5 of the decoded output as planar I420, decoded by FFmpeg through VA-API (vtksoft). The
    /// hwdownload filter only accepts VA surfaces, so a silent software fallback fails instead of passing.
    public static func hardwareDecodeMD5(_ stream: URL, extraFilter: String? = nil) throws -> (md5: String?, run: Run) {
        let filters = ["hwdownload", "format=nv12"] + (extraFilter.map { [$0] } ?? []) + ["format=yuv420p"]
        let run = try run("ffmpeg", ["-nostdin", "-v", "error",
                                     // Plain Baseline streams map to no VA profile in FFmpeg; vtksoft decodes
                                     // them as Constrained Baseline (no FMO/ASO in the streams used here).
                                     "-hwaccel_flags", "allow_profile_mismatch",
                                     "-init_hw_device", hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va",
                                     "-hwaccel_output_format", "vaapi", "-i", stream.path,
                                     "-vf", filters.joined(separator: ","), "-f", "md5", "-"])
        return (md5Value(run.result.stdoutText), run)
    }

    /// FFmpeg's VA hwaccel decode of `stream` through vtksoft (without allow_profile_mismatch), the frames
    /// downloaded as NV12, then `filters`, written with `muxer` (md5, framemd5, null) to standard output.
    public static func hardwareDecode(_ stream: URL, muxer: String, filters: [String] = ["format=yuv420p"],
                                      extraEnvironment: [String: String] = [:]) throws -> Run {
        try run("ffmpeg", ["-nostdin", "-v", "error", "-init_hw_device", hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va",
                           "-hwaccel_output_format", "vaapi", "-i", stream.path,
                           "-vf", (["hwdownload", "format=nv12"] + filters).joined(separator: ","), "-f", muxer, "-"],
            extraEnvironment: extraEnvironment)
    }

    /// MD5 of FFmpeg's software decode, for streams without a reference; `inputOptions` go before `-i`,
    /// `filter` is applied before the conversion to I420.
    public static func softwareDecodeMD5(_ stream: URL, inputOptions: [String] = [], filter: String? = nil) throws -> String? {
        let filters = (filter.map { [$0] } ?? []) + ["format=yuv420p"]
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error"] + inputOptions + ["-i", stream.path,
                                                      "-vf", filters.joined(separator: ","), "-f", "md5", "-"])
        return md5Value(result.stdoutText)
    }

    static func md5Value(_ text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MD5=") }) else { return nil }
        return String(line.dropFirst(4))
    }

    /// Y PSNR from the psnr filter's summary line, e.g. "PSNR y:37.21 u:...".
    public static func lumaPSNR(_ stderr: String) -> Double? {
        guard let range = stderr.range(of: "PSNR y:") else { return nil }
        let rest = stderr[range.upperBound...].prefix { !$0.isWhitespace }
        return rest == "inf" ? .infinity : Double(rest)
    }
}
