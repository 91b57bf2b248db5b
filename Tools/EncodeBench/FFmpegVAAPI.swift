import Foundation
import VTKTestSupport

/// FFmpeg's h264_vaapi through vtksoft on a private Xvfb display, reading the same NV12 frames; spawned
/// and reaped with waitpid so that the timing is the process's own.
enum FFmpegVAAPI {
    /// `-rc_mode CQP -qp N` or `-rc_mode CBR -b:v B`, High profile, no B-frames, an IDR every `gop` frames.
    static func arguments(input: URL, width: Int, height: Int, rate: Int, qp: Int?, bitRate: Int?, gop: Int, output: String) -> [String] {
        let control = qp.map { ["-rc_mode", "CQP", "-qp", "\($0)"] } ?? ["-rc_mode", "CBR", "-b:v", "\(bitRate!)", "-maxrate", "\(bitRate!)"]
        return ["-nostdin", "-v", "error", "-y", "-threads", "1", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-filter_hw_device", "va",
                "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(width)x\(height)", "-r", "\(rate)", "-i", input.path,
                "-vf", "hwupload", "-c:v", "h264_vaapi", "-profile:v", "high", "-bf", "0", "-g", "\(gop)"] + control
            + ["-f", "h264", output]
    }

    static func run(_ arguments: [String]) {
        guard let path = ProcessRunner.which("ffmpeg") else { fail("ffmpeg not found") }
        var environment = ProcessInfo.processInfo.environment
        environment.merge(VTKSoftDriverLocation.environment(display: Xvfb.shared?.display ?? ":0")) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, nil, nil, argv, envp) == 0 else { fail("cannot start ffmpeg") }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { fail("ffmpeg \(arguments.joined(separator: " ")) failed (status \(status))") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("encode-bench: \(message)\n".utf8))
    exit(1)
}
