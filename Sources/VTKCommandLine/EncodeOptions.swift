import CompressionSession
import Glibc
import H264Bitstream
import VideoAcceleration
import VTKMedia

/// The encode options `vtk encode` and `vtk roundtrip` share, checked and turned into session properties.
struct EncodeOptions {
    var properties = CompressionProperties()
    var device: VADeviceChoice = .automatic
    var size: (width: Int, height: Int)?
    var pixelFormat: PixelFormat = .i420
    var frameRate: (Int, Int)?
    var quiet = false
    /// Display indices of frames to encode as IDRs (--force-idr).
    var forcedKeyFrames: Set<Int> = []
    /// Refuse (exit 2) rather than fall back when the driver cannot do what was asked (--strict).
    var strict = false
    /// --pix-fmt was given (it describes raw input only).
    var pixelFormatGiven = false
    /// --profile was given with --codec h265 (else 10-bit input chooses Main 10).
    var hevcProfileGiven = false

    /// H.265 without --profile: Main 10 for 10-bit frames, Main for 8-bit ones.
    mutating func adopt(bitDepthOf format: PixelFormat) {
        if properties.codec == .h265 && !hevcProfileGiven { properties.hevcProfile = format.is10Bit ? .main10 : .main }
    }

    /// The codec's name in messages ("H.264", "H.265").
    var codecName: String { properties.codec.rawValue }

    /// The codec to encode as NALStream's ``VideoCodec`` (RTP's payload format, the SDP's rtpmap).
    var videoCodec: VideoCodec { properties.codec == .h265 ? .h265 : .h264 }

    /// The options that shape an encode, which coded input (sent or copied as it is) would ignore.
    static let encodingOptions = ["size", "pix-fmt", "qp", "bitrate", "rc", "maxrate", "keyint", "keyint-duration", "open-gop", "force-idr",
                                  "bframes", "b-pyramid", "refs", "low-power", "strict", "profile", "device", "codec"]

