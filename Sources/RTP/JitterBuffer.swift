/// Holds RTP packets for up to `latency` seconds and releases them in sequence-number order
/// (RFC 3550 A.1 extends the 16-bit numbers); a number not received by the time a later packet has
/// waited out the latency is declared lost. Packets arriving after their number was passed are late.
public struct JitterBuffer: Sendable {
    public struct Released: Sendable {
        public var packet: RTPPacket
        /// Packets declared lost just before this one (a gap in the sequence numbers).
        public var lostBefore: Int
        public var arrival: Double
    }

    public let latency: Double
    /// Beyond this many held packets the oldest is released whatever its wait (bounds memory).
    public let capacity: Int
    private var held: [Int64: (packet: RTPPacket, arrival: Double)] = [:]
    private var highest: Int64?
    private var nextExpected: Int64?
    public private(set) var received = 0
    public private(set) var lost = 0
    public private(set) var late = 0
    public private(set) var reordered = 0
    public private(set) var duplicates = 0

    public init(latency: Double, capacity: Int = 4096) {
        self.latency = max(0, latency)
        self.capacity = max(1, capacity)
    }

    /// The extended sequence number of `sequence`: the one nearest the highest seen so far.
    public func extend(_ sequence: UInt16) -> Int64 {
        guard let highest else { return Int64(sequence) + 65536 }  // room below for packets reordered before the first
        let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest)))
        return highest + delta
    }

    /// The highest extended sequence number received (for receiver reports).
    public var highestSequence: Int64? { highest }

    public mutating func insert(_ packet: RTPPacket, arrival: Double) {
        let number = extend(packet.sequenceNumber)
        if let next = nextExpected, number < next { late += 1; return }
        if held[number] != nil { duplicates += 1; return }
        if let top = highest, number < top { reordered += 1 }
        highest = max(highest ?? number, number)
        held[number] = (packet, arrival)
        received += 1
    }

    /// Packets ready at `now`, in order.
    public mutating func pop(now: Double) -> [Released] {
        var out: [Released] = []
        while let first = held.keys.min() {
            guard let entry = held[first] else { break }
            let inOrder = nextExpected == first
            let waited = now - entry.arrival >= latency
            guard inOrder || waited || held.count > capacity else { break }
            let gap = nextExpected.map { Int(first - $0) } ?? 0
            lost += gap
            held[first] = nil
            nextExpected = first + 1
            out.append(Released(packet: entry.packet, lostBefore: gap, arrival: entry.arrival))
        }
        return out
    }

    /// Every held packet, in order (end of stream).
    public mutating func flush() -> [Released] { pop(now: .infinity) }

    /// When the oldest held packet will have waited out the latency (nil when empty or nothing waits).
    public var nextDeadline: Double? {
        guard let first = held.keys.min(), let entry = held[first], nextExpected != first else { return nil }
        return entry.arrival + latency
    }
}
