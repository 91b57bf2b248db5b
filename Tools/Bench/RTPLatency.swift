import Foundation

/// End-to-end latency of a live pipeline on loopback: the bench writes 720p frames at their capture times
/// into a sender's standard input (live encode -> RTP) and timestamps each decoded frame as it leaves the
/// receiver's standard output. The same measurement for vtk send/receive and for two FFmpeg processes.
/// Decoded frames are matched to captured ones by content (a receiver that joins late or drops frames
/// would otherwise be paired with the wrong capture times).
struct LatencyResult {
    var name: String
    var shown: String
    var frames: Int
    /// The captured frame the first decoded one is (frames before it were never shown).
    var firstShown: Int
    var milliseconds: [Double]
    var median: Double { percentile(50) }
    var p99: Double { percentile(99) }

    func percentile(_ p: Double) -> Double {
        guard !milliseconds.isEmpty else { return .nan }
        let sorted = milliseconds.sorted()
        return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count - 1)).rounded()))]
    }
}

func wallSeconds() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }

/// The UDP port a receiver announced (vtk prints it), or nil.
private func announcedPort(_ text: String) -> Int? {
    text.range(of: "rtp://@:").flatMap { Int(text[$0.upperBound...].prefix(while: \.isNumber)) }
}

private func isBound(_ port: Int) -> Bool {
    let hex = ":" + String(format: "%04X", port) + " "
    return ["/proc/net/udp", "/proc/net/udp6"].contains { (try? String(contentsOfFile: $0, encoding: .utf8))?.contains(hex) ?? false }
}

private func freePort() throws -> Int {
    // Ask the kernel for a free port pair (bind port 0), then let the receiver take it.
    for _ in 0..<64 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        close(fd)
        let port = Int(UInt16(bigEndian: address.sin_port))
        if port > 0, port < 65535, !isBound(port + 1) { return port }
    }
    throw BenchFailure("no free UDP port pair")
}

/// Runs `receiver` then `sender`, feeding `frames` frames of `rawI420` at `fps` into the sender.
/// `drainSeconds`: how long the receiver may take, after the sender ended, to deliver the last frames.
func measureLatency(name: String, receiver: [String], sender: (Int) -> [String], port: Int?, frames: Int, fps: Double,
                    width: Int, height: Int, raw: String, drainSeconds: Double) throws -> LatencyResult {
    let frameBytes = width * height * 3 / 2
    let receive = Process()
    receive.executableURL = URL(fileURLWithPath: receiver[0])
    receive.arguments = Array(receiver.dropFirst())
    receive.environment = ProcessInfo.processInfo.environment.merging(vaEnvironment) { $1 }
    let decoded = Pipe(), receiveLog = Pipe()
    receive.standardOutput = decoded
    receive.standardError = receiveLog
    do { try receive.run() } catch { throw BenchFailure("cannot start \(receiver[0])") }
    defer { if receive.isRunning { receive.terminate(); receive.waitUntilExit() } }
    // Ready: vtk says where it listens; FFmpeg has bound the port.
    var listening = port
    var logText = ""
    let readyBy = wallSeconds() + 60
    while wallSeconds() < readyBy {
        if let port = listening, isBound(port) { break }
        if listening == nil, let data = try? receiveLog.fileHandleForReading.availableData, !data.isEmpty {
            logText += String(decoding: data, as: UTF8.self)
            listening = announcedPort(logText)
        }
        usleep(10_000)
    }
    guard let target = listening else { throw BenchFailure("\(name): the receiver never listened") }

    let arrivals = Arrivals()
    let output = decoded.fileHandleForReading
    let reader = Thread {
        var frame = Data()
        while arrivals.count < frames {
            let data = output.readData(ofLength: frameBytes - frame.count)
            if data.isEmpty { break }
            frame += data
            if frame.count == frameBytes {
                let time = wallSeconds()
                arrivals.append(time, LumaSignature(frame, width: width, height: height))
                frame = Data()
            }
        }
    }
    reader.start()

    let send = Process()
    let command = sender(target)
    send.executableURL = URL(fileURLWithPath: command[0])
    send.arguments = Array(command.dropFirst())
    send.environment = receive.environment
    let input = Pipe()
    send.standardInput = input
    send.standardOutput = FileHandle.nullDevice
    send.standardError = FileHandle.nullDevice
    do { try send.run() } catch { throw BenchFailure("cannot start \(command[0])") }
    defer { if send.isRunning { send.terminate(); send.waitUntilExit() } }
    guard let source = FileHandle(forReadingAtPath: raw) else { throw BenchFailure("cannot read \(raw)") }
    var captured: [Double] = []
    var capturedSignatures: [LumaSignature] = []
    let start = wallSeconds() + 0.5
    for index in 0..<frames {
        let frame = source.readData(ofLength: frameBytes)
        guard frame.count == frameBytes else { break }
        let due = start + Double(index) / fps
        let wait = due - wallSeconds()
        if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        captured.append(wallSeconds())
        input.fileHandleForWriting.write(frame)
        capturedSignatures.append(LumaSignature(frame, width: width, height: height))
    }
    try? input.fileHandleForWriting.close()
    send.waitUntilExit()
    let end = wallSeconds() + drainSeconds
    while arrivals.count < captured.count, wallSeconds() < end { usleep(10_000) }
    receive.terminate()
    receive.waitUntilExit()
    let matches = LumaSignature.match(arrivals.signatures, to: capturedSignatures)
    let latencies = zip(arrivals.times, matches).map { ($0 - captured[$1]) * 1000 }
    return LatencyResult(name: name, shown: (command + ["|"] + receiver).map(shortPath).joined(separator: " "), frames: arrivals.count,
                         firstShown: matches.first ?? -1, milliseconds: latencies)
}

