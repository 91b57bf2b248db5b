import Foundation
import RTP
import Testing
import VTKTestSupport

/// `vtk send --codec h265`: raw frames encoded live to H.265 and sent by RFC 7798, received by FFmpeg from the
/// SDP and by `vtk receive FILE.sdp --md5`; the oracle is the source clip (Y-PSNR) and FFmpeg's decode (MD5).
@Suite("RTP H.265 live: vtk send --codec h265 encodes raw frames and sends them, FFmpeg and vtk receive decode them",
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
       .serialized)
struct RTPH265LiveSendTests {
    static let width = 320, height = 240, frames = 15

    /// A generated test pattern as raw yuv420p.
    static func makeClip(frames: Int = RTPH265LiveSendTests.frames) throws -> URL {
        let raw = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).yuv")
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=15",
                                                    "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-f", "rawvideo", raw.path])
        #expect(made.status == 0, "\(made.stderrText)")
        return raw
    }

    /// Y-PSNR of each frame of `decoded` against `source` (both raw yuv420p at width x height).
    static func lumaPSNRs(_ decoded: [UInt8], _ source: [UInt8]) -> [Double] {
        let luma = width * height, frameSize = luma * 3 / 2
        return (0..<min(decoded.count, source.count) / frameSize).map { index in
            var squares = 0
            for offset in index * frameSize..<index * frameSize + luma {
                let difference = Int(decoded[offset]) - Int(source[offset])
                squares += difference * difference
            }
            return squares == 0 ? 99 : 10 * log10(255.0 * 255.0 * Double(luma) / Double(squares))
        }
    }

    /// The raw clip's layout and the live encode: H.265 at QP 24.
    static func sendArguments(fps: Int, keyint: Int = 8) -> [String] {
        ["--size", "\(width)x\(height)", "--pix-fmt", "i420", "--fps", "\(fps)", "--codec", "h265", "--qp", "24", "--keyint", "\(keyint)"]
    }

    @Test("vtk send --codec h265 of a raw clip: the SDP names H265 with sprop-vps/sps/pps; FFmpeg and vtk receive decode every frame at Y-PSNR >= 35 dB")
    func liveH265ToFFmpegAndVTK() throws {
        let raw = try Self.makeClip()
        let port = try Loopback.freePortPair()
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        let received = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).yuv")
        defer { for url in [raw, sdp, received] { try? FileManager.default.removeItem(at: url) } }
        let source = try [UInt8](Data(contentsOf: raw))

        // The SDP first (the first frame encoded, nothing sent), so that the receivers can listen before the stream starts.
        let described = try VTKBinary.run(["send", raw.path, "rtp://127.0.0.1:\(port)", "--sdp", sdp.path, "--sdp-only"] + Self.sendArguments(fps: 15))
        #expect(described.status == 0, "\(described.stderrText)")
        let text = (try? String(contentsOf: sdp, encoding: .utf8)) ?? ""
        #expect(text.contains("a=rtpmap:96 H265/90000") && text.contains("sprop-vps=") && text.contains("sprop-sps=") && text.contains("sprop-pps="), "\(text)")
        #expect(!text.contains("sprop-parameter-sets") && !text.contains("H264"), "\(text)")

        // FFmpeg receives from the SDP.
        let ffmpeg = try BackgroundProcess("ffmpeg", ["-v", "error", "-protocol_whitelist", "file,udp,rtp", "-i", sdp.path,
                                                      "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-y", received.path])
        #expect(ffmpeg.wait { Loopback.isBound(port) }, "ffmpeg never listened: \(ffmpeg.stderr)")
        let send = try VTKBinary.run(["send", raw.path, "rtp://127.0.0.1:\(port)"] + Self.sendArguments(fps: 100))
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(send.stderrText.contains("\(Self.frames) frames encoded live"), "\(send.stderrText)")
        #expect(ffmpeg.finish() == 0, "\(ffmpeg.stderr)")  // vtk's RTCP BYE ends FFmpeg's input
        let decoded = try [UInt8](Data(contentsOf: received))
        #expect(decoded.count == source.count, "FFmpeg decoded \(decoded.count) bytes, the source has \(source.count) (\(Self.frames) frames)")
        let psnrs = Self.lumaPSNRs(decoded, source)
        #expect(psnrs.count == Self.frames && psnrs.allSatisfy { $0 >= 35 }, "FFmpeg's decode, Y-PSNR per frame: \(psnrs)")
        let ffmpegMD5 = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(Self.width)x\(Self.height)",
                                                         "-i", received.path, "-f", "md5", "-"]).stdoutText
        let md5 = try #require(ffmpegMD5.split(separator: "\n").first { $0.hasPrefix("MD5=") }, "\(ffmpegMD5)")

        // vtk receive from the same SDP: the same stream (the encoder is deterministic) decodes to FFmpeg's frames.
        let receiver = try BackgroundProcess(try #require(VTKBinary.url).path, ["receive", sdp.path, "--md5", "--stats", "--timeout", "120"])
        #expect(receiver.wait { receiver.stderr.contains("listening on") }, "receiver never listened: \(receiver.stderr)")
        let again = try VTKBinary.run(["send", raw.path, "rtp://127.0.0.1:\(port)"] + Self.sendArguments(fps: 100))
        #expect(again.status == 0, "\(again.stderrText)")
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        #expect(receiver.stdout.contains(String(md5)), "vtk receive: \(receiver.stdout); FFmpeg: \(md5)")
        #expect(receiver.stdout.contains("lost: 0") && receiver.stdout.contains("frames: \(Self.frames) decoded"), "\(receiver.stdout)")
    }

    @Test("a live vtk send --codec h265 answers PLI with an IDR (the receiver's losses ask for it)")
    func liveH265SenderAnswersPLI() throws {
        let raw = try Self.makeClip(frames: 30)
        defer { try? FileManager.default.removeItem(at: raw) }
        let (receiver, port) = try Loopback.startReceiver(["--codec", "h265", "--stats", "--json", "--loss", "3", "--seed", "26", "--latency", "0",
                                                           "--timeout", "120"])
        // --keyint 0: only the first frame is an IDR unless a PLI asks for one.
        let send = try VTKBinary.run(["send", raw.path, "rtp://127.0.0.1:\(port)"] + Self.sendArguments(fps: 15, keyint: 0))
        #expect(send.status == 0, "\(send.stderrText)")
        _ = receiver.finish()
        let stats = try Loopback.json(receiver.stdout)
        let pli = try #require(stats["pli_sent"] as? Int)
        #expect(pli > 0, "\(receiver.stdout)")
        #expect(send.stderrText.contains("IDR forced") && !send.stderrText.contains(" 0 IDR forced"), "\(send.stderrText)")
        let intervals = try #require(stats["frame_intervals_from_loss_to_idr"] as? [Double])
        #expect(!intervals.isEmpty, "no IDR followed a loss: \(receiver.stdout)")
    }
}

