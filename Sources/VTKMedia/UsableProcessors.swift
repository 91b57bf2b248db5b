#if canImport(Glibc)
import Glibc
#endif

/// How many processors this process may run on: its CPU affinity (`taskset`, a cgroup's cpuset) as it was
/// at the first use, never more than are online; not the machine's count. Work split between threads only
/// pays with at least two. (A CPU-time quota, cgroup v2's cpu.max, is not read.)
public enum UsableProcessors {
    /// The bits of `Cpus_allowed` in /proc/self/status (Swift's Glibc has no sched_getaffinity); the
    /// online processors when it cannot be read.
    public static let count: Int = {
        let online = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return online }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            text += chunk[0..<n]
        }
        // The mask may name possible processors that are offline: never more than are online.
        return min(allowed(inStatus: text) ?? online, online)
    }()

    /// The processors the `Cpus_allowed:` line of a /proc/PID/status text allows (a hexadecimal mask in
    /// comma-separated groups of 32 bits); nil without one.
    static func allowed(inStatus text: [UInt8]) -> Int? {
        let key = Array("Cpus_allowed:".utf8)
        guard let start = text.indices.first(where: { text[$0...].starts(with: key) }) else { return nil }
        var count = 0, digits = 0
        for byte in text[(start + key.count)...] {
            if byte == UInt8(ascii: "\n") { break }
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            default: continue
            }
            count += value.nonzeroBitCount
            digits += 1
        }
        return digits > 0 ? max(1, count) : nil
    }
}
