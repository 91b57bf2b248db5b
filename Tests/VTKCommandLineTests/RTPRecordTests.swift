import Foundation
import RTP
import Testing
import VTKTestSupport

/// `vtk receive --copy` against FFmpeg as sender and as oracle, and the PLI and latency accounting of
/// `vtk receive --stats`.
///
/// Rules of comparison: a recording is right when FFmpeg decodes it to the same frames as the source, frame
/// by frame (framemd5's MD5 column, display order; the timestamps differ by container), and when its
/// presentation times, read by ffprobe in display order, increase. That the source reorders is checked on the
/// recording itself (packet pts not in decode order), so the B-frame path is really taken.
@Suite("RTP: vtk receive --copy records H.264 and H.265 with B-frames; PLI and latency accounting",
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
       .serialized)
struct RTPRecordTests {
    static let h264BFrames = GeneratedStream(name: "x264-rtp-record-bframes-160x96", width: 160, height: 96, frames: 60,
                                             encoderOptions: ["-c:v", "libx264", "-x264-params", "bframes=2:b-pyramid=normal:keyint=20"],
                                             muxer: "mp4")
    static let h265BFrames = GeneratedStream(name: "x265-rtp-record-bframes-160x96", width: 160, height: 96, frames: 60,
                                             encoderOptions: ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params",
                                                              "log-level=error:pools=1:frame-threads=1:bframes=2:keyint=20"],
                                             muxer: "mp4")

    static func frameMD5s(_ file: URL) throws -> [String] {
        let frames = try Loopback.ffmpegFrameMD5s(file)
        #expect(!frames.isEmpty, "ffmpeg decoded nothing from \(file.lastPathComponent)")
        return frames
    }

    static func ffprobe(_ file: URL, _ arguments: [String]) throws -> [String] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error"] + arguments + ["-of", "csv=p=0", file.path])
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
    }

    /// What the recording must be: the source's frames, an increasing display-order pts, reordering kept.
    static func checkRecording(_ output: URL, source: URL, receiverText: String, mp4Tag: String?) throws {
        #expect(receiverText.contains("60 frames recorded"), "\(receiverText)")
        #expect(try frameMD5s(output) == (try frameMD5s(source)), "FFmpeg decodes the recording to other frames than the source")
        guard let mp4Tag else { return }
        #expect(try ffprobe(output, ["-show_entries", "stream=codec_tag_string"]) == [mp4Tag])
        let framePTS = try ffprobe(output, ["-select_streams", "v", "-show_entries", "frame=pts"]).compactMap { Int($0) }
        #expect(framePTS.count == 60, "\(framePTS)")
        #expect(zip(framePTS, framePTS.dropFirst()).allSatisfy { $0 < $1 }, "display-order pts not increasing: \(framePTS)")
        let packets = try ffprobe(output, ["-show_entries", "packet=pts,dts"]).map { $0.split(separator: ",").compactMap { Int($0) } }
        #expect(packets.allSatisfy { $0.count == 2 && $0[1] <= $0[0] }, "a sample decoded after it is presented: \(packets)")
        let pts = packets.compactMap(\.first)
        #expect(pts != pts.sorted(), "the recording has no reordering: the B-frame path was not exercised")
    }

    @Test("FFmpeg sends H.264 with B-frames (in-band SPS/PPS), vtk receive -o out.mp4 --copy: FFmpeg's framemd5 equals the source's")
    func h264BFramesToMP4() throws {
        let source = try Self.h264BFrames.url()
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: output) }
        let (receiver, port) = try Loopback.startReceiver(["-o", output.path, "--copy", "--timeout", "120"])
        let ssrc: UInt32 = 0x2525_0264
        // h264_mp4toannexb puts the SPS and PPS before every IDR: the receiver has no SDP.
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", source.path, "-c", "copy", "-bsf:v", "h264_mp4toannexb",
                                                      "-f", "rtp", "-ssrc", "\(ssrc)", "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)  // FFmpeg sends none
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        try Self.checkRecording(output, source: source, receiverText: receiver.stderr, mp4Tag: "avc1")
    }

    @Test("FFmpeg sends H.265 with B-frames (parameter sets in the SDP's sprop-*), vtk receive -o out.mp4|out.265 --copy: framemd5 equals the source's",
          arguments: ["mp4", "265"])
    func h265BFrames(ext: String) throws {
        let source = try Self.h265BFrames.url()
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).\(ext)")
        let sdp = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).sdp")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: sdp)
        }
        let port = try Loopback.freePortPair()
        // FFmpeg writes the SDP (sprop-vps, sprop-sps, sprop-pps from the hvcC) with one frame into the void.
        let probe = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", source.path, "-frames:v", "1", "-c", "copy", "-f", "rtp",
                                                     "rtp://127.0.0.1:\(port)", "-sdp_file", sdp.path])
        #expect(probe.status == 0, "\(probe.stderrText)")
        let receiver = try BackgroundProcess(try #require(VTKBinary.url).path, ["receive", sdp.path, "-o", output.path, "--copy", "--timeout", "120"])
        #expect(receiver.wait { receiver.stderr.contains("listening on") }, "receiver never listened: \(receiver.stderr)")
        let ssrc: UInt32 = 0x2525_0265
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", source.path, "-c", "copy", "-f", "rtp", "-ssrc", "\(ssrc)",
                                                      "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        try Loopback.sendBye(port: port, ssrc: ssrc)
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        try Self.checkRecording(output, source: source, receiverText: receiver.stderr, mp4Tag: ext == "mp4" ? "hvc1" : nil)
    }

    @Test("every PLI gets its own entry: IDR-after-PLI entries plus PLIs unanswered at the end equal the PLIs sent, at least 3 answered")
    func everyPLIHasItsRecoveryEntry() throws {
        let y4m = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: y4m) }
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-frames:v", "90",
                                                    "-pix_fmt", "yuv420p", y4m.path])
        #expect(made.status == 0, "\(made.stderrText)")
        // Loss on the receiving side (by sequence number) on a live encode with --keyint 0: only PLIs bring IDRs.
        let (receiver, port) = try Loopback.startReceiver(["--stats", "--json", "--loss", "4", "--seed", "7", "--latency", "0", "--timeout", "120"])
        let send = try VTKBinary.run(["send", y4m.path, "rtp://127.0.0.1:\(port)", "--keyint", "0", "--qp", "32", "--mtu", "400"])
        #expect(send.status == 0, "\(send.stderrText)")
        _ = receiver.finish()
        let stats = try Loopback.json(receiver.stdout)
        let pli = try #require(stats["pli_sent"] as? Int)
        let unanswered = try #require(stats["pli_unanswered"] as? Int)
        let entries = try #require(stats["frames_from_pli_to_idr"] as? [Int])
        #expect(entries.count >= 3, "fewer than 3 PLIs answered: \(receiver.stdout)")
        #expect(entries.count + unanswered == pli, "PLIs sent \(pli), entries \(entries.count), unanswered \(unanswered)")
        #expect(entries.allSatisfy { $0 >= 0 }, "\(entries)")
        // Several PLIs answered by one IDR each get an entry, so the IDRs forced are at most the entries.
        let forced = send.stderrText.range(of: " IDR forced").map { send.stderrText[..<$0.lowerBound].split(separator: " ").last.flatMap { Int($0) } } ?? nil
        if let forced { #expect(forced >= 1 && forced <= pli, "\(send.stderrText)") }
    }

    @Test("without a BYE the frames released by the end-of-stream flush are left out of latency: p99 is far under --timeout")
    func flushedFramesAreNotLatency() throws {
        // B-frames: the decoder holds the last pictures for reordering until the flush at --timeout.
        let source = try Self.h264BFrames.url()
        // Frames held for reordering wait a few frame intervals (about 160 ms at 25 fps here): the bound,
        // a tenth of --timeout, is 12 times that; a frame released by the flush waits the whole --timeout.
        let timeout = 20.0
        let (receiver, port) = try Loopback.startReceiver(["--stats", "--json", "--md5", "--latency", "0", "--timeout", "\(timeout)"])
        // -re paces as a live source would; FFmpeg sends no BYE without -rtpflags send_bye.
        let ffmpeg = try ProcessRunner.run("ffmpeg", ["-v", "error", "-re", "-i", source.path, "-c", "copy", "-bsf:v", "h264_mp4toannexb",
                                                      "-f", "rtp", "rtp://127.0.0.1:\(port)"])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderrText)")
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
        let stats = try Loopback.json(receiver.stdout)
        #expect(stats["frames_decoded"] as? Int == 60, "\(receiver.stdout)")
        let expected = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", source.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"]).stdoutText
        #expect(receiver.stdout.contains(expected.trimmingCharacters(in: .whitespacesAndNewlines)), "\(receiver.stdout)")
        let p99 = try #require(stats["latency_p99_ms"] as? Double, "\(receiver.stdout)")
        #expect(p99 >= 0 && p99 < timeout * 1000 / 10, "p99 latency \(p99) ms with --timeout \(timeout) s")
    }
}
