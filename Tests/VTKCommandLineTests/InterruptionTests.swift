import Foundation
import Testing
import VTKTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM end a command as FFmpeg's do: the output is closed on a whole frame, the summary is
/// printed, exit 130. Rules: each signal is sent once the output shows progress (the file grows, a frame
/// line is printed), never after a fixed sleep; what was written is read back by ffprobe/FFmpeg, the oracle.
@Suite("SIGINT and SIGTERM end commands cleanly", .serialized)
struct InterruptionTests {
    static var available: Bool { VTKBinary.available && ProcessRunner.hasFFmpeg }
    static let missing: Comment = "needs the vtk binary and ffmpeg"

    /// FFmpeg writing `arguments`' output to a pipe, which `consumer` reads as its standard input.
    final class Producer {
        let process = Process()
        let pipe = Pipe()
        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: try #require(ProcessRunner.which("ffmpeg")))
            process.arguments = ["-v", "quiet", "-nostdin"] + arguments
            process.standardOutput = pipe.fileHandleForWriting
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        /// Closes this process's ends of the pipe once the consumer holds its own: ffmpeg then meets EPIPE when
        /// the consumer ends (instead of blocking on a pipe nobody reads).
        func detach() {
            try? pipe.fileHandleForWriting.close()
            try? pipe.fileHandleForReading.close()
        }
        deinit {
            detach()
            if process.isRunning { process.terminate() }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    static func fileSize(_ url: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0 }

    /// The number before `label` in `text` ("97 frames encoded").
    static func number(before label: String, in text: String) -> Int? {
        guard let range = text.range(of: label) else { return nil }
        return Int(String(text[..<range.lowerBound].reversed().drop { $0 == " " }.prefix { $0.isNumber }.reversed()))
    }

    static func ffprobeFrames(_ url: URL) throws -> Int? {
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                      "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", url.path])
        return Int(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("ffmpeg … -f yuv4mpegpipe - | vtk encode - -o x.mp4, SIGINT: ffprobe reads every frame encoded", .enabled(if: available, missing))
    func encodePipeToMP4() throws {
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: output) }
        // A 20-minute Y4M pipe: it outlasts any test run.
        let producer = try Producer(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "1200", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        let vtk = try BackgroundProcess(try #require(VTKBinary.url).path, ["encode", "-", "-o", output.path],
                                        standardInput: producer.pipe.fileHandleForReading)
        producer.detach()
        #expect(vtk.wait { Self.fileSize(output) > 20_000 }, "the MP4 never grew: \(vtk.stderr)")
        vtk.signal(SIGINT)
        #expect(vtk.finish() == 130, "\(vtk.stderr)")
        let encoded = try #require(Self.number(before: "frames encoded to", in: vtk.stderr), "\(vtk.stderr)")
        #expect(encoded > 0)
        #expect(vtk.stderr.contains("interrupted (SIGINT)"), "\(vtk.stderr)")
        #expect(vtk.stderr.contains("\(encoded) frames 320x180 -> "), "the summary is printed: \(vtk.stderr)")
        // Before the fix the file had no moov: ffprobe could not read it at all.
        #expect(try Self.ffprobeFrames(output) == encoded, "every frame read before the signal is in the MP4")
    }