extension RTPH265LiveSendTests {
    @Test("vtk send FILE.265 --codec h265 names the coded input's codec (not an encode option): accepted, the SDP says H265")
    func codecOfCodedInputIsAccepted() throws {
        let raw = try Self.makeClip(frames: 2)
        let coded = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).265")
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer { for url in [raw, coded, sdp] { try? FileManager.default.removeItem(at: url) } }
        let encoded = try VTKBinary.run(["encode", raw.path, "-o", coded.path, "--size", "\(Self.width)x\(Self.height)", "--codec", "h265", "-q"])
        #expect(encoded.status == 0, "\(encoded.stderrText)")
        let port = try Loopback.freePortPair()
        let send = try VTKBinary.run(["send", coded.path, "rtp://127.0.0.1:\(port)", "--codec", "h265", "--sdp", sdp.path, "--sdp-only"])
        #expect(send.status == 0, "\(send.stderrText)")
        #expect(((try? String(contentsOf: sdp, encoding: .utf8)) ?? "").contains("a=rtpmap:96 H265/90000"))
        let refused = try VTKBinary.run(["send", coded.path, "rtp://127.0.0.1:\(port)", "--codec", "h265", "--qp", "30", "--sdp-only", "--sdp", sdp.path])
        #expect(refused.status == 2 && refused.stderrText.contains("--qp applies to live encoding"), "\(refused.stderrText)")
    }
}
