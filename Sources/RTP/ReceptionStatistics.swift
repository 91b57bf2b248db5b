/// What a receiver reports about one source (RFC 3550 6.4.1, A.3 loss, A.8 jitter).
public struct ReceptionStatistics: Sendable {
    public let clockRate: Double
    private var baseSequence: Int64?
    private var highestSequence: Int64 = 0
    public private(set) var received = 0
    /// Interarrival jitter in timestamp units.
    public private(set) var jitter: Double = 0
    private var lastTransit: Double?
    private var expectedAtLastReport: Int64 = 0
    private var receivedAtLastReport = 0
    /// Middle 32 bits of the last SR's NTP time, and when it arrived (seconds).
    private var lastSenderReport: (middle: UInt32, arrival: Double)?

    public init(clockRate: Int) { self.clockRate = Double(clockRate) }

    /// A packet arrived at `arrival` (seconds) with extended sequence number `sequence`.
    public mutating func record(sequence: Int64, timestamp: UInt32, arrival: Double) {
        if baseSequence == nil { baseSequence = sequence; highestSequence = sequence }
        highestSequence = max(highestSequence, sequence)
        received += 1
        // A.8: D(i-1,i) = (Rj - Ri) - (Sj - Si), in timestamp units; J += (|D| - J) / 16.
        let transit = arrival * clockRate - Double(timestamp)
        if let last = lastTransit {
            let d = abs(transit - last)
            if d < clockRate * 60 { jitter += (d - jitter) / 16 }  // a jump of a minute is a new timeline, not jitter
        }
        lastTransit = transit
    }

    public mutating func recordSenderReport(ntpTime: UInt64, arrival: Double) {
        lastSenderReport = (NTPTime.middle(ntpTime), arrival)
    }

    /// A.3: expected = highest - base + 1; lost = expected - received (clamped to 24 bits).
    public var cumulativeLost: Int {
        guard let base = baseSequence else { return 0 }
        return Int(highestSequence - base + 1) - received
    }

    /// The report block for `ssrc`, and the start of the next reporting interval.
    public mutating func reportBlock(ssrc: UInt32, now: Double) -> ReportBlock {
        let expected = baseSequence.map { highestSequence - $0 + 1 } ?? 0
        let expectedInterval = expected - expectedAtLastReport
        let lostInterval = expectedInterval - Int64(received - receivedAtLastReport)
        expectedAtLastReport = expected
        receivedAtLastReport = received
        let fraction = expectedInterval > 0 && lostInterval > 0 ? UInt8(min(255, (lostInterval << 8) / expectedInterval)) : 0
        let lost = Int32(max(-0x80_0000, min(0x7F_FFFF, cumulativeLost)))
        let delay = lastSenderReport.map { UInt32(max(0, min(Double(UInt32.max), (now - $0.arrival) * 65536))) } ?? 0
        return ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost,
                           extendedHighestSequence: UInt32(truncatingIfNeeded: highestSequence), jitter: UInt32(min(jitter, Double(UInt32.max))),
                           lastSenderReport: lastSenderReport?.middle ?? 0, delaySinceLastSenderReport: delay)
    }
}
