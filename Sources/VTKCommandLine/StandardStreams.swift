#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writing to standard output and error without Foundation's buffering surprises.
enum StandardStreams {
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    /// Standard output and error, each after clearing a progress line that may be on the terminal, so
    /// that text never lands at the end of it.
    static func out(_ text: String) {
        ProgressLine.clear()
        write(text, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        ProgressLine.clear()
        write(text, to: STDERR_FILENO)
    }

    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// True while a progress line is drawn on the terminal.
private let progressLineDrawn = Atomic<Bool>(false)

/// A progress line on standard error, redrawn in place when it is a terminal; silent otherwise or with --quiet.
final class ProgressLine {
    /// Erases the progress line, if one is drawn; the next update draws it again.
    static func clear() {
        if progressLineDrawn.exchange(false, ordering: .relaxed) { StandardStreams.write("\r\u{1B}[K", to: STDERR_FILENO) }
    }

    /// Seconds between redraws: 0.2, or $VTK_PROGRESS_INTERVAL (tests draw every update with 0).
    private static let interval: Double = getenv("VTK_PROGRESS_INTERVAL").flatMap { Double(String(cString: $0)) } ?? 0.2

    /// Whether this line is drawn at all (standard error is a terminal and not --quiet).
    var isShown: Bool { enabled }

    private let enabled: Bool
    private let label: String
    private var lastDraw: timespec = timespec()
    private let start: Double

    init(label: String, quiet: Bool) {
        self.label = label
        self.enabled = !quiet && StandardStreams.errorIsTerminal
        self.start = Clock.now()
    }

    /// `fraction` of the work done (nil when unknown, e.g. a pipe: then frames and fps only).
    func update(frames: Int, fraction: Double?) {
        guard enabled else { return }
        let now = Clock.now()
        guard now - Clock.seconds(lastDraw) >= Self.interval else { return }
        clock_gettime(CLOCK_MONOTONIC, &lastDraw)
        StandardStreams.write("\r" + Self.text(label: label, frames: frames, fraction: fraction, elapsed: now - start) + "\u{1B}[K", to: STDERR_FILENO)
        progressLineDrawn.store(true, ordering: .relaxed)
    }

    /// The line's text: frames and fps, then the percentage and time left when the fraction is known.
    static func text(label: String, frames: Int, fraction: Double?, elapsed: Double) -> String {
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        var line = "\(label): \(frames) frames, \(String(format1: fps)) fps"
        if let fraction, fraction > 0.01 {
            let done = min(fraction, 1)
            let eta = elapsed * (1 - done) / done
            line += ", \(Int(done * 100 + 1e-9))%, ETA \(Int(eta.rounded())) s"
        }
        return line
    }

    func finish() {
        guard enabled else { return }
        Self.clear()
    }
}

enum Clock {
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return seconds(t)
    }

    static func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
}
