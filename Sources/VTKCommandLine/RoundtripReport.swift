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
    let encodeSeconds: Double
    let decodeSeconds: Double
    let ssim: Bool
    let properties: CompressionProperties
    let minPSNR: Double?
    let minSSIM: Double?
    /// What makes the run end with an input error though it was measured (a partial last frame).
    let warnings: [String]

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
        if let minSSIM, let value = meanSSIM, value < minSSIM { out.append("Y-SSIM \(String(format: "%.4f", value)) is below --min-ssim \(minSSIM)") }
        return out
    }

    /// The exit code the run ends with: input error (3) before a missed threshold (1).
    var exitCode: ExitCode { !warnings.isEmpty ? .input : !failures.isEmpty ? .thresholdNotMet : .success }

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
        out += "encoder:    H.264 \(properties.profile.rawValue), \(rateControlText), keyint \(properties.maxKeyFrameInterval), B-frames \(bFrames)\n"
        out += "entrypoint: \(entrypoint), packed headers \(packedHeaders)\n"
        out += "frames:     \(frames)\n"
        out += "bit rate:   \(String(format1: bitRate / 1000)) kbit/s (\(totalBytes) bytes)\n"
        out += "PSNR:       Y \(String(format2: p[0])) dB  U \(String(format2: p[1])) dB  V \(String(format2: p[2])) dB  avg(6:1:1) \(String(format2: weightedPSNR)) dB\n"
        if let s = meanSSIM { out += "SSIM:       Y \(String(format: "%.4f", s))\n" }
        out += "speed:      encode \(String(format1: Double(frames) / max(encodeSeconds, 1e-9))) fps, decode \(String(format1: Double(frames) / max(decodeSeconds, 1e-9))) fps\n"
        out += "result:     " + (exitCode == .success ? "pass" : "FAIL (" + (failures + warnings).joined(separator: "; ") + ")") + "\n"
        return out
    }

    var json: JSONValue {
        let p = psnr
        return .object([
            ("input", .string(source.displayName)),
            ("device", .string(device)),
            ("entrypoint", .string(entrypoint)),
            ("packedHeaders", .string(packedHeaders)),
            ("bFrames", .int(bFrames)),
            ("width", .int(source.width)), ("height", .int(source.height)),
            ("frame_rate", .number(Double(source.frameRate.0) / Double(source.frameRate.1))),
            ("profile", .string(properties.profile.rawValue)),
            ("rate_control", .string(rateControlText)),
            ("frames", .int(frames)),
            ("bytes", .int(totalBytes)),
            ("bitrate", .number(bitRate)),
            ("idr_frames", .ints(records.filter(\.idr).map(\.index))),
            ("psnr", .object([("y", .number(p[0])), ("u", .number(p[1])), ("v", .number(p[2])), ("avg", .number(weightedPSNR))])),
            ("ssim", .object([("y", meanSSIM.map(JSONValue.number) ?? .null)])),
            ("speed", .object([("encode_fps", .number(Double(frames) / max(encodeSeconds, 1e-9))),
                               ("decode_fps", .number(Double(frames) / max(decodeSeconds, 1e-9)))])),
            ("thresholds", .object([("min_psnr", minPSNR.map(JSONValue.number) ?? .null), ("min_ssim", minSSIM.map(JSONValue.number) ?? .null)])),
            ("passed", .bool(exitCode == .success)),
            ("failures", .array(failures.map(JSONValue.string))),
            ("warnings", .array(warnings.map(JSONValue.string))),
            ("exitCode", .int(Int(exitCode.rawValue))),
            ("per_frame", .array(records.map { r in
                let q = r.quality.psnr
                return .object([("index", .int(r.index)), ("bits", .int(r.bits)),
                                ("psnr", .object([("y", .number(q[0])), ("u", .number(q[1])), ("v", .number(q[2]))])),
                                ("ssim_y", r.quality.ssimY.map(JSONValue.number) ?? .null)])
            })),
        ])
    }

    /// Two panels: per-frame Y-PSNR (line) and bits per frame (bars), sharing the frame axis.
    var svg: String {
        let width = 900.0, panel = 220.0, margin = 50.0
        let n = max(records.count, 1)
        let xStep = (width - 2 * margin) / Double(n)
        let psnrs = records.map { $0.quality.psnr[0] }
        let lo = (psnrs.min() ?? 0).rounded(.down) - 1, hi = (psnrs.max() ?? 1).rounded(.up) + 1
        let maxBits = Double(records.map(\.bits).max() ?? 1)
        func x(_ i: Int) -> Double { margin + (Double(i) + 0.5) * xStep }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(2 * panel + 3 * margin))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"\(margin)\" y=\"20\">vtk roundtrip: \(source.displayName) \(source.width)x\(source.height), \(rateControlText), Y-PSNR \(String(format2: psnr[0])) dB, \(String(format1: bitRate / 1000)) kbit/s</text>\n"
        // PSNR panel.
        let top1 = margin, top2 = 2 * margin + panel
        out += "<text x=\"5\" y=\"\(top1 + 10)\">\(String(format1: hi)) dB</text><text x=\"5\" y=\"\(top1 + panel)\">\(String(format1: lo)) dB</text>\n"
        out += "<rect x=\"\(margin)\" y=\"\(top1)\" width=\"\(width - 2 * margin)\" height=\"\(panel)\" fill=\"none\" stroke=\"#888\"/>\n"
        let points = psnrs.enumerated().map { i, v in "\(x(i)),\(top1 + panel - (v - lo) / max(hi - lo, 1e-9) * panel)" }.joined(separator: " ")
        out += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"\(points)\"/>\n"
        out += "<text x=\"\(margin)\" y=\"\(top1 - 5)\">Y-PSNR per frame</text>\n"
        // Bits panel.
        out += "<rect x=\"\(margin)\" y=\"\(top2)\" width=\"\(width - 2 * margin)\" height=\"\(panel)\" fill=\"none\" stroke=\"#888\"/>\n"
        out += "<text x=\"\(margin)\" y=\"\(top2 - 5)\">bits per frame (max \(Int(maxBits)))</text>\n"
        for r in records {
            let h = Double(r.bits) / maxBits * panel
            out += "<rect x=\"\(x(r.index) - xStep * 0.4)\" y=\"\(top2 + panel - h)\" width=\"\(max(xStep * 0.8, 0.5))\" height=\"\(h)\" fill=\"#ff7f0e\"/>\n"
        }
        out += "</svg>\n"
        return out
    }
}

import Foundation
