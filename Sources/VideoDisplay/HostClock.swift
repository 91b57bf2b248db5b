import VTKMedia
#if canImport(Glibc)
import Glibc
#endif

/// The clock a ``Timebase`` is anchored to (CMClock's host time): seconds on a monotonic clock.
/// Injected, so that the display logic runs deterministically in tests on a ``ManualClock``.
public protocol HostClock: Sendable {
    /// Seconds since an arbitrary origin; never goes backwards.
    func now() -> Double
    /// Waits until `now()` reaches `time` (a manual clock jumps there).
    func sleep(until time: Double)
}

extension HostClock {
    public func sleep(for seconds: Double) { sleep(until: now() + seconds) }
}

/// CLOCK_MONOTONIC.
public struct MonotonicClock: HostClock {
    public init() {}

    public func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    public func sleep(until time: Double) {
        while true {
            let left = time - now()
            guard left > 0 else { return }
            var request = timespec(tv_sec: Int(left), tv_nsec: Int((left - Double(Int(left))) * 1e9))
            _ = nanosleep(&request, nil)
        }
    }
}

/// A clock that moves only when told: sleeping jumps to the wake time, as if it had passed.
public final class ManualClock: HostClock {
    private let time: Locked<Double>

    public init(_ start: Double = 0) { time = Locked(start) }

    public func now() -> Double { time.withLock { $0 } }
    public func sleep(until target: Double) { time.withLock { $0 = max($0, target) } }
    public func advance(by seconds: Double) { time.withLock { $0 += max(0, seconds) } }
}
