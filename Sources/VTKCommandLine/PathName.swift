#if canImport(Glibc)
import Glibc
#endif

/// File paths as text, spelt as URL(fileURLWithPath:).path spelt them: the names `vtk suite` finds streams
/// by and prints.
enum PathName {
    /// `path` against the working directory when relative (its "." and ".." then resolved, as a relative
    /// URL's were), without a trailing "/".
    /// When the working directory cannot be had (removed, or longer than PATH_MAX), a relative path stays
    /// relative: it names the same file to every later call.
    static func absolute(_ path: String) -> String {
        if !path.hasPrefix("/"), let directory = workingDirectory, directory.hasPrefix("/") {
            return standardized(directory + "/" + path)
        }
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// ``absolute(_:)`` with every ".", ".." and empty component removed (standardizedFileURL).
    static func standardized(_ path: String) -> String {
        let full = absolute(path)
        guard full.hasPrefix("/") else { return full }  // no working directory: left as given
        var parts: [Substring] = []
        for component in full.split(separator: "/") where component != "." {
            if component == ".." { _ = parts.popLast() } else { parts.append(component) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The last component ("/" for the root).
    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? (path.hasPrefix("/") ? "/" : path)
    }

    /// All but the last component ("/" for a file in the root).
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        var head = path[..<slash]
        while head.hasSuffix("/") { head = head.dropLast() }
        return head.isEmpty ? "/" : String(head)
    }

    static func appending(_ path: String, _ component: String) -> String {
        path.hasSuffix("/") ? path + component : path + "/" + component
    }

    /// The working directory, or nil when getcwd fails.
    static var workingDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
