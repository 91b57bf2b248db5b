import Foundation
import Testing
import VTKTestSupport

/// B-frames pay for themselves at constant QP (issue 16): with vtk's QPs by layer at CQP (I 3 finer than the asked
/// QP, B 3 or 4 coarser: EncoderConfiguration.quantizerLadder), `--bframes 2` and `--bframes 3 --b-pyramid` at
/// `--qp 26` code 24 frames of real content (the 720p conformance clip scaled to 160x96) in at least 10% fewer bits
/// than `--bframes 0` at `--qp 27`, at an equal or better PSNR in every plane (measured: 20% and 27% fewer bits,
/// Y +0.56 and +0.60 dB). At one QP the B pictures' coarser QP costs Y-PSNR (−0.07 dB with `--bframes 2` at QP 27)
/// for 29% fewer bits, so the comparison gives the B-frame runs the next finer QP. The encoder is deterministic, so
/// the numbers are the same on every run.
@Suite("B-frames cost fewer bits than P-only at equal or better PSNR", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
       .enabled(if: TestPaths.shared != nil, Comment(rawValue: TestPaths.sharedMissingMessage)))
struct BFrameEfficiencyTests {
    static let frames = 24

    /// The start of the 720p conformance clip (real camera content), scaled to 160x96, as Y4M, made once
    /// (small: the native engine runs unoptimised in debug builds).
    static let input: Result<URL, Error> = Result {
        let url = TestPaths.scratch.appendingPathComponent("bframe-efficiency-160x96.y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let stream = try #require(TestPaths.shared).appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264")
            let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.path, "-frames:v", "\(frames)", "-vf", "scale=160:96",
                                                     "-pix_fmt", "yuv420p", "-y", url.path])
            guard r.status == 0 else { throw TraceHeadersError.ffmpegFailed("scale", r.stderrText) }
        }
        return url
    }

    struct Measurement: CustomStringConvertible {
        var bitrate: Double
        var psnr: [Double]  // Y, U, V
        var description: String { String(format: "%.1f kbit/s, PSNR Y %.3f U %.3f V %.3f", bitrate / 1000, psnr[0], psnr[1], psnr[2]) }
    }

    static func roundtrip(_ gop: [String]) throws -> Measurement {
        let r = try VTKBinary.run(["roundtrip", try input.get().path, "--psnr", "--json", "--device", "soft"] + gop,
                                  extraEnvironment: ["VTKSOFT_ENCODER": "native"])
        #expect(r.status == 0, "\(r.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(report["frames"] as? Int == frames)
        let psnr = try #require(report["psnr"] as? [String: Any])
        return Measurement(bitrate: try #require(report["bitrate"] as? Double),
                           psnr: try ["y", "u", "v"].map { try #require(psnr[$0] as? Double) })
    }

    @Test("--bframes 2 and --bframes 3 --b-pyramid at --qp 26 save at least 10% of the bits of --bframes 0 at --qp 27, every plane's PSNR as good")
    func cheaperAtEqualQuality() throws {
        let pOnly = try Self.roundtrip(["--qp", "27", "--bframes", "0"])
        for gop in [["--bframes", "2"], ["--bframes", "3", "--b-pyramid"]] {
            let b = try Self.roundtrip(["--qp", "26"] + gop)
            let saving = 1 - b.bitrate / pOnly.bitrate
            print("\(gop.joined(separator: " ")): \(b), \(String(format: "%.1f", 100 * saving))% fewer bits than --bframes 0: \(pOnly)")
            #expect(saving >= 0.10, "\(gop.joined(separator: " ")): \(b) against P-only \(pOnly)")
            for plane in 0..<3 {
                #expect(b.psnr[plane] >= pOnly.psnr[plane], "\(gop.joined(separator: " ")) plane \(plane): \(b) against P-only \(pOnly)")
            }
        }
    }
}
