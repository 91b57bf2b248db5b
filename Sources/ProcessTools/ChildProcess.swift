#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import VTKMedia

/// Why a child process did not start: posix_spawn's error number.
public struct SpawnFailure: Error, Sendable, CustomStringConvertible {
    public let errorNumber: Int32
    public var description: String { String(cString: strerror(errorNumber)) }
}

/// A child process started with posix_spawn(3), the one place ProcessTools crosses that C boundary.
/// As Foundation's Process did: standard input is /dev/null, the child gets a process group of its own
/// (a terminal's Ctrl-C reaches only vtk, which decides what to stop), and it inherits no descriptor
/// beyond the three standard ones. A thread of its own reaps it, so waiting can have a time limit.
public final class ChildProcess: Sendable {
    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        /// /dev/null.
        case discard
        /// An open descriptor of this process (which keeps it; the child gets a copy).
        case descriptor(Int32)
    }

    public let processIdentifier: pid_t
    /// The exit status, or the signal number that ended the child; `notReaped` until then.
    private let status = Atomic<Int32>(ChildProcess.notReaped)
    private static let notReaped = Int32.min
    private let reaped = DispatchSemaphore(value: 0)

    /// Starts `path` (a file name with its directory: no PATH search) with `arguments` (after argv[0], which is
    /// `path`) and this process's environment with `environment` added.
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                standardOutput: Output, standardError: Output) throws(SpawnFailure) {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        try Self.check(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try Self.check(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        try Self.check(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0))
        for (target, output) in [(STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)] {
            switch output {
            case .discard: try Self.check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0))
            case .descriptor(let fd): try Self.check(posix_spawn_file_actions_adddup2(&actions, fd, target))
            }
        }
        // After the copies above: every other descriptor is closed in the child, those another thread opens
        // meanwhile included (glibc 2.34's closefrom action: nothing is listed beforehand). Without it, the
        // descriptors open now are listed and closed one by one.
        if let addCloseFrom = Self.addCloseFrom {
            try Self.check(addCloseFrom(&actions, STDERR_FILENO + 1))
        } else {
            for fd in Self.openDescriptors() where fd > STDERR_FILENO { try Self.check(posix_spawn_file_actions_addclose(&actions, fd)) }
        }
        try Self.check(posix_spawnattr_setpgroup(&attributes, 0))
        try Self.check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)))

        let argv = CStrings([path] + arguments)
        var pid: pid_t = 0
        let result: Int32
        if environment.isEmpty {
            result = withExtendedLifetime(argv) { posix_spawn(&pid, path, &actions, &attributes, argv.pointers, environ) }
        } else {
            let envp = CStrings(Self.environment(adding: environment))
            result = withExtendedLifetime((argv, envp)) { posix_spawn(&pid, path, &actions, &attributes, argv.pointers, envp.pointers) }
        }
        guard result == 0 else { throw SpawnFailure(errorNumber: result) }
        processIdentifier = pid
        let child = pid
        // A thread of its own, blocked in waitpid for the child's whole life (a Dispatch worker would be taken
        // from the pool meanwhile); a Dispatch queue only if no thread can be had.
        let reap: @Sendable () -> Void = { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            // WIFSIGNALED: the signal number; else WEXITSTATUS, as Process.terminationStatus.
            let signal = raw & 0x7F
            status.store(signal != 0 && signal != 0x7F ? signal : (raw >> 8) & 0xFF, ordering: .sequentiallyConsistent)
            reaped.signal()
        }
        if !DetachedThread.start(reap) { DispatchQueue(label: "vtk.child.\(child)").async(execute: reap) }
    }

    /// A posix_spawn set-up call's result: 0, or the error the child would not start for.
    private static func check(_ result: Int32) throws(SpawnFailure) {
        guard result == 0 else { throw SpawnFailure(errorNumber: result) }
    }

    public var isRunning: Bool { status.load(ordering: .sequentiallyConsistent) == Self.notReaped }

    /// Waits for the child to end, at most `timeout` seconds (nil: however long it takes); false if it is still running.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Bool {
        if !isRunning { return true }
        if let timeout {
            guard reaped.wait(timeout: .now() + timeout) == .success else { return false }
        } else {
            reaped.wait()
        }
        reaped.signal()  // for whoever waits next
        return true
    }

    /// The exit status, or the number of the signal that ended the child; waits for it to end.
    public var terminationStatus: Int32 {
        wait()
        return status.load(ordering: .sequentiallyConsistent)
    }

    /// Sends `signal` (SIGTERM, SIGKILL) unless the child has already been reaped (its number may be reused).
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which the Glibc module leaves out (a GNU
    /// extension of <spawn.h>); nil with an older C library.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// This process's open descriptors, from /proc/self/fd.
    static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd != own { found.append(fd) }
        }
        return found
    }


    /// This process's environment as NAME=VALUE, with `added` replacing or joining it.
    static func environment(adding added: [String: String]) -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
            if added[name] == nil { entries.append(text) }
            pointer += 1
        }
        return entries + added.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}

/// NUL-terminated copies of strings and a NULL-terminated list of pointers to them, as argv and envp are;
/// the copies are freed with the object, so it must outlive the call that reads them.
private final class CStrings {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) { pointers = strings.map { strdup($0) } + [nil] }

    deinit { for pointer in pointers { free(pointer) } }
}
