#if canImport(Glibc)
import Glibc
#endif

/// Writing to standard output and error without Foundation's buffering surprises.
enum StandardStreams {
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    static func out(_ text: String) { write(text, to: STDOUT_FILENO) }
    static func error(_ text: String) { write(text, to: STDERR_FILENO) }
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// A progress line on standard error, redrawn in place when it is a terminal; silent otherwise or with --quiet.
final class ProgressLine {
    private let enabled: Bool
    private let label: String
    private var lastDraw: timespec = timespec()
    private let start: Double

    init(label: String, quiet: Bool) {
        self.label = label
        self.enabled = !quiet && StandardStreams.errorIsTerminal
        self.start = Clock.now()
    }

    /// `fraction` of the input done (nil when unknown, e.g. a pipe).
    func update(frames: Int, fraction: Double?) {
        guard enabled else { return }
        let now = Clock.now()
        guard now - Clock.seconds(lastDraw) > 0.2 else { return }
        clock_gettime(CLOCK_MONOTONIC, &lastDraw)
        let elapsed = now - start
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        var line = "\r\(label): \(frames) frames, \(String(format1: fps)) fps"
        if let fraction, fraction > 0.01 {
            let eta = elapsed * (1 - fraction) / fraction
            line += ", \(Int(fraction * 100))%, ETA \(Int(eta.rounded())) s"
        }
        StandardStreams.error(line + "\u{1B}[K")
    }

    func finish() {
        guard enabled else { return }
        StandardStreams.error("\r\u{1B}[K")
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

extension String {
    /// A number with one decimal.
    init(format1 value: Double) {
        guard value.isFinite else { self = "\(value)"; return }
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// A number with two decimals.
    init(format2 value: Double) {
        guard value.isFinite else { self = value > 0 ? "inf" : "\(value)"; return }
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        self = "\(sign)\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
    }
}
