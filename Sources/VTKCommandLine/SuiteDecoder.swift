#if canImport(Glibc)
import Glibc
#endif
import ProcessTools
import VideoAcceleration
import VTKMedia

/// What a test came to: fluster's verdicts.
enum SuiteStatus: String, Sendable, CaseIterable {
    case pass, fail, error, timeout
    case notSupported = "not-supported"
}

/// A decoder `vtk suite run` compares, named as on the command line. Every one runs as a child process,
/// so a crash or hang is that test's verdict, not the run's.
enum SuiteDecoder: Sendable, Hashable {
    /// `vtk decode --device DEVICE` (`vtk:auto`, `vtk:soft`, `vtk:/dev/dri/renderD128`); `vtk:soft:NAME` is vtksoft
    /// with persona NAME (`--device soft:NAME`, VTKSOFT_PERSONA=NAME).
    case vtk(device: String, persona: String?)
    /// FFmpeg's software decoder, `-flags unaligned` so that a crop that is not a multiple of the chroma
    /// alignment is applied exactly (8.2.1, 7.4.2.1.1 frame_crop_*; FFmpeg otherwise rounds the left crop).
    case ffmpeg
    /// FFmpeg's VA-API hwaccel: on DEVICE, else the first /dev/dri/renderD*, else vtksoft through an X display.
    case ffmpegVAAPI(device: String?)
    /// GStreamer's vaapi plugin (vaapih264dec, vaapih265dec).
    case gstVAAPI

    static let help = "vtk:auto, vtk:soft, vtk:soft:PERSONA, vtk:/dev/dri/renderDN, ffmpeg, ffmpeg-vaapi[:DEVICE|:soft], gst-vaapi"

    init(_ spec: String, command: String) throws(CommandFailure) {
        if spec == "ffmpeg" { self = .ffmpeg; return }
        if spec == "gst-vaapi" { self = .gstVAAPI; return }
        if spec == "ffmpeg-vaapi" { self = .ffmpegVAAPI(device: nil); return }
        if spec.hasPrefix("ffmpeg-vaapi:"), spec.count > 13 { self = .ffmpegVAAPI(device: String(spec.dropFirst(13))); return }
        if spec.hasPrefix("vtk:"), spec.count > 4 {
            let device = String(spec.dropFirst(4))
            if device.hasPrefix("soft:") {
                let persona = String(device.dropFirst(5))
                guard !persona.isEmpty, persona.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw CommandFailure(.usage, "vtk \(command): --decoder \(spec): a persona name is letters, digits, - and _")
                }
                self = .vtk(device: device, persona: persona)
            } else {
                self = .vtk(device: device, persona: nil)
            }
            return
        }
        throw CommandFailure(.usage, "vtk \(command): unknown decoder '\(spec)' (known: \(Self.help))")
    }

    var takesOnlyH264AndH265: Bool {
        switch self {
        case .vtk, .gstVAAPI: return true
        case .ffmpeg, .ffmpegVAAPI: return false
        }
    }

    /// What one decode of one stream gave.
    struct Outcome: Sendable {
        var status: SuiteStatus
        var md5: String?
        var detail: String?
        var seconds: Double
        /// Per-frame MD5s when the decode gave them at no extra cost (gst-vaapi's output file).
        var frameMD5s: [String]? = nil
    }
}

/// The decoders of one run made ready: tools found, the VA display for FFmpeg chosen (a private Xvfb
/// for vtksoft when there is no GPU). A decoder that cannot run here has a reason, and its tests are
/// reported "not-supported" with "not available: REASON", not as failures.
final class SuiteDecoderHost: Sendable {
    let decoder: SuiteDecoder
    let unavailable: String?
    private let vtkExecutable: String?
    private let environment: [String: String]
    /// `-init_hw_device` value for ffmpeg-vaapi.
    private let hwDevice: String
    /// gst-vaapi: GStreamer has videocodectestsink (gst-plugins-bad), which writes frames without row padding.
    private let gstTestSink: Bool

