import Foundation
import PixelConversion
import Testing
import VTKMedia
import VTKTestSupport

/// `vtk play` on interlaced H.264 (a libx264 MBAFF stream, top field first, made here): bob deinterlacing by
/// default. The reference for a field is FFmpeg's software decode through its `field` filter (the field's
/// lines) and nearest-neighbour scaling to the frame height (each line doubled): `-vf field=top|bottom,
/// scale=W:H:flags=neighbor`, the same line doubling as vtk's. At 25 frames per second a frame k lasts
/// [k/25, (k+1)/25): its top field is due in the first half, its bottom field in the second.
@Suite("vtk play: interlaced streams, bob deinterlacing", .serialized)
struct PlayDeinterlaceTests {
    static var stream: GeneratedStream? { GeneratedStream.mbaff.first { $0.name.contains("-tff-") } }

    /// FFmpeg's line-doubled field of frame `index` (display order), as RGB through vtk play's conversion.
    static func referenceField(_ url: URL, frame index: Int, bottom: Bool, width: Int, height: Int) throws -> RGBImage {
        let filter = "field=\(bottom ? "bottom" : "top"),scale=\(width):\(height):flags=neighbor,select=eq(n\\,\(index))"
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-vf", filter, "-frames:v", "1",
                                                      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        let picture = try #require(PixelBuffer(format: .i420, width: width, height: height, packed: [UInt8](result.stdout)[...]))
        return RGBImage(width: width, height: height, bytes: PixelConverter.rgb(picture))
    }

    @Test("--screenshot in each half of a frame shows that field, line-doubled, as FFmpeg's field filter gives it; the timing log has 2 entries per frame",
          .enabled(if: PlayTests.ready, PlayTests.missing))
    func bob() throws {
        let generated = try #require(Self.stream)
        let url = try generated.url()
        let (width, height) = (generated.width, generated.height)
        // Frames 5 and 12: top field at k/25 + 0.01 s, bottom field at k/25 + 0.03 s.
        let checks: [(frame: Int, bottom: Bool)] = [(5, false), (5, true), (12, false), (12, true)]
        let times = checks.map { (Double($0.frame) / 25 + ($0.bottom ? 0.03 : 0.01)) }
        let shots = checks.indices.map { TestPaths.scratch.appendingPathComponent("bob-\($0).png") }
        let log = TestPaths.scratch.appendingPathComponent("bob-timing.jsonl")
        let result = try PlayTests.play([url.path, "--fps", "25", "--rate", "4", "--timing-log", log.path]
                                        + zip(times, shots).flatMap { ["--screenshot", String(format: "%.2f", $0) + ":\($1.path)"] })
        #expect(result.status == 0, "\(result.stderrText)")
        for ((check, time), shot) in zip(zip(checks, times), shots) {
            let picture = RGBImage(width: width, height: height, bytes: try PlayTests.rgb(of: shot))
            // The field due against the other field of the same frame and the fields of the frames around it.
            var psnr: [String: Double] = [:]
            for frame in [check.frame - 1, check.frame, check.frame + 1] {
                for bottom in [false, true] {
                    let reference = try Self.referenceField(url, frame: frame, bottom: bottom, width: width, height: height)
                    psnr["\(frame)\(bottom ? "b" : "t")"] = picture.lumaPSNR(reference)
                }
            }
            let due = "\(check.frame)\(check.bottom ? "b" : "t")"
            let best = psnr.max { $0.value < $1.value }?.key
            #expect(best == due, "screenshot at \(time) s: best match \(best ?? "?"), due \(due); \(psnr)")
            #expect(psnr[due] ?? 0 >= 40, "screenshot at \(time) s: \(psnr[due] ?? 0) dB")
            print("vtk play bob: screenshot at \(time) s shows field \(due) at \(String(format: "%.2f", psnr[due] ?? 0)) dB (other field \(String(format: "%.2f", psnr["\(check.frame)\(check.bottom ? "t" : "b")"] ?? 0)) dB)")
        }
        let entries = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count
        #expect(entries == 2 * generated.frames, "timing log: \(entries) entries for \(generated.frames) frames")

        // --deinterlace off: one entry per frame, woven frames.
        let offLog = TestPaths.scratch.appendingPathComponent("bob-off-timing.jsonl")
        let off = try PlayTests.play([url.path, "--fps", "25", "--rate", "4", "--deinterlace", "off", "--timing-log", offLog.path])
        #expect(off.status == 0, "\(off.stderrText)")
        #expect(try String(contentsOf: offLog, encoding: .utf8).split(separator: "\n").count == generated.frames)
        #expect(try PlayTests.play([url.path, "--deinterlace", "weave"]).status == 2, "an unknown mode is a usage error")
    }
}
