#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion or to a time limit, its output collected in temporary files (a chatty
/// tool cannot block on a full pipe).
public enum TimedProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: [UInt8]
        public let stderr: [UInt8]
        /// The limit ran out and the process was killed.
        public let timedOut: Bool
        public let seconds: Double
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    public enum Failure: Error, CustomStringConvertible {
        case notFound(String)
        case cannotStart(String, String)
        public var description: String {
            switch self {
            case .notFound(let name): return "\(name): not found on PATH"
            case .cannotStart(let name, let why): return "\(name): cannot start: \(why)"
            }
        }
    }

    /// Runs `executable` (a path, or a name on PATH) with `environment` added to this process's.
    /// With `timeout`, the process gets SIGTERM when it runs out, then SIGKILL 2 s later.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Double? = nil) throws(Failure) -> Result {
        guard let path = ProgramPath.which(executable) else { throw .notFound(executable) }
        let started = monotonicSeconds()
        let out: TemporaryFile, err: TemporaryFile, child: ChildProcess
        do {
            out = try TemporaryFile(prefix: "vtk-process")
            err = try TemporaryFile(prefix: "vtk-process")
        } catch {
            throw .cannotStart(executable, error.description)
        }
        do {
            child = try ChildProcess(path, arguments, environment: environment,
                                     standardOutput: .descriptor(out.descriptor), standardError: .descriptor(err.descriptor))
        } catch {
            throw .cannotStart(executable, error.description)
        }
        var timedOut = false
        if let timeout, !child.wait(timeout: timeout) {
            timedOut = true
            child.send(SIGTERM)
            if !child.wait(timeout: 2) { child.send(SIGKILL) }
        }
        let status = child.terminationStatus
        return Result(status: status, stdout: out.contents(), stderr: err.contents(), timedOut: timedOut,
                      seconds: monotonicSeconds() - started)
    }

    static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
