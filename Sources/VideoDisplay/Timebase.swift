import VTKMedia

/// A media timeline driven by a host clock (CMTimebase): the media time at an anchor host time, and a
/// rate. `time(atHost:)` is `anchorTime + rate * (host - anchorHost)`; paused, time stands still.
/// Every change re-anchors at the clock's present, so time never jumps except by ``seek(to:)``.
public final class Timebase: Sendable {
    private struct State {
        var anchorHost: Double
        var anchorTime: Double
        var rate: Double
        var paused: Bool
    }
    public let clock: any HostClock
    private let state: Locked<State>

    /// A timebase at `time`, paused until ``start(atHost:)`` or ``resume()``.
    public init(clock: any HostClock, time: Double = 0, rate: Double = 1) {
        self.clock = clock
        state = Locked(State(anchorHost: clock.now(), anchorTime: time, rate: rate, paused: true))
    }

    /// The media time now.
    public var time: Double { time(atHost: clock.now()) }

    public func time(atHost host: Double) -> Double {
        state.withLock { s in s.paused ? s.anchorTime : s.anchorTime + s.rate * (host - s.anchorHost) }
    }

    /// The host time at which the timeline reaches `mediaTime`, or nil when it never will from now
    /// (paused, rate 0); a time already passed gives a host time in the past.
    public func hostTime(for mediaTime: Double) -> Double? {
        state.withLock { s in
            guard !s.paused, s.rate > 0 else { return nil }
            return s.anchorHost + (mediaTime - s.anchorTime) / s.rate
        }
    }

    public var rate: Double {
        get { state.withLock { $0.rate } }
        set { reanchor { $0.rate = max(0, newValue) } }
    }

    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Runs from the present time: the timeline is at its current time at host time `host` (CMTimebaseSetAnchorTime),
    /// which may lie in the future (a push source's latency).
    public func start(atHost host: Double, time: Double? = nil) {
        state.withLock { s in
            s.anchorTime = time ?? s.anchorTime
            s.anchorHost = host
            s.paused = false
        }
    }

    public func pause() { reanchor { $0.paused = true } }
    public func resume() { reanchor { $0.paused = false } }

    /// Jumps to `mediaTime`, keeping rate and pause state.
    public func seek(to mediaTime: Double) {
        let now = clock.now()
        state.withLock { s in
            s.anchorTime = mediaTime
            s.anchorHost = now
        }
    }

    private func reanchor(_ change: (inout State) -> Void) {
        let now = clock.now()
        state.withLock { s in
            s.anchorTime = s.paused ? s.anchorTime : s.anchorTime + s.rate * (now - s.anchorHost)
            s.anchorHost = now
            change(&s)
        }
    }
}