    init(_ decoder: SuiteDecoder, codec: String) {
        self.decoder = decoder
        var environment: [String: String] = [:]
        var hwDevice = ""
        var unavailable: String?
        var vtkExecutable: String?
        var gstTestSink = false
        // GStreamer names its elements after the codec: h264parse, vaapih264dec.
        let gstCodec = CodecDetection.option(named: codec) ?? "h264"
        switch decoder {
        case .vtk(let device, let persona):
            vtkExecutable = ProgramPath.currentExecutable
            if vtkExecutable == nil { unavailable = "cannot find vtk's own executable (/proc/self/exe)" }
            if device.hasPrefix("/"), access(device, F_OK) != 0 { unavailable = "\(device) does not exist" }
            if device.hasPrefix("soft"), (try? SoftwareDriverLocation.directory()) == nil {
                unavailable = "no vtksoft driver (\(SoftwareDriverLocation.fileName)) beside vtk"
            }
            if let persona { environment["VTKSOFT_PERSONA"] = persona }
        case .ffmpeg:
            if ProgramPath.which("ffmpeg") == nil { unavailable = "ffmpeg is not on PATH" }
        case .ffmpegVAAPI(let device):
            if ProgramPath.which("ffmpeg") == nil {
                unavailable = "ffmpeg is not on PATH"
            } else {
                switch Self.vaDevice(device == "soft" ? nil : device ?? VADisplayConnection.renderNodes().first) {
                case .success(let va): (hwDevice, environment) = ("vaapi=va:\(va.device)", va.environment)
                case .failure(let why): unavailable = why.reason
                }
            }
        case .gstVAAPI:
            if ProgramPath.which("gst-launch-1.0") == nil {
                unavailable = "gst-launch-1.0 is not on PATH"
            } else {
                switch Self.vaDevice(VADisplayConnection.renderNodes().first) {
                case .success(let va):
                    environment = va.environment
                    environment["GST_VAAPI_ALL_DRIVERS"] = "1"  // gstreamer-vaapi otherwise refuses drivers not on its list (vtksoft)
                    if va.device.hasPrefix("/") { environment["GST_VAAPI_DRM_DEVICE"] = va.device }
                    if (try? TimedProcess.run("gst-inspect-1.0", ["vaapi\(gstCodec)dec"], environment: environment, timeout: 30))?.status != 0 {
                        unavailable = "GStreamer has no vaapi\(gstCodec)dec (gstreamer1.0-vaapi)"
                    }
                    gstTestSink = (try? TimedProcess.run("gst-inspect-1.0", ["videocodectestsink"], timeout: 30))?.status == 0
                case .failure(let why): unavailable = why.reason
                }
            }
        }
        self.environment = environment
        self.hwDevice = hwDevice
        self.gstTestSink = gstTestSink
        self.unavailable = unavailable
        self.vtkExecutable = vtkExecutable
    }

    struct Unavailable: Error { let reason: String }

    /// The VA device a third-party client opens: a DRM node as it is; without one, vtksoft, which such
    /// clients reach through an X11 display (a private Xvfb, else $DISPLAY).
    static func vaDevice(_ node: String?) -> Result<(device: String, environment: [String: String]), Unavailable> {
        if let node {
            return access(node, F_OK) == 0 ? .success((node, [:])) : .failure(Unavailable(reason: "\(node) does not exist"))
        }
        guard let driver = try? SoftwareDriverLocation.directory() else {
            return .failure(Unavailable(reason: "no /dev/dri/renderD* and no vtksoft driver (\(SoftwareDriverLocation.fileName)) beside vtk"))
        }
        guard let display = Xvfb.shared?.display ?? getenv("DISPLAY").map({ String(cString: $0) }) else {
            return .failure(Unavailable(reason: "no /dev/dri/renderD* and no X display for vtksoft (install Xvfb)"))
        }
        return .success((display, ["LIBVA_DRIVER_NAME": SoftwareDriverLocation.driverName, "LIBVA_DRIVERS_PATH": driver,
                                   "DISPLAY": display, "LIBVA_MESSAGING_LEVEL": "1"]))
    }

