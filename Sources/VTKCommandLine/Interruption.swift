import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, as FFmpeg treats them: the first asks the running command to stop where it is (its
/// loops poll ``requested``), close its output on a whole frame (an MP4 gets its `moov`), print its summary
/// and exit with 130; the second ends the process at once. Commands that do not poll are ended at once.
public enum Interruption {
    private static let signals = Atomic<Int>(0)
    private static let lastSignal = Atomic<Int32>(0)
    /// Set while a command that polls ``requested`` runs; otherwise a signal ends the process at once.
    private static let polled = Atomic<Bool>(false)

    /// Installs the handlers (the `vtk` executable does, once, before running a command).
    public static func install() {
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in Interruption.received(number) }
            sigemptyset(&action.sa_mask)
            // Blocking reads restart: the loops see the request after the read in progress returns.
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A parent may start vtk with them blocked (the mask is inherited): they would stay pending for ever.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Called in the signal handler: only atomics and `_exit`, which are async-signal-safe.
    private static func received(_ number: Int32) {
        lastSignal.store(number, ordering: .relaxed)
        let count = signals.wrappingAdd(1, ordering: .relaxed).newValue
        if count > 1 || !polled.load(ordering: .relaxed) { _exit(ExitCode.interrupted.rawValue) }
        // write(2) of a static string: no allocation in the handler.
        let notice: StaticString = "vtk: interrupted: finishing the output (interrupt again to quit at once)\n"
        _ = write(2, notice.utf8Start, notice.utf8CodeUnitCount)
    }

    /// True once SIGINT or SIGTERM has arrived: the command should stop reading input and finish its output.
    public static var requested: Bool { signals.load(ordering: .relaxed) > 0 }

    /// "SIGINT" or "SIGTERM", once one arrived.
    static var signalName: String? {
        guard requested else { return nil }
        return lastSignal.load(ordering: .relaxed) == SIGTERM ? "SIGTERM" : "SIGINT"
    }

    /// Runs `body` with signals turned into a request the command polls.
    static func polling<T>(_ body: () throws(CommandFailure) -> T) throws(CommandFailure) -> T {
        polled.store(true, ordering: .relaxed)
        defer { polled.store(false, ordering: .relaxed) }
        return try body()
    }

    /// The closing line of an interrupted command, on standard error: "vtk encode: interrupted (SIGINT) after 75 frames; ...".
    static func report(_ command: String, _ what: String) -> ExitCode {
        StandardStreams.error("vtk \(command): interrupted (\(signalName ?? "signal")); \(what)\n")
        return .interrupted
    }
}
