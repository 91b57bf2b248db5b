import CompressionSession
import JSONText

/// The numbers of a round trip, as text, JSON and an SVG plot.
struct RoundtripReport {
    let source: FrameSource
    let device: String
    /// The encode entrypoint negotiated ("EncSlice", "EncSliceLP") and the packed headers sent.
    let entrypoint: String
    let packedHeaders: String
    /// B-frames in use (0 when off or the driver has no list-1 references).
    let bFrames: Int
    let records: [RoundtripCommand.FrameRecord]
    let totalBytes: Int
    let encodeSpeed: StageSpeed
    let decodeSpeed: StageSpeed
    let ssim: Bool
    let properties: CompressionProperties
    let minPSNR: Double?
    let minSSIM: Double?
    /// What makes the run end with an input error though it was measured (a partial last frame).
    let warnings: [String]
    /// Where the encoder did less than asked (B-frames off on a driver without list-1 references …).
    var encoderWarnings: [String] = []
    /// The exit code when writing an output (the plot) failed after the measurement.
    var exitCodeOverride: ExitCode?

    var frames: Int { records.count }
    var durationSeconds: Double { Double(frames) * Double(source.frameRate.1) / Double(source.frameRate.0) }
    var bitRate: Double { durationSeconds > 0 ? Double(totalBytes * 8) / durationSeconds : 0 }

    /// PSNR of each plane from the MSE averaged over all frames (FFmpeg's psnr filter convention).
    var psnr: [Double] {
        (0..<3).map { plane in
            let error = records.reduce(0.0) { $0 + Double($1.quality.squaredError[plane]) }
            let samples = records.reduce(0.0) { $0 + Double($1.quality.samples[plane]) }
            return FrameQuality.psnr(squaredError: error, samples: samples)
        }
    }
    var weightedPSNR: Double { let p = psnr; return (6 * p[0] + p[1] + p[2]) / 8 }
    var meanSSIM: Double? {
        guard ssim else { return nil }
        let values = records.compactMap(\.quality.ssimY)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    var failures: [String] {
        var out: [String] = []
        if let minPSNR, psnr[0] < minPSNR { out.append("Y-PSNR \(String(format2: psnr[0])) dB is below --min-psnr \(String(format2: minPSNR))") }
        if let minSSIM, let value = meanSSIM, value < minSSIM { out.append("Y-SSIM \(String(decimals: 4, value)) is below --min-ssim \(minSSIM)") }
        return out
    }

    /// The exit code the run ends with: input error (3) before a missed threshold (1).
    var exitCode: ExitCode { exitCodeOverride ?? (!warnings.isEmpty ? .input : !failures.isEmpty ? .thresholdNotMet : .success) }

    var rateControlText: String {
        switch properties.rateControl {
        case .constantQP: return "CQP \(properties.quantizer)"
        default: return "\(properties.rateControl.rawValue) \(properties.averageBitRate ?? 0) bit/s"
        }
    }

    var text: String {
        let p = psnr
        var out = "input:      \(source.displayName), \(source.width)x\(source.height) @ \(source.frameRate.0)/\(source.frameRate.1) fps\n"
        out += "device:     \(device)\n"
        out += "encoder:    \(properties.codec.rawValue) \(properties.profileName), \(rateControlText), keyint \(properties.maxKeyFrameInterval), B-frames \(bFrames)\n"
        out += "entrypoint: \(entrypoint), packed headers \(packedHeaders)\n"
        out += "frames:     \(frames)\n"
        out += "bit rate:   \(String(format1: bitRate / 1000)) kbit/s (\(totalBytes) bytes)\n"
        out += "PSNR:       Y \(String(format2: p[0])) dB  U \(String(format2: p[1])) dB  V \(String(format2: p[2])) dB  avg(6:1:1) \(String(format2: weightedPSNR)) dB\n"
        if let s = meanSSIM { out += "SSIM:       Y \(String(decimals: 4, s))\n" }
        out += "speed:      encode \(speedText(encodeSpeed)), decode \(speedText(decodeSpeed))\n"
        out += "            (\(StageSpeed.roundtripShortMethod))\n"
        out += "result:     " + (exitCode == .success ? "pass" : "FAIL (" + (failures + warnings).joined(separator: "; ") + ")") + "\n"
        return out
    }

    func speedText(_ speed: StageSpeed) -> String {
        speed.fps.map { "\(String(format1: $0)) fps" } ?? "not measured (\(speed.unmeasured ?? "no frames"))"
    }

    var json: JSONValue {
        let p = psnr
        return .object([
            ("input", .string(source.displayName)),
            ("device", .string(device)),
            ("entrypoint", .string(entrypoint)),
            ("packed_headers", .string(packedHeaders)),
            ("b_frames", .int(bFrames)),
            ("width", .int(source.width)), ("height", .int(source.height)),
            ("frame_rate", .number(Double(source.frameRate.0) / Double(source.frameRate.1))),
            ("codec", .string(properties.codec.rawValue)),
            ("profile", .string(properties.profileName)),
            ("rate_control", .string(rateControlText)),
            ("frames", .int(frames)),
            ("bytes", .int(totalBytes)),
            ("bitrate", .number(bitRate)),
            ("idr_frames", .ints(records.filter(\.idr).map(\.index))),
            ("psnr", .object([("y", .number(p[0])), ("u", .number(p[1])), ("v", .number(p[2])), ("avg", .number(weightedPSNR))])),
            ("ssim", .object([("y", meanSSIM.map(JSONValue.number) ?? .null)])),
            ("speed", .object([("encode_fps", encodeSpeed.fps.map(JSONValue.number) ?? .null),
                               ("decode_fps", decodeSpeed.fps.map(JSONValue.number) ?? .null),
                               ("encode_seconds", encodeSpeed.fps == nil ? .null : .number(encodeSpeed.seconds)),
                               ("decode_seconds", decodeSpeed.fps == nil ? .null : .number(decodeSpeed.seconds)),
                               ("method", .string(StageSpeed.roundtripMethod)),
                               ("encode_not_measured", encodeSpeed.unmeasured.map(JSONValue.string) ?? .null),
                               ("decode_not_measured", decodeSpeed.unmeasured.map(JSONValue.string) ?? .null)])),
            ("thresholds", .object([("min_psnr", minPSNR.map(JSONValue.number) ?? .null), ("min_ssim", minSSIM.map(JSONValue.number) ?? .null)])),
            ("passed", .bool(exitCode == .success)),
            ("failures", .array(failures.map(JSONValue.string))),
            ("warnings", .array(warnings.map(JSONValue.string))),
            ("encoder_warnings", .array(encoderWarnings.map(JSONValue.string))),
            ("exit_code", .int(Int(exitCode.rawValue))),
            ("per_frame", .array(records.map { r in
                let q = r.quality.psnr
                return .object([("index", .int(r.index)), ("type", .string(String(r.type))), ("bits", .int(r.bits)),
                                ("psnr", .object([("y", .number(q[0])), ("u", .number(q[1])), ("v", .number(q[2]))])),
                                ("ssim_y", r.quality.ssimY.map(JSONValue.number) ?? .null)])
            })),
        ])
    }

    /// Panels sharing the frame axis: per-frame Y-PSNR (line, with the --min-psnr threshold), Y-SSIM when
    /// measured (line, with --min-ssim), and bits per frame (bars coloured and marked by picture type).
    var svg: String { RoundtripPlot(report: self).svg }
}