    /// Decodes `vector` to the MD5 of all its frames.
    func decode(_ vector: SuiteTestVector, codec: String, timeout: Double) -> SuiteDecoder.Outcome {
        if let unavailable { return .init(status: .notSupported, detail: "not available: \(unavailable)", seconds: 0) }
        if CodecDetection.option(named: codec) == nil, decoder.takesOnlyH264AndH265 {
            return .init(status: .notSupported, detail: "this decoder takes H.264 and H.265, not \(codec)", seconds: 0)
        }
        guard !vector.md5.isEmpty else {
            return .init(status: .notSupported, detail: "the suite gives no MD5 for this test (fluster's pixel comparison is not done here)", seconds: 0)
        }
        guard access(vector.input, F_OK) == 0 else {
            return .init(status: .error, detail: "input file \(vector.input) not found", seconds: 0)
        }
        if case .gstVAAPI = decoder { return gstDecode(vector, codec: codec, timeout: timeout) }
        guard let command = command(vector, perFrame: false) else {
            return .init(status: .notSupported, detail: "output format \(vector.outputFormat) is not supported by this decoder", seconds: 0)
        }
        let result: TimedProcess.Result
        do { result = try TimedProcess.run(command[0], Array(command.dropFirst()), environment: environment, timeout: timeout) } catch {
            return .init(status: .error, detail: error.description, seconds: 0)
        }
        if let verdict = Self.failureVerdict(result, timeout: timeout) { return verdict }
        guard let md5 = Self.md5Line(result.stdoutText) else {
            return .init(status: .error, detail: "no MD5 in the output: \(result.stdoutText.prefix(200))", seconds: result.seconds)
        }
        return .init(status: md5 == vector.md5 ? .pass : .fail, md5: md5, seconds: result.seconds)
    }

    /// The MD5 of each frame in display order, to find the first bad one; nil when this decoder cannot say.
    func frameMD5s(_ vector: SuiteTestVector, codec: String, timeout: Double) -> [String]? {
        if case .gstVAAPI = decoder { return nil }
        guard unavailable == nil, let command = command(vector, perFrame: true),
              let result = try? TimedProcess.run(command[0], Array(command.dropFirst()), environment: environment, timeout: timeout),
              result.status == 0 else { return nil }
        // vtk: "index<TAB>md5"; FFmpeg's framemd5: "stream, dts, pts, duration, size, md5" after '#' comments.
        return result.stdoutText.split(separator: "\n").compactMap { line -> String? in
            if line.hasPrefix("#") { return nil }
            let last = line.split(whereSeparator: { $0 == "\t" || $0 == "," || $0 == " " }).last.map(String.init)
            return last?.count == 32 ? last : nil
        }
    }

    private func command(_ vector: SuiteTestVector, perFrame: Bool) -> [String]? {
        switch decoder {
        case .vtk(let device, _):
            // vtk's MD5 is over yuv420p for 8-bit streams and over yuv420p10le for 10-bit ones, as FFmpeg's native formats.
            guard ["yuv420p", "yuv420p10le"].contains(vector.outputFormat), let vtkExecutable else { return nil }
            return [vtkExecutable, "decode", vector.input, perFrame ? "--framemd5" : "--md5", "-q", "--device", device]
        case .ffmpeg:
            return ["ffmpeg", "-nostdin", "-v", "error", "-flags", "unaligned", "-i", vector.input, "-pix_fmt", vector.outputFormat,
                    "-f", perFrame ? "framemd5" : "md5", "-"]
        case .ffmpegVAAPI:
            // hwdownload only takes VA surfaces, so a silent fall-back to software decode fails instead of passing.
            let surface: String
            switch vector.outputFormat {
            case "yuv420p": surface = "nv12"
            case "yuv420p10le": surface = "p010"
            default: return nil
            }
            return ["ffmpeg", "-nostdin", "-v", "error", "-hwaccel_flags", "allow_profile_mismatch", "-init_hw_device", hwDevice,
                    "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi", "-i", vector.input,
                    "-vf", "hwdownload,format=\(surface),format=\(vector.outputFormat)", "-f", perFrame ? "framemd5" : "md5", "-"]
        case .gstVAAPI:
            return nil
        }
    }

