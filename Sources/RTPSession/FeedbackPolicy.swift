/// When a receiver sends RTCP: a receiver report every second (RFC 3550 6.2), and a picture loss indication
/// when a reference picture was lost (RFC 4585 6.3.1), asked again only after a second while no intact
/// keyframe came. It keeps each PLI until a keyframe answers it, for the report. It reads the time from the
/// clock it is given, so it is tested without waiting.
public struct FeedbackPolicy {
    /// A PLI a keyframe answered: frames received and seconds between the PLI and the keyframe, and when the
    /// loss that caused it was seen.
    public struct Answer: Equatable, Sendable {
        public var frames: Int
        public var seconds: Double
        public var lossSeen: Double

        public init(frames: Int, seconds: Double, lossSeen: Double) {
            self.frames = frames
            self.seconds = seconds
            self.lossSeen = lossSeen
        }
    }

    private let clock: ReceiverClock
    /// Seconds between receiver reports, and before a PLI not answered is repeated.
    public let interval: Double
    public private(set) var nextReport: Double
    /// A PLI was sent and no intact keyframe has come since.
    public private(set) var waitingForKeyframe = false
    private var lastPLI = -Double.infinity
    /// PLIs not yet answered: when each was sent, when its loss was seen, and the frames received by then.
    private var pending: [(sent: Double, lossSeen: Double, framesBefore: Int)] = []
    /// When the newest gap not yet answered by a PLI was seen.
    private var lastGapAt: Double?

    public init(clock: ReceiverClock, interval: Double = 1) {
        self.clock = clock
        self.interval = interval
        nextReport = clock.now() + interval
    }

    /// Starts the report schedule now: the first report goes one interval later.
    public mutating func start() { nextReport = clock.now() + interval }

    /// True when a receiver report is due; the next is then due one interval later.
    public mutating func takeReportDue() -> Bool {
        let now = clock.now()
        guard now >= nextReport else { return false }
        nextReport = now + interval
        return true
    }

    /// Packets were found missing now; returns the time, for the loss's recovery.
    @discardableResult
    public mutating func noteGap() -> Double {
        let now = clock.now()
        lastGapAt = now
        return now
    }

    /// A reference picture was lost: true when a PLI is to be sent now (none is waiting, or the last went
    /// more than an interval ago). `framesReceived`: frames received so far, for the report.
    public mutating func shouldRequestKeyframe(framesReceived: Int) -> Bool {
        let now = clock.now()
        guard !waitingForKeyframe || now - lastPLI > interval else { return false }
        waitingForKeyframe = true
        lastPLI = now
        pending.append((now, min(lastGapAt ?? now, now), framesReceived))
        lastGapAt = nil
        return true
    }

    /// The keyframe asked for came damaged: the next loss asks again at once.
    public mutating func keyframeDamaged() { waitingForKeyframe = false }

    /// An intact keyframe came: the PLIs it answers (all those pending, when one was waiting).
    public mutating func keyframeArrived(framesReceived: Int) -> [Answer] {
        guard waitingForKeyframe else { return [] }
        waitingForKeyframe = false
        let now = clock.now()
        defer { pending = [] }
        return pending.map { Answer(frames: framesReceived - $0.framesBefore, seconds: now - $0.sent, lossSeen: $0.lossSeen) }
    }

    /// PLIs no keyframe answered.
    public var unanswered: Int { pending.count }
}