    static let table: [OptionSpec] = [
        .value("--size", valueName: "WxH", help: "frame size of raw input (required for raw input)"),
        .value("--pix-fmt", valueName: "nv12|i420|p010|yuv420p10", help: "layout of raw input (default: i420; 10-bit layouts for H.265 Main 10)"),
        .value("--fps", valueName: "N", help: "frame rate, e.g. 30, 29.97 or 30000/1001 (default: the Y4M header's, else 30)"),
        .value("--qp", valueName: "N", help: "constant QP 0-51 (CQP); the default when no --bitrate is given is 26"),
        .value("--bitrate", valueName: "BPS", help: "target bit rate in bit/s, k and M suffixes allowed (e.g. 2M)"),
        .value("--rc", valueName: "cbr|vbr", help: "rate control with --bitrate (default: cbr)"),
        .value("--maxrate", valueName: "BPS", help: "with --rc vbr, the peak bit rate (default: the --bitrate)"),
        .value("--keyint", valueName: "N", help: "frames from one key frame to the next (default: 60; 0 = only the first)"),
        .value("--keyint-duration", valueName: "SECONDS", help: "at most this long from one key frame to the next"),
        .flag("--open-gop", help: "key frames after the first are I pictures that earlier B-frames may reference (default: closed GOP, IDRs)"),
        .value("--force-idr", valueName: "N,N…", help: "encode these frames (counted from 0) as IDRs"),
        .value("--bframes", valueName: "N", help: "B-frames between anchors, 0-16 (default: 0); needs list-1 references in the driver"),
        .flag("--b-pyramid", help: "the middle B-frame of each run is a reference"),
        .value("--refs", valueName: "N", help: "references of a P-frame, 1-16 (default: 1; capped at the driver's list-0 limit)"),
        .flag("--low-power", help: "prefer the low-power encoder (VAEntrypointEncSliceLP) to the full one"),
        .flag("--strict", help: "exit 2 instead of falling back when the driver cannot do what was asked (e.g. B-frames without list 1)"),
        .value("--codec", valueName: "h264|h265", help: "the codec to encode (default: h264)"),
        .value("--profile", valueName: "NAME", help: "H.264: constrained-baseline, main or high (default: high); H.265: main or main10 (default: main10 for 10-bit input, else main)"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]

    init(_ parsed: ParsedArguments, command: String) throws(CommandFailure) {
        let values = OptionValues(parsed: parsed, command: command)
        try values.conflict("qp", "bitrate")
        if parsed.has("rc") && !parsed.has("bitrate") {
            throw CommandFailure(.usage, "vtk \(command): --rc needs --bitrate (with --qp the rate control is CQP)")
        }
        device = VADeviceChoice(parsed["device"] ?? "auto")
        if let size = try values.size("size") {
            guard size.width % 2 == 0, size.height % 2 == 0 else {
                throw CommandFailure(.usage, "vtk \(command): --size \(size.width)x\(size.height): 4:2:0 frames need an even width and height "
                                     + "(H.264 crops in 2-sample steps, 7.4.2.1.1)")
            }
            self.size = size
        }
        pixelFormat = try values.choice("pix-fmt", ["nv12", "i420", "p010", "yuv420p10"]).flatMap(PixelFormat.init(rawValue:)) ?? .i420
        pixelFormatGiven = parsed.has("pix-fmt")
        if let text = parsed["fps"] {
            guard let rate = FrameRate.parse(text) else {
                throw CommandFailure(.usage, "vtk \(command): --fps must be a positive number (30, 29.97) or fraction (30000/1001), "
                                     + "each part at most \(Int32.max), not '\(text)'")
            }
            frameRate = rate
        }
        quiet = parsed.has("quiet")
        if let qp = try values.int("qp", range: 0...51) {
            properties.rateControl = .constantQP
            properties.quantizer = qp
        }
        if let text = parsed["bitrate"] {
            guard let bits = Self.bitRate(text), bits > 0 else {
                throw CommandFailure(.usage, "vtk \(command): --bitrate must be a positive number of bit/s (e.g. 2000000, 2000k, 2M), not '\(text)'")
            }
            properties.averageBitRate = bits
            properties.rateControl = try values.choice("rc", ["cbr", "vbr"]) == "vbr" ? .variableBitRate : .constantBitRate
        }
        if let text = parsed["maxrate"] {
            guard properties.rateControl == .variableBitRate, let bits = Self.bitRate(text), bits >= (properties.averageBitRate ?? 0) else {
                throw CommandFailure(.usage, "vtk \(command): --maxrate needs --rc vbr and a bit rate not below --bitrate, not '\(text)'")
            }
            properties.peakBitRate = bits
        }
        properties.maxKeyFrameInterval = try values.int("keyint", range: 0...100_000) ?? 60
        if let seconds = try values.double("keyint-duration", range: 0.001...100_000) {
            properties.maxKeyFrameIntervalDuration = MediaTime(value: Int64((seconds * 1_000_000).rounded()), timescale: 1_000_000)
        }
        properties.allowOpenGOP = parsed.has("open-gop")
        if let text = parsed["force-idr"] {
            let numbers = text.split(separator: ",").map { Int($0.trimming { $0.isWhitespace && !$0.isNewline }) }
            guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw CommandFailure(.usage, "vtk \(command): --force-idr takes frame numbers from 0 separated by commas (e.g. 30,90), not '\(text)'")
            }
            forcedKeyFrames = Set(numbers.compactMap { $0 })
        }
        if let count = try values.int("bframes", range: 0...16) {
            properties.allowFrameReordering = count > 0
            properties.maxConsecutiveBFrames = count
        }
        properties.bPyramid = parsed.has("b-pyramid")
        if parsed.has("b-pyramid") && properties.maxConsecutiveBFrames < 2 {
            throw CommandFailure(.usage, "vtk \(command): --b-pyramid needs --bframes 2 or more")
        }
        properties.referenceFrameCount = try values.int("refs", range: 1...16) ?? 1
        properties.preferLowPower = parsed.has("low-power")
        strict = parsed.has("strict")
        if try values.choice("codec", ["h264", "h265", "hevc"]).map({ $0 != "h264" }) == true {
            properties.codec = .h265
            if let profile = try values.choice("profile", ["main", "main10"]) { properties.hevcProfile = profile == "main10" ? .main10 : .main }
            hevcProfileGiven = parsed.has("profile")
        } else if let profile = try values.choice("profile", ["constrained-baseline", "main", "high"]) {
            properties.profile = profile == "main" ? .main : profile == "high" ? .high : .constrainedBaseline
        }
    }

