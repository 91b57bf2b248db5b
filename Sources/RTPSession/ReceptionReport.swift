/// What a reception counted: packets, losses, frames, RTCP, PLIs and how keyframes answered them, recovery
/// times and latencies. The command prints it (`vtk receive --stats`).
public struct ReceptionReport: Sendable {
    public var packets = 0
    public var bytes = 0
    public var lost = 0
    public var late = 0
    public var reordered = 0
    public var duplicates = 0
    public var simulatedDrops = 0
    public var otherSources = 0
    public var lossEvents = 0
    public var frames = 0
    public var framesDecoded = 0
    /// Pictures recorded without decoding (`--copy`).
    public var framesRecorded = 0
    public var framesFlagged = 0
    public var flaggedIndices: [Int] = []
    public var rtcpPackets = 0
    public var reportsSent = 0
    public var pliSent = 0
    /// PLIs that no intact keyframe answered before the end: with framesFromPLIToIDR (one entry per PLI
    /// answered), they account for every PLI sent.
    public var pliUnanswered = 0
    public var framesFromPLIToIDR: [Int] = []
    public var secondsFromPLIToIDR: [Double] = []
    public var intervalsFromLossToIDR: [Double] = []
    public var recoverySeconds: [Double] = []
    public var latenciesFromArrival: [Double] = []
    public var latenciesFromSenderReports: [Double] = []
    /// The sender's SRs map RTP time to capture time (vtk send's do, by its CNAME).
    public var senderReportsGiveCaptureTime = false
    public var jitterMilliseconds = 0.0
    public var problems: [String] = []
    public var problemCount = 0
    /// Where each frame's NAL units start in the decoder's byte count, and its first packet (for messages).
    public var frameOrigins: [(offset: Int, sequence: UInt16, timestamp: UInt32)] = []

    public init() {}

    /// Capture-to-decode through the sender's SRs when they were received and never put capture after
    /// decoding (clocks that disagree); else first packet's arrival to decode, this host's clock only.
    public var latencyFromSenderReports: Bool {
        senderReportsGiveCaptureTime && !latenciesFromSenderReports.isEmpty && (latenciesFromSenderReports.min() ?? 0) >= 0
    }
    public var latencies: [Double] { latencyFromSenderReports ? latenciesFromSenderReports : latenciesFromArrival }
    public var latencyClocks: String {
        if latencyFromSenderReports { return "capture (sender's wall clock, by its RTCP SRs) to decoded (this host's wall clock)" }
        let note = latenciesFromSenderReports.isEmpty ? "no sender report"
            : !senderReportsGiveCaptureTime ? "the sender's SRs do not give capture times (only vtk send's are known to)"
            : "by the sender's SRs some frames were decoded before their capture: the clocks are not comparable"
        return "first packet's arrival to decoded (this host's clock; \(note))"
    }

    /// Linear between the two nearest ranks: the 50th of an even count is the mean of the middle two.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let position = p / 100 * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// Counts a problem; the first 100 are kept.
    public mutating func note(_ problem: String) {
        problemCount += 1
        if problems.count < 100 { problems.append(problem) }
    }
}
