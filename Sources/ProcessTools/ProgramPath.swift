#if canImport(Glibc)
import Glibc
#endif

/// Finding programs the way a shell does.
public enum ProgramPath {
    /// The full path of a program on PATH, or nil.
    public static func which(_ name: String) -> String? {
        if name.contains("/") { return isExecutableFile(name) ? name : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// This process's executable (/proc/self/exe), for running vtk's own subcommands as child processes.
    public static var currentExecutable: String? {
        let capacity = Int(PATH_MAX)
        var buffer = [CChar](repeating: 0, count: capacity)
        let count = readlink("/proc/self/exe", &buffer, capacity)
        return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    /// A file (not a directory) this process may execute.
    static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFDIR && access(path, X_OK) == 0
    }
}
