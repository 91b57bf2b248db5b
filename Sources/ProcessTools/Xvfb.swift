#if canImport(Glibc)
import Glibc
#endif
import VTKMedia

/// A private X server (Xvfb) for running third-party VA clients (ffmpeg, vainfo) on vtksoft without a GPU:
/// they reach a driver through an X11 display. One per process, on a display number nobody uses, stopped
/// at exit. Used by the tests and by `vtk suite` (decoder ffmpeg-vaapi).
public final class Xvfb: Sendable {
    public let displayNumber: Int
    public var display: String { ":\(displayNumber)" }
    private let process: ChildProcess

    private init(displayNumber: Int, process: ChildProcess) {
        self.displayNumber = displayNumber
        self.process = process
    }

    public static var isInstalled: Bool { ProgramPath.which("Xvfb") != nil }

    /// The process's server, started on first use; nil when Xvfb is missing or will not start.
    /// A small shell watchdog stops the server when this process goes, however it exits (the test
    /// runner does not reliably run atexit handlers).
    public static let shared: Xvfb? = start()

    /// Xvfb picks a free display number itself (`-displayfd`) and writes it when it accepts connections, so
    /// parallel processes (tests, `vtk suite`, other users) never race for a number, and the watchdog's
    /// cleanup only ever removes the socket and lock of its own server.
    private static func start() -> Xvfb? {
        guard let path = ProgramPath.which("Xvfb") else { return nil }
        let numberFile = "\(TemporaryFile.directory)/vtk-xvfb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // SIGKILL because the server inherits the test runner's signal mask, which may block SIGTERM; so the
        // watchdog removes the server's socket and lock itself, for the number the server wrote.
        let f = "'\(numberFile)'"
        let cleanup = "kill -KILL $x 2>/dev/null; wait $x 2>/dev/null; n=$(cat \(f) 2>/dev/null); "
            + "[ -n \"$n\" ] && rm -f /tmp/.X$n-lock /tmp/.X11-unix/X$n; rm -f \(f)"
        // -noreset: the server would otherwise reset each time its last client goes, refusing whoever connects then.
        // +bs: a covered window keeps its pixels, so that reading it back shows it whatever lies on top.
        let watchdog = "\(path) -displayfd 3 -nolisten tcp -noreset +bs -screen 0 320x240x24 3>\(f) & x=$!; trap '\(cleanup); exit 0' TERM; "
            + "while kill -0 \(getpid()) 2>/dev/null && kill -0 $x 2>/dev/null; do sleep 0.5; done; \(cleanup)"
        guard let process = try? ChildProcess("/bin/sh", ["-c", watchdog], standardOutput: .discard, standardError: .discard) else { return nil }
        // The number arrives, newline-terminated, once the server is ready: up to 120 s on a loaded machine.
        for _ in 0..<2400 {
            if let bytes = FileBytes.read(path: numberFile), bytes.last == UInt8(ascii: "\n"),
               let n = Int(String(decoding: bytes.dropLast(), as: UTF8.self)) {
                return Xvfb(displayNumber: n, process: process)
            }
            if !process.isRunning { return nil }
            usleep(50_000)
        }
        process.send(SIGTERM)
        return nil
    }

    /// A server of its own, stopped with this process: for tests that put windows on the screen, away from the
    /// tests that read the shared server's root window.
    public static func startPrivate() -> Xvfb? { start() }

    /// Stops the server now (the watchdog otherwise stops it when this process exits).
    public func stop() {
        if process.isRunning {
            process.send(SIGTERM)
            process.wait()
        }
    }
}
