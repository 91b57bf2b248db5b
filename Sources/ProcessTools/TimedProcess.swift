import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion or to a time limit, its output collected in temporary files (a chatty
/// tool cannot block on a full pipe).
public enum TimedProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-process-\(getpid())-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out"), errURL = base.appendingPathExtension("err")
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let finished = DispatchSemaphore(value: 0)
        let started = Date()
        do {
            FileManager.default.createFile(atPath: outURL.path, contents: nil)
            FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
            defer {
                try? out.close()
                try? err.close()
            }
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { _ in finished.signal() }
            try process.run()
        } catch {
            throw .cannotStart(executable, "\(error)")
        }
        var timedOut = false
        if let timeout {
            if finished.wait(timeout: .now() + timeout) == .timedOut {
                timedOut = true
                process.terminate()
                if finished.wait(timeout: .now() + 2) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    finished.wait()
                }
            }
        } else {
            finished.wait()
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        return Result(status: process.terminationStatus, stdout: (try? Data(contentsOf: outURL)) ?? Data(),
                      stderr: (try? Data(contentsOf: errURL)) ?? Data(), timedOut: timedOut, seconds: seconds)
    }
}
