import CLibVA
import Glibc

/// Bad encode calls that hardware accepts and codes anyway (with the corrupt output that follows): vtksoft
/// codes them the same way, and counts and logs each one so tests can see them. Each is logged on stderr,
/// put in that picture's capture line (VTKSOFT_CAPTURE), and written at vaTerminate, with the total, to
/// $VTKSOFT_VIOLATION_REPORT (like VTKSOFT_LEAK_REPORT: first line the count, then one line each).
enum EncodeViolations {
    private static let lock = DriverLock()
    nonisolated(unsafe) private static var messages: [String] = []

    static func report(_ message: String) {
        lock.withLock { messages.append(message) }
        let line = "vtksoft: violation: \(message)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }

    static var count: Int { lock.withLock { messages.count } }

    /// Writes the report file (vaTerminate); the count is since the driver was loaded.
    static func writeReport() {
        guard let path = getenv("VTKSOFT_VIOLATION_REPORT"), let file = fopen(path, "w") else { return }
        let all = lock.withLock { messages }
        fputs("\(all.count)\n", file)
        for message in all { fputs(message + "\n", file) }
        fclose(file)
    }
}

/// Encode violations counted since the driver was loaded (every display).
@_cdecl("vtksoft_encode_violation_count")
public func vtksoftEncodeViolationCount() -> Int32 { Int32(EncodeViolations.count) }
