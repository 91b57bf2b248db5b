import VTKMedia

/// A reception's times: each frame's RTP time from the first frame's, its arrival, the sender's pacing
/// (the smallest step between frames), the sender's clock from its SRs, and when an unrecovered loss was
/// seen. From them: frame numbers by RTP time, latencies and recovery times. RTP times are 90 kHz.
public struct FrameTiming: Sendable {
    public static let clockRate = 90000.0
    public private(set) var firstTimestamp: UInt32?
    private var arrivals: [Int64: Double] = [:]
    private var lastFrameTime: Int64?
    public private(set) var smallestStep: Int64?
    /// Sender's clock: unix seconds at an RTP timestamp, from its last SR (for end-to-end latency).
    public private(set) var senderClock: (unix: Double, rtp: UInt32)?
    private var lossSeenAt: Double?

    public init() {}

    /// A frame came, its first packet at `arrival`: its RTP time from the first frame's.
    public mutating func noteFrame(timestamp: UInt32, arrival: Double) -> Int64 {
        let first = firstTimestamp ?? timestamp
        firstTimestamp = first
        let ticks = Int64(Int32(bitPattern: timestamp &- first))
        arrivals[ticks] = arrival
        if let previous = lastFrameTime, ticks != previous { smallestStep = min(smallestStep ?? .max, abs(ticks - previous)) }
        lastFrameTime = ticks
        return ticks
    }

    /// An SR mapped the sender's wall clock (unix seconds) to an RTP timestamp (RFC 3550 6.4.1).
    public mutating func noteSenderReport(unixSeconds: Double, rtpTimestamp: UInt32) { senderClock = (unixSeconds, rtpTimestamp) }

    /// When the frame at `ticks` was captured, on the sender's clock by its last SR.
    public func captureTime(ticks: Int64) -> Double? {
        guard let clock = senderClock, let first = firstTimestamp else { return nil }
        let rtp = UInt32(truncatingIfNeeded: Int64(first) + ticks)
        return clock.unix + Double(Int32(bitPattern: rtp &- clock.rtp)) / Self.clockRate
    }

    /// Seconds between frames as the sender paces them, once two frames came.
    public var frameStep: MediaTime? { smallestStep.map { MediaTime(value: $0, timescale: Int32(Self.clockRate)) } }

    /// A frame's number by its RTP time over the smallest step (the sender's pacing, which need not be the
    /// VUI's rate), so that frames lost whole leave gaps instead of shifting the rest.
    public func displayIndex(ticks: Int64) -> Int {
        guard let step = smallestStep, step > 0 else { return 0 }
        return Int((Double(ticks) / Double(step)).rounded())
    }

    /// In frame intervals, from a loss seen at `lossSeen` to the capture of the frame at `ticks` (by the
    /// sender's SRs; one host, one clock): nil until the SRs and the pacing are known.
    public func intervalsFromLoss(_ lossSeen: Double, toFrameAt ticks: Int64) -> Double? {
        guard let step = smallestStep, step > 0, let captured = captureTime(ticks: ticks) else { return nil }
        return (captured - lossSeen) / (Double(step) / Self.clockRate)
    }

    /// The latencies of the frame at `ticks` decoded at `now`: from its first packet's arrival, and from its
    /// capture by the sender's SRs; each nil when unknown. The frame's arrival is forgotten.
    public mutating func latencies(ofFrameAt ticks: Int64, decodedAt now: Double) -> (fromArrival: Double?, fromCapture: Double?) {
        defer { arrivals[ticks] = nil }
        guard firstTimestamp != nil else { return (nil, nil) }
        return (arrivals[ticks].map { now - $0 }, captureTime(ticks: ticks).map { now - $0 })
    }

    /// Forgets the arrival of the frame at `ticks` (frames whose latency is not measured).
    public mutating func forget(ticks: Int64) { arrivals[ticks] = nil }

    /// Packets were lost at `time`; the first loss not yet recovered from counts.
    public mutating func noteLoss(at time: Double) { lossSeenAt = lossSeenAt ?? time }

    /// An intact frame was decoded at `now`: seconds since the loss it recovered from, if one was pending.
    public mutating func recovered(at now: Double) -> Double? {
        guard let seen = lossSeenAt else { return nil }
        lossSeenAt = nil
        return now - seen
    }
}
