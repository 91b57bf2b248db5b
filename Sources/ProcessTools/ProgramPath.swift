import Foundation

/// Finding programs the way a shell does.
public enum ProgramPath {
    /// The full path of a program on PATH, or nil.
    public static func which(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// This process's executable (/proc/self/exe), for running vtk's own subcommands as child processes.
    public static var currentExecutable: String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
