import Foundation
import Testing
@testable import VTKMedia

@Suite("UsableProcessors: the CPU affinity of the process")
struct UsableProcessorsTests {
    @Test("The Cpus_allowed mask of /proc/PID/status, in groups of 32 bits")
    func mask() {
        func count(_ text: String) -> Int? { UsableProcessors.allowed(inStatus: Array(text.utf8)) }
        #expect(count("Name:\tvtk\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n") == 8)
        #expect(count("Cpus_allowed:\t00000000,00000002\n") == 1)
        #expect(count("Cpus_allowed:\t0000000f,00000003\n") == 6)
        #expect(count("Name:\tvtk\n") == nil)
    }

    @Test("This process: at least one, at most the online processors; a child under taskset -c 0 sees one")
    func thisProcess() throws {
        #expect(UsableProcessors.count >= 1 && UsableProcessors.count <= ProcessInfo.processInfo.processorCount)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else {
            print("UsableProcessorsTests: skipping the taskset case: no /usr/bin/taskset")
            return
        }
        // The child's own status file, read through taskset: the mask the kernel applies.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        child.arguments = ["-c", "0", "cat", "/proc/self/status"]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        #expect(UsableProcessors.allowed(inStatus: Array(data)) == 1)
    }
}
