import Foundation
import ProcessTools
import Testing

@Suite("ProcessTools")
struct ProcessToolsTests {
    @Test("which finds sh on PATH as an executable file, takes a path as it is, and answers nil for no such program")
    func which() throws {
        let sh = try #require(ProgramPath.which("sh"))
        #expect(sh.hasSuffix("/sh") && FileManager.default.isExecutableFile(atPath: sh))
        #expect(ProgramPath.which(sh) == sh)
        #expect(ProgramPath.which("vtk-no-such-program-\(UUID().uuidString)") == nil)
        #expect(ProgramPath.which("/nonexistent/sh") == nil)
    }

    @Test("run returns the exit status and both outputs, with the added environment")
    func run() throws {
        let result = try TimedProcess.run("sh", ["-c", "printf 'out %s' \"$VTK_PROCESS_TEST\"; printf err >&2; exit 3"],
                                          environment: ["VTK_PROCESS_TEST": "value"])
        #expect(result.status == 3)
        #expect(result.stdoutText == "out value")
        #expect(result.stderrText == "err")
        #expect(!result.timedOut)
    }

    @Test("Output larger than a pipe's buffer does not block the child")
    func largeOutput() throws {
        // 1 MiB: a pipe holds 64 KiB; the output goes to a file.
        let result = try TimedProcess.run("sh", ["-c", "head -c 1048576 /dev/zero"])
        #expect(result.status == 0)
        #expect(result.stdout.count == 1_048_576)
    }

    @Test("A process that outlives its limit is killed and reported as timed out")
    func timeout() throws {
        // The child would sleep ten minutes: only the limit can end it.
        let result = try TimedProcess.run("sleep", ["600"], timeout: 0.2)
        #expect(result.timedOut)
        #expect(result.status != 0)
    }

    @Test("A program that is not on PATH is notFound, naming it")
    func notFound() {
        let name = "vtk-no-such-program-\(UUID().uuidString)"
        #expect {
            _ = try TimedProcess.run(name, [])
        } throws: { error in
            guard case TimedProcess.Failure.notFound(let missing) = error else { return false }
            return missing == name
        }
    }
}
