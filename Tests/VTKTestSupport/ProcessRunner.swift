import Foundation
import ProcessTools

/// The private X server, shared with `vtk suite` (ProcessTools).
public typealias Xvfb = ProcessTools.Xvfb

/// Runs external tools (ffmpeg, ffprobe, the built vtk) from tests.
public enum ProcessRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// The full path of a program on PATH, or nil.
    public static func which(_ name: String) -> String? { ProgramPath.which(name) }

    public static var hasFFmpeg: Bool { which("ffmpeg") != nil && which("ffprobe") != nil }

    /// Runs `executable` (a path, or a name looked up on PATH) to completion. Output goes to temporary
    /// files, so a chatty tool cannot block on a full pipe.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : (which(executable) ?? executable))
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let id = UUID().uuidString
        let outURL = TestPaths.scratch.appendingPathComponent("\(id).out")
        let errURL = TestPaths.scratch.appendingPathComponent("\(id).err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) } else { process.standardInput = FileHandle.nullDevice }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL))
    }
}
