import RTP

/// How a reception runs and when it ends.
public struct ReceiverSettings: Sendable {
    /// Stop after this many decoded (or, when recording, recorded) frames.
    public var frameLimit: Int?
    /// Stop this many seconds after the first packet.
    public var duration: Double?
    /// Jitter buffer: seconds a packet waits for a missing earlier one.
    public var latency: Double = 0.05
    /// Give up after this many seconds without a packet.
    public var timeout: Double = 10
    /// Loss and reordering applied to the packets received (tests).
    public var simulator = LossSimulator(lossPercent: 0)
    /// Asked between packets (at least every 0.1 s when given): true ends the reception as an RTCP BYE would.
    public var shouldStop: (@Sendable () -> Bool)?

    public init() {}
}