    static func bitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let (digits, scale): (Substring, Double) = lower.hasSuffix("m") ? (lower.dropLast(), 1e6) : lower.hasSuffix("k") ? (lower.dropLast(), 1e3) : (lower[...], 1)
        guard let value = Double(digits), value.isFinite, value * scale <= 1e10 else { return nil }
        return Int(value * scale)
    }

    /// The frame source for INPUT: Y4M (by name, or by its signature on a pipe without --size), else raw
    /// with --size. Coded video (MP4, H.264, ...) is refused, not encoded as if it were pixels.
    func source(for path: String, command: String) throws(CommandFailure) -> FrameSource {
        if path == "-" && size == nil { return try y4mSource(path: path, command: command) }
        let input = try InputFile(path, command: command)  // clear messages for missing/empty/directory
        if let message = input.signature?.notRawFramesMessage(input.displayName) {
            throw CommandFailure(.input, "vtk \(command): \(message)")
        }
        if path.lowercased().hasSuffix(".y4m") || input.signature == .y4m { return try y4mSource(path: path, command: command) }
        guard let size else {
            throw CommandFailure(.usage, "vtk \(command): raw input \(input.displayName) needs --size WxH (or give a .y4m file)")
        }
        if let fileSize = input.size {
            let frame = PixelBuffer.frameSize(format: pixelFormat, width: size.width, height: size.height)
            if fileSize < frame {
                throw CommandFailure(.input, "vtk \(command): \(input.displayName) has \(fileSize) bytes, less than one \(size.width)x\(size.height) \(pixelFormat.rawValue) frame (\(frame) bytes)")
            }
        }
        return RawFrameSource(input: input, width: size.width, height: size.height, format: pixelFormat, frameRate: frameRate ?? (30, 1))
    }

    /// A Y4M source; --fps overrides its header's rate, with a note.
    private func y4mSource(path: String, command: String) throws(CommandFailure) -> FrameSource {
        let source = try Y4MFrameSource(path: path, command: command)
        // The header says the size and layout: options for raw input would be ignored, so they are refused.
        if size != nil || pixelFormatGiven {
            let option = size != nil ? "--size" : "--pix-fmt"
            throw CommandFailure(.usage, "vtk \(command): \(option) is for raw input; \(path == "-" ? "the Y4M input" : path)'s header gives "
                                 + "\(source.width)x\(source.height) I420 (leave \(option) out)")
        }
        if let frameRate, frameRate != source.frameRate {
            if !quiet {
                StandardStreams.error("vtk \(command): --fps \(FrameRate.text(frameRate)) overrides the Y4M header's \(FrameRate.text(source.frameRate)) fps\n")
            }
            source.frameRate = frameRate
        }
        return source
    }
}

extension EncodeOptions {
    /// Prints the session's fallbacks as warnings; under --strict they are a usage error (exit 2).
    func report(_ warnings: [String], command: String, quiet: Bool) throws(CommandFailure) {
        guard !warnings.isEmpty else { return }
        if strict {
            throw CommandFailure(.usage, warnings.map { "vtk \(command): --strict: \($0)" }.joined(separator: "\n"))
        }
        if !quiet { StandardStreams.error(warnings.map { "vtk \(command): warning: \($0)\n" }.joined()) }
    }
}

extension CompressionProperties {
    /// The profile of the codec in use: "High", "Main 10".
    var profileName: String { codec == .h264 ? profile.rawValue : hevcProfile.rawValue }
}
