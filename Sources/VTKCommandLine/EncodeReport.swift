import CompressionSession
import JSONText

#if canImport(Glibc)
import Glibc
#endif

/// What `vtk encode` reports at the end: a summary line, the rate-control result, and JSON.
struct EncodeReport {
    let source: FrameSource
    let output: String
    let frames: Int
    /// Bytes of coded slices (and SEI), without parameter sets or container.
    let payloadBytes: Int
    let properties: CompressionProperties
    let device: String
    let seconds: Double
    var warnings: [String] = []
    /// The VA entrypoint the encode used, and the packed headers vtk sent.
    var entrypoint = ""
    var packedHeaders = ""

    /// How `seconds` and the fps are measured: `vtk encode` as a whole, as `time` would see it.
    static let speedMethod = "wall time of the whole run: reading, converting, coding and writing the frames"

    /// CBR that misses its target by more than this fraction is reported as missed.
    static let cbrTolerance = 0.10

    init(source: FrameSource, output: String, frames: Int, payloadBytes: Int, properties: CompressionProperties, device: String, seconds: Double) {
        self.source = source
        self.output = output
        self.frames = frames
        self.payloadBytes = payloadBytes
        self.properties = properties
        self.device = device
        self.seconds = seconds
        var info = stat()
        fileBytes = output != "-" && stat(output, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// The output file's real size (parameter sets and container included); nil for a pipe or device.
    let fileBytes: Int?

    var durationSeconds: Double { Double(frames) * Double(source.frameRate.1) / Double(source.frameRate.0) }
    /// Bit rate of the payload over the frames' duration.
    var bitRate: Double { durationSeconds > 0 ? Double(payloadBytes * 8) / durationSeconds : 0 }
    var target: Int? { properties.rateControl == .constantQP ? nil : properties.averageBitRate }
    /// (actual - target) / target.
    var deviation: Double? { target.map { (bitRate - Double($0)) / Double($0) } }
    var missedTarget: Bool { properties.rateControl == .constantBitRate && (deviation.map { abs($0) > Self.cbrTolerance } ?? false) }

    var rateControlName: String {
        properties.rateControl == .constantQP ? "CQP \(properties.quantizer)" : properties.rateControl.rawValue
    }

    /// The summary line (under 100 characters), and for CBR/VBR one on the bit rate reached.
    var lines: String {
        let name = output == "-" ? "standard output" : String(output.split(separator: "/").last ?? Substring(output))
        let size = fileBytes.map { "\(ByteCount.text($0)), " } ?? ""
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        var text = "vtk encode: \(frames) frames \(source.width)x\(source.height) -> \(name) (\(size)\(payloadBytes) B payload), "
            + "\(DeviceName.short(device)), \(String(format2: seconds)) s (\(String(format1: fps)) fps)\n"
        let via = entrypoint.isEmpty ? "" : "\(entrypoint), packed headers \(packedHeaders), "
        if let target, let deviation {
            let sign = deviation >= 0 ? "+" : "-"
            text += "vtk encode: \(via)\(rateControlName) target \(String(format1: Double(target) / 1000)) kbit/s, got \(String(format1: bitRate / 1000)) kbit/s "
                + "(\(sign)\(String(format1: abs(deviation) * 100))%)"
                + (missedTarget ? ": missed by more than \(Int(Self.cbrTolerance * 100))%" : "") + "\n"
        } else {
            text += "vtk encode: \(via)\(rateControlName), \(String(format1: bitRate / 1000)) kbit/s\n"
        }
        return text
    }

    var json: JSONValue {
        .object([
            ("input", .string(source.displayName)),
            ("output", .string(output)),
            ("frames", .int(frames)),
            ("width", .int(source.width)), ("height", .int(source.height)),
            ("frame_rate", .number(Double(source.frameRate.0) / Double(source.frameRate.1))),
            ("file_bytes", fileBytes.map(JSONValue.int) ?? .null),
            ("payload_bytes", .int(payloadBytes)),
            ("bitrate", .number(bitRate)),
            ("rate_control", .object([
                ("mode", .string(rateControlName)),
                ("target", target.map(JSONValue.int) ?? .null),
                ("deviation", deviation.map(JSONValue.number) ?? .null),
                ("missed_target", .bool(missedTarget)),
            ])),
            ("device", .string(device)),
            ("entrypoint", .string(entrypoint)),
            ("packed_headers", .string(packedHeaders)),
            ("seconds", .number(seconds)),
            ("fps", .number(seconds > 0 ? Double(frames) / seconds : 0)),
            ("speed_method", .string(Self.speedMethod)),
            ("warnings", .array(warnings.map(JSONValue.string))),
            ("exit_code", .int(warnings.isEmpty ? 0 : Int(ExitCode.input.rawValue))),
        ])
    }
}
