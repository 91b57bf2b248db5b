import Foundation

/// A private X server (Xvfb) for running third-party VA clients (ffmpeg, vainfo) on vtksoft without a GPU:
/// they reach a driver through an X11 display. One per process, on a display number nobody uses, stopped
/// at exit. Used by the tests and by `vtk suite` (decoder ffmpeg-vaapi).
public final class Xvfb: @unchecked Sendable {
    public let displayNumber: Int
    public var display: String { ":\(displayNumber)" }
    private let process: Process

    private init(displayNumber: Int, process: Process) {
        self.displayNumber = displayNumber
        self.process = process
    }

    public static var isInstalled: Bool { ProgramPath.which("Xvfb") != nil }

    /// The process's server, started on first use; nil when Xvfb is missing or will not start.
    /// A small shell watchdog stops the server when this process goes, however it exits (the test
    /// runner does not reliably run atexit handlers).
    public static let shared: Xvfb? = start()

    private static func start() -> Xvfb? {
        guard let path = ProgramPath.which("Xvfb") else { return nil }
        let fm = FileManager.default
        // Spread by pid so that parallel test processes rarely race for the same number.
        let first = 100 + Int(getpid() % 400)
        for offset in 0..<50 {
            let n = first + offset
            if fm.fileExists(atPath: "/tmp/.X11-unix/X\(n)") || fm.fileExists(atPath: "/tmp/.X\(n)-lock") { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // SIGKILL because the server inherits the test runner's signal mask, which may block SIGTERM;
            // so the watchdog removes the server's socket and lock itself.
            let cleanup = "kill -KILL $x 2>/dev/null; wait $x 2>/dev/null; rm -f /tmp/.X\(n)-lock /tmp/.X11-unix/X\(n)"
            let watchdog = "\(path) :\(n) -nolisten tcp -screen 0 320x240x24 & x=$!; trap '\(cleanup); exit 0' TERM; "
                + "while kill -0 \(getpid()) 2>/dev/null && kill -0 $x 2>/dev/null; do sleep 0.5; done; \(cleanup)"
            process.arguments = ["-c", watchdog]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            // Up to 10 s for the socket; a server that exits lost a race for the number.
            for _ in 0..<200 {
                if fm.fileExists(atPath: "/tmp/.X11-unix/X\(n)") {
                    // The socket may be another process's server that won the race for this number: ours
                    // then exits at once ("server already active"), and the watchdog with it.
                    usleep(500_000)
                    if process.isRunning { return Xvfb(displayNumber: n, process: process) }
                    break
                }
                if !process.isRunning { break }
                usleep(50_000)
            }
            if process.isRunning { process.terminate() }
        }
        return nil
    }

    /// Stops the server now (the watchdog otherwise stops it when this process exits).
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