    @Test("vtk decode - -o x.y4m, SIGTERM: the Y4M file ends on a whole frame, as many as the summary says", .enabled(if: available, missing))
    func decodeToY4M() throws {
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: output) }
        let producer = try Producer(["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-t", "1200", "-pix_fmt", "yuv420p",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264", "-"])
        let vtk = try BackgroundProcess(try #require(VTKBinary.url).path, ["decode", "-", "-o", output.path, "--md5"],
                                        standardInput: producer.pipe.fileHandleForReading)
        producer.detach()
        let frameBytes = 6 + 160 * 90 * 3 / 2  // "FRAME\n" and the I420 picture
        #expect(vtk.wait { Self.fileSize(output) > 10 * frameBytes }, "the Y4M file never grew: \(vtk.stderr)")
        vtk.signal(SIGTERM)
        #expect(vtk.finish() == 130, "\(vtk.stderr)")
        #expect(vtk.stderr.contains("interrupted (SIGTERM)"), "\(vtk.stderr)")
        let decoded = try #require(Self.number(before: "frames decoded", in: vtk.stderr), "\(vtk.stderr)")
        let bytes = try [UInt8](Data(contentsOf: output))
        let header = try #require(bytes.firstIndex(of: 0x0A)) + 1
        #expect((bytes.count - header) % frameBytes == 0, "a partial last frame: \(bytes.count - header) bytes of frames")
        #expect((bytes.count - header) / frameBytes == decoded)
        #expect(vtk.stdout.contains("MD5="), "the MD5 of what was decoded is printed: \(vtk.stdout)")
        #expect(try Self.ffprobeFrames(output) == decoded)
    }

    @Test("A second SIGINT quits at once, even while the command waits on input that never comes", .enabled(if: VTKBinary.available, VTKBinary.missing))
    func secondSignalQuits() throws {
        let output = TestPaths.scratch.appendingPathComponent("\(UUID().uuidString).h264")
        defer { try? FileManager.default.removeItem(at: output) }
        let pipe = Pipe()  // its write end stays open here, and nothing is written: vtk waits for its first byte
        let vtk = try BackgroundProcess(try #require(VTKBinary.url).path, ["encode", "-", "-o", output.path], standardInput: pipe.fileHandleForReading)
        defer { try? pipe.fileHandleForWriting.close() }
        // The first signal must find the command running: wait until its main thread sleeps in the pipe's read.
        let syscall = "/proc/\(vtk.processIdentifier)/syscall"  // "0 0x0 …": read(2) on file descriptor 0
        #expect(vtk.wait { (try? String(contentsOfFile: syscall, encoding: .utf8))?.hasPrefix("0 0x0 ") == true }, "vtk never waited on its input")
        vtk.signal(SIGINT)
        #expect(vtk.wait { vtk.stderr.contains("interrupt again to quit at once") }, "the first SIGINT is a request: \(vtk.stderr)")
        vtk.signal(SIGINT)
        #expect(vtk.wait(timeout: 60) { !vtk.isRunning }, "the second SIGINT did not end it")
        #expect(vtk.finish() == 130)
    }

    /// A 12-second H.264 stream, sent in real time: long enough to be interrupted while it plays.
    static func longStream() throws -> URL {
        try GeneratedStream(name: "interrupt-300-frames", width: 160, height: 96, frames: 300,
                            encoderOptions: ["-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "keyint=25:bframes=0"]).url()
    }

    @Test("vtk send, SIGINT: it sends an RTCP BYE, and the receiver ends without waiting for --timeout", .enabled(if: available, missing))
    func sendSendsBye() throws {
        let stream = try Self.longStream()
        let (receiver, port) = try Loopback.startReceiver(["--framemd5", "--timeout", "600"])
        let sender = try BackgroundProcess(try #require(VTKBinary.url).path, ["send", stream.path, "rtp://127.0.0.1:\(port)"])
        #expect(receiver.wait { receiver.stdout.contains("\t") }, "no frame arrived: \(receiver.stderr) \(sender.stderr)")
        sender.signal(SIGINT)
        #expect(sender.finish() == 130, "\(sender.stderr)")
        #expect(sender.stderr.contains("RTCP BYE sent after"), "\(sender.stderr)")
        // The receiver's --timeout is 600 s: it can only end within this bound by the BYE.
        #expect(receiver.wait(timeout: 60) { !receiver.isRunning }, "the receiver did not end at the BYE")
        #expect(receiver.finish() == 0, "\(receiver.stderr)")
    }

    @Test("vtk receive, SIGINT: statistics and the MD5 of what was decoded are printed; FFmpeg's decode agrees", .enabled(if: available, missing))
    func receivePrintsSummary() throws {
        let stream = try Self.longStream()
        let (receiver, port) = try Loopback.startReceiver(["--framemd5", "--md5", "--stats", "--timeout", "600"])
        let sender = try BackgroundProcess(try #require(VTKBinary.url).path, ["send", stream.path, "rtp://127.0.0.1:\(port)"])
        defer { sender.signal(SIGINT); _ = sender.finish() }
        #expect(receiver.wait { receiver.stdout.split(separator: "\n").count >= 5 }, "no frame arrived: \(receiver.stderr) \(sender.stderr)")
        receiver.signal(SIGINT)
        #expect(receiver.finish() == 130, "\(receiver.stderr)")
        let out = receiver.stdout
        let frames = out.split(separator: "\n").filter { $0.contains("\t") }.count
        #expect(Self.number(before: "decoded,", in: out) == frames, "stats: \(out)")
        #expect(out.contains("packets: "), "\(out)")
        let md5 = try #require(out.split(separator: "\n").first { $0.hasPrefix("MD5=") }, "\(out)")
        let reference = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", stream.path, "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-f", "md5", "-"])
        #expect(reference.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == String(md5), "the first \(frames) frames")
    }
}