    /// gst-launch writes the decoded frames to a file, whose MD5 is the result. GStreamer's raw video has
    /// padded rows (each plane's stride rounded up to 4) and filesink writes the padding, so the frames are
    /// written by videocodectestsink, which drops it (as fluster does); without that element, the padding is
    /// stripped here using the negotiated caps.
    private func gstDecode(_ vector: SuiteTestVector, codec: String, timeout: Double) -> SuiteDecoder.Outcome {
        let format: String
        switch vector.outputFormat {
        case "yuv420p": format = "I420"
        case "yuv420p10le" where gstTestSink: format = "I420_10LE"
        default:
            return .init(status: .notSupported, detail: "gst-vaapi: output format \(vector.outputFormat) is not supported here", seconds: 0)
        }
        let gstCodec = CodecDetection.option(named: codec) ?? "h264"
        let output = "\(TemporaryFile.directory)/vtk-suite-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).yuv"
        defer { unlink(output) }
        let sink = gstTestSink ? ["videocodectestsink", "location=\(output)"] : ["filesink", "location=\(output)"]
        let pipeline = [gstTestSink ? "-q" : "-v", "filesrc", "location=\(vector.input)", "!", "\(gstCodec)parse", "!",
                        "vaapi\(gstCodec)dec", "!", "videoconvert", "dither=none", "!", "video/x-raw,format=\(format)", "!"] + sink
        let result: TimedProcess.Result
        do { result = try TimedProcess.run("gst-launch-1.0", pipeline, environment: environment, timeout: timeout) } catch {
            return .init(status: .error, detail: String(describing: error), seconds: 0)
        }
        if let verdict = Self.failureVerdict(result, timeout: timeout) { return verdict }
        guard var bytes = FileBytes.read(path: output) else {
            return .init(status: .error, detail: "gst-launch-1.0 wrote no output", seconds: result.seconds)
        }
        if !gstTestSink {
            guard let size = GStreamerI420.lastSize(inVerboseOutput: result.stdoutText) else {
                return .init(status: .error, detail: "gst-launch-1.0 -v named no I420 caps to unpad the frames with", seconds: result.seconds)
            }
            bytes = GStreamerI420.unpadded(bytes, width: size.width, height: size.height)
        }
        var md5 = MD5()
        md5.update(bytes)
        let hex = md5.finalize()
        var outcome = SuiteDecoder.Outcome(status: hex == vector.md5 ? .pass : .fail, md5: hex, seconds: result.seconds)
        // Frames have no size in the file; when it splits evenly into the reference's frame count, those are the frames.
        if outcome.status == .fail, let count = vector.frameMD5s?.count, count > 0, bytes.count % count == 0 {
            let size = bytes.count / count
            outcome.frameMD5s = (0..<count).map { i in
                var frame = MD5()
                frame.update(bytes[(i * size)..<((i + 1) * size)])
                return frame.finalize()
            }
        }
        return outcome
    }

    /// The verdict of a process that timed out or failed; nil when it exited 0.
    static func failureVerdict(_ result: TimedProcess.Result, timeout: Double) -> SuiteDecoder.Outcome? {
        if result.timedOut { return .init(status: .timeout, detail: "killed after \(String(format1: timeout)) s", seconds: result.seconds) }
        guard result.status != 0 else { return nil }
        let message = result.stderrText.split(separator: "\n").prefix(6).joined(separator: " | ")
        let lower = message.lowercased()
        // The decoder said it cannot do this stream (profile, bit depth, codec), as opposed to failing at it.
        let unsupported = ["not supported", "unsupported", "no support", "no va display", "not implemented", "failed setup for format vaapi"]
        let status: SuiteStatus = unsupported.contains { lower.contains($0) } ? .notSupported : .error
        return .init(status: status, detail: "exit \(result.status): \(message.prefix(400))", seconds: result.seconds)
    }

    static func md5Line(_ text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MD5=") }) else { return nil }
        return String(line.dropFirst(4)).lowercased()
    }
}
