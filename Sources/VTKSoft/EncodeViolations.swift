import VTKMedia
import CLibVA
import Glibc

/// Bad encode calls that hardware accepts and codes anyway (with the corrupt output that follows): vtksoft
/// codes them the same way, and counts and logs each one so tests can see them. Each is logged on stderr,
/// put in that picture's capture line (VTKSOFT_CAPTURE), and written at vaTerminate, with the total, to
/// $VTKSOFT_VIOLATION_REPORT (like VTKSOFT_LEAK_REPORT: first line the count, then one line each).
enum EncodeViolations {
    private static let lock = Lock()
    nonisolated(unsafe) private static var recorded: [String] = []

    static func report(_ message: String) {
        lock.withLock { recorded.append(message) }
        let line = "vtksoft: violation: \(message)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }

    static var count: Int { lock.withLock { recorded.count } }

    /// Every encode violation since the driver was loaded (written into the report by ``ViolationTally``).
    static var messages: [String] { lock.withLock { recorded } }
}

/// Encode violations counted since the driver was loaded (every display).
@_cdecl("vtksoft_encode_violation_count")
public func vtksoftEncodeViolationCount() -> Int32 { Int32(EncodeViolations.count) }
