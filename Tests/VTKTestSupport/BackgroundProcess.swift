import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A third-party program left running while a test looks at what it does (a player's window), then stopped.
/// Output goes to temporary files, so a chatty tool cannot block on a full pipe.
public final class BackgroundProcess {
    private let process = Process()
    private let outURL: URL
    private let errURL: URL
    private let out: FileHandle
    private let err: FileHandle

    /// Starts `executable` (a name on PATH or a path) with `environment` added to this process's, and
    /// VTKSOFT_DRIVERS_PATH set to the built vtksoft driver.
    /// `standardInput`: where it reads from (a pipe from another program), else /dev/null.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], standardInput: Any? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : (ProcessRunner.which(executable) ?? executable))
        process.arguments = arguments
        let drivers = VTKSoftDriverLocation.directory.map { ["VTKSOFT_DRIVERS_PATH": $0.path] } ?? [:]
        process.environment = ProcessInfo.processInfo.environment.merging(drivers) { $1 }.merging(environment) { $1 }
        let id = UUID().uuidString
        outURL = TestPaths.scratch.appendingPathComponent("\(id).out")
        errURL = TestPaths.scratch.appendingPathComponent("\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        out = try FileHandle(forWritingTo: outURL)
        err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = standardInput ?? FileHandle.nullDevice
        try process.run()
    }

    public var isRunning: Bool { process.isRunning }
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `number` (SIGINT, SIGTERM) to the program, as Ctrl-C or `kill` would.
    public func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// What it wrote to stdout and stderr so far.
    public var outputText: String { stdout + "\n" + stderr }
    public var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// Polls `condition` (every 20 ms) until it holds or the program ends; gives up after `timeout` seconds,
    /// a bound only a broken run reaches. Returns whether the condition held.
    public func wait(timeout: Double = 120, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            usleep(20_000)
        }
        return false
    }

    /// Waits for the program to end by itself (stopping it after `timeout`, a bound only a hang reaches); its exit status.
    public func finish(timeout: Double = 180) -> Int32 {
        _ = wait(timeout: timeout) { !process.isRunning }
        return stop().status
    }

    /// Stops the program (SIGTERM, then SIGKILL after 5 s) and returns its exit status and output.
    @discardableResult
    public func stop() -> (status: Int32, output: String) {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        return (process.terminationStatus, outputText)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }
}
