/// vtk's exit codes, documented in `vtk --help`.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    /// A quality threshold (--min-psnr, --min-ssim) was not met.
    case thresholdNotMet = 1
    /// Bad command line: unknown flag, missing or conflicting values.
    case usage = 2
    /// Bad input: missing, unreadable or malformed file or stream.
    case input = 3
    /// The VA device could not be opened or refused the work.
    case device = 4
    /// The output could not be written.
    case output = 5
    /// A bug in vtk.
    case internalError = 6
    /// SIGINT or SIGTERM: the output was closed on a whole frame and the summary printed.
    case interrupted = 130

    public var meaning: String {
        switch self {
        case .success: return "success"
        case .thresholdNotMet: return "a quality threshold (--min-psnr, --min-ssim) was not met, or a suite test failed or regressed"
        case .usage: return "usage error: unknown flag, missing or conflicting values"
        case .input: return "input error: missing, unreadable or malformed input (what was decoded before is kept)"
        case .device: return "VA device error: no device, or the driver refused the work"
        case .output: return "output error: the output could not be written"
        case .internalError: return "internal error"
        case .interrupted: return "interrupted (SIGINT, SIGTERM): output closed on a whole frame, summary printed; a second Ctrl-C quits at once"
        }
    }
}

/// An error that ends a command with a message and an exit code.
public struct CommandFailure: Error, CustomStringConvertible {
    public let code: ExitCode
    public let message: String
    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
