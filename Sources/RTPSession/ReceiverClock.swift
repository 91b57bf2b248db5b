import RTP

/// Where the receiver reads the time: the wall clock (comparable with the sender's RTCP sender reports on one
/// host), or a test's clock that moves only when told.
public protocol ReceiverClock: AnyObject {
    /// Seconds, on a clock shared with the sender where its SRs are to be compared.
    func now() -> Double
}

/// CLOCK_REALTIME, as the sender stamps its SRs.
public final class SystemReceiverClock: ReceiverClock {
    public init() {}
    public func now() -> Double { WallClock.now() }
}
