import Foundation

/// Whether this test process runs under a sanitizer, and how a third-party VA client (ffmpeg, vainfo,
/// gst-launch-1.0) then loads the instrumented vtksoft: with the toolchain's shared sanitizer runtime
/// preloaded, since the client itself carries none for vtksoft's `__asan_*`/`__tsan_*` calls to bind to.
public enum Sanitizer {
    /// $VTK_SANITIZER (set by `make sanitize`), or the sanitizer runtime's own symbols in the process.
    public static let active: String? = {
        if let name = ProcessInfo.processInfo.environment["VTK_SANITIZER"], !name.isEmpty { return name }
        let process = dlopen(nil, RTLD_NOW)
        if dlsym(process, "__asan_init") != nil { return "address" }
        if dlsym(process, "__tsan_init") != nil { return "thread" }
        return nil
    }()

    /// The programs that load vtksoft as their VA driver, when vtk (not a test) starts them: `vtk suite`'s
    /// ffmpeg-vaapi and gst-vaapi decoders, `vtk-bench`. ffprobe opens no VA display.
    static let vaClients = ["ffmpeg", "vainfo", "gst-launch-1.0", "gst-inspect-1.0"]

    /// What a third-party VA client's environment adds: nothing without a sanitizer; under one, LD_PRELOAD
    /// of the runtime. ASan's leak check is off in the client (its own leaks are not vtksoft's, whose VA
    /// objects VTKSOFT_LEAK_REPORT counts). Fails when the toolchain's runtime cannot be found.
    public static let clientEnvironment: Result<[String: String], RuntimeMissing> = {
        guard let active else { return .success([:]) }
        let preload: [URL]
        do throws(RuntimeMissing) { preload = try runtimeLibraries(for: active) } catch { return .failure(error) }
        var environment = ["LD_PRELOAD": preload.map(\.path).joined(separator: " ")]
        if active == "address" {
            let inherited = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0.isEmpty ? [] : [$0] } ?? []
            environment["ASAN_OPTIONS"] = (inherited + ["detect_leaks=0"]).joined(separator: ":")
        }
        return .success(environment)
    }()

    /// Why no third-party VA client can load vtksoft here, or nil when one can.
    public static var clientUnavailableReason: String? {
        if case .failure(let missing) = clientEnvironment { return missing.description }
        return nil
    }

    /// Environment for a vtk process that starts VA clients itself: PATH begins with wrappers that start
    /// each of ``vaClients`` with ``clientEnvironment``. Empty without a sanitizer.
    public static var vtkEnvironment: [String: String] {
        guard let directory = clientWrappers else { return [:] }
        return ["PATH": directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }

    /// A folder of shell wrappers, one per VA client on PATH, that exec the client with ``clientEnvironment``.
    static let clientWrappers: URL? = {
        guard active != nil, case .success(let environment) = clientEnvironment else { return nil }
        let directory = TestPaths.scratch.appendingPathComponent("sanitized-va-clients")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let exports = environment.sorted { $0.key < $1.key }.map { "export \($0.key)=\(shellQuoted($0.value))" }
        for name in vaClients {
            guard let real = ProcessRunner.which(name) else { continue }
            let wrapper = directory.appendingPathComponent(name)
            let script = (["#!/bin/sh"] + exports + ["exec \(shellQuoted(real)) \"$@\""]).joined(separator: "\n") + "\n"
            guard FileManager.default.createFile(atPath: wrapper.path, contents: Data(script.utf8),
                                                 attributes: [.posixPermissions: 0o755]) else { return nil }
        }
        return directory
    }()

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The shared runtime the toolchain that built this process ships for `sanitizer`, with what it needs
    /// loaded beside it: TSan's libdispatch interceptors call the Blocks runtime (`_Block_copy`) and
    /// libdispatch itself (`_dispatch_data_destructor_munmap`), neither of which a C client links.
    static func runtimeLibraries(for sanitizer: String) throws(RuntimeMissing) -> [URL] {
        let name: String
        var companions: [String] = []
        switch sanitizer {
        case "address": name = "asan"
        case "thread": name = "tsan"; companions = ["libBlocksRuntime.so", "libdispatch.so"]
        default: throw RuntimeMissing(sanitizer: sanitizer, looked: [])
        }
        #if arch(x86_64)
        let architecture = "x86_64"
        #else
        let architecture = "aarch64"
        #endif
        let file = "libclang_rt.\(name)-\(architecture).so"
        var looked: [String] = []
        for swiftLibrary in swiftRuntimeDirectories {
            let runtime = swiftLibrary.deletingLastPathComponent().appendingPathComponent("clang/lib/linux/\(file)")
            looked.append(runtime.path)
            let libraries = [runtime] + companions.map { swiftLibrary.appendingPathComponent($0) }
            if libraries.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) { return libraries }
        }
        throw RuntimeMissing(sanitizer: sanitizer, looked: looked)
    }

    /// The toolchain's lib/swift/linux: where this process's libswiftCore.so was loaded from, else beside
    /// the `swift` on PATH (as the Makefile finds llvm-symbolizer).
    static var swiftRuntimeDirectories: [URL] {
        var directories: [URL] = []
        if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
           let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
           let start = line.firstIndex(of: "/") {
            directories.append(URL(fileURLWithPath: String(line[start...])).deletingLastPathComponent())
        }
        if let swift = ProcessRunner.which("swift") {
            let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
            directories.append(real.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/swift/linux"))
        }
        return directories
    }

    /// The runtime was not found: third-party VA client tests skip, saying where it was looked for.
    public struct RuntimeMissing: Error, CustomStringConvertible {
        public let sanitizer: String
        public let looked: [String]
        public var description: String {
            "built with the \(sanitizer) sanitizer, and its shared runtime was not found (looked at: "
                + (looked.isEmpty ? "none known for this sanitizer" : looked.joined(separator: ", "))
                + "): a third-party VA client cannot load the instrumented vtksoft without it preloaded: skipping the third-party VA client checks"
        }
    }
}