/// Arrival times and signatures written by the reader thread; the lock makes the sharing safe.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [(time: Double, signature: LumaSignature)] = []
    func append(_ time: Double, _ signature: LumaSignature) { lock.lock(); values.append((time, signature)); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return values.count }
    var times: [Double] { lock.lock(); defer { lock.unlock() }; return values.map(\.time) }
    var signatures: [LumaSignature] { lock.lock(); defer { lock.unlock() }; return values.map(\.signature) }
}

/// A frame's luma averaged over 16x16 blocks: close for a frame and its decoded copy, far for other frames.
struct LumaSignature: Sendable {
    var means: [Int32]

    init(_ frame: Data, width: Int, height: Int) {
        let columns = width / 16, rows = height / 16
        var sums = [Int32](repeating: 0, count: columns * rows)
        frame.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            for y in 0..<(rows * 16) {
                let row = y * width, block = (y / 16) * columns
                for x in 0..<(columns * 16) { sums[block + x / 16] += Int32(bytes[row + x]) }
            }
        }
        means = sums.map { $0 / 256 }
    }

    func distance(_ other: LumaSignature) -> Int { zip(means, other.means).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } }

    /// For each decoded frame (in output order) the captured frame it is: the nearest among the next 90
    /// captured frames after the previous match (output order is capture order without B-frames).
    static func match(_ decoded: [LumaSignature], to captured: [LumaSignature]) -> [Int] {
        var next = 0
        return decoded.map { signature in
            let window = next..<min(captured.count, next + 90)
            let best = window.min { signature.distance(captured[$0]) < signature.distance(captured[$1]) } ?? min(next, captured.count - 1)
            next = min(best + 1, captured.count - 1)
            return best
        }
    }
}

/// vtk send/receive against ffmpeg (libx264 zerolatency -> RTP) and ffmpeg (SDP -> decode), 720p at 30 fps.
func rtpLatencyBench(vtk: String, ffmpeg: String, raw: String, width: Int, height: Int, frames: Int, drainSeconds: Double) throws -> [LatencyResult] {
    let fps = 30.0
    let vtkResult = try measureLatency(
        name: "vtk send | vtk receive",
        receiver: [vtk, "receive", "rtp://@:0", "-o", "-", "--latency", "0", "--timeout", "30"],
        sender: { port in [vtk, "send", "-", "rtp://127.0.0.1:\(port)", "--size", "\(width)x\(height)", "--pix-fmt", "i420",
                           "--fps", "30", "--bitrate", "2M", "--keyint", "60", "-q"] },
        port: nil, frames: frames, fps: fps, width: width, height: height, raw: raw, drainSeconds: drainSeconds)
    let port = try freePort()
    let sdp = work.appendingPathComponent("latency.sdp").path
    let text = "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=bench\nc=IN IP4 127.0.0.1\nt=0 0\nm=video \(port) RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=1\n"
    try? text.write(toFile: sdp, atomically: true, encoding: .utf8)
    let ffmpegResult = try measureLatency(
        name: "ffmpeg -f rtp | ffmpeg -i SDP",
        receiver: [ffmpeg, "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-probesize", "32", "-analyzeduration", "0",
                   "-max_delay", "0", "-reorder_queue_size", "0", "-protocol_whitelist", "file,udp,rtp", "-i", sdp, "-fps_mode", "passthrough", "-pix_fmt", "yuv420p",
                   "-flush_packets", "1", "-f", "rawvideo", "-"],
        sender: { port in [ffmpeg, "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-framerate", "30",
                           "-i", "-", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-b:v", "2M", "-g", "60",
                           "-flags", "-global_header", "-f", "rtp", "rtp://127.0.0.1:\(port)"] },
        port: port, frames: frames, fps: fps, width: width, height: height, raw: raw, drainSeconds: drainSeconds)
    return [vtkResult, ffmpegResult]
}
