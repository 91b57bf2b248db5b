import Foundation
@testable import ProcessTools
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

/// ChildProcess (posix_spawn) keeps what Foundation's Process gave the children vtk starts.
@Suite("ChildProcess")
struct ChildProcessTests {
    @Test("The child inherits no descriptor of this process beyond the standard three")
    func noInheritedDescriptors() throws {
        // Descriptor 100, open here without close-on-exec, must be closed in the child.
        let fd = open("/dev/null", O_RDONLY)
        #expect(fd >= 0)
        #expect(dup2(fd, 100) == 100)
        defer {
            close(100)
            close(fd)
        }
        let result = try TimedProcess.run("sh", ["-c", "if [ -e /proc/$$/fd/100 ]; then echo open; else echo closed; fi"], timeout: 60)
        #expect(result.stdoutText == "closed\n")
    }

    @Test("The child leads a process group of its own, reads /dev/null as input, and ends with its exit status")
    func processGroupAndInput() throws {
        let result = try TimedProcess.run("sh", ["-c", "read -r pid comm state ppid pgrp rest < /proc/$$/stat; [ \"$pid\" = \"$pgrp\" ] && echo leader; cat; exit 7"],
                                          timeout: 60)
        #expect(result.stdoutText == "leader\n")
        #expect(result.status == 7 && !result.timedOut)
    }

    @Test("A child ended by a signal reports the signal's number, as Process.terminationStatus did")
    func signalled() throws {
        let result = try TimedProcess.run("sh", ["-c", "kill -KILL $$"], timeout: 60)
        #expect(result.status == SIGKILL)
    }

    @Test("An added variable joins the environment; the rest is inherited")
    func environment() throws {
        let result = try TimedProcess.run("sh", ["-c", "printf '%s %s' \"$VTK_CHILD_TEST\" \"$PATH\""], environment: ["VTK_CHILD_TEST": "x y"], timeout: 60)
        #expect(result.stdoutText == "x y \(ProcessInfo.processInfo.environment["PATH"] ?? "")")
    }

    @Test("a temporary file that cannot be made names the directory and the reason, not a failed spawn")
    func temporaryFileFailure() throws {
        let directory = "/nonexistent/vtk-\(UUID().uuidString)"
        #expect {
            _ = try TemporaryFile(prefix: "vtk-test", directory: directory)
        } throws: { error in
            "\(error)" == "cannot make a temporary file in \(directory): No such file or directory"
        }
        let file = try TemporaryFile(prefix: "vtk-test", directory: "/tmp")
        #expect(file.contents().isEmpty)
    }
}
