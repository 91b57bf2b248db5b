/// Drops and swaps packets for tests, deterministically: the fate of a packet depends only on the seed and
/// its sequence number counted from the first packet seen, never on time (`--loss P --seed S`, `--reorder P`).
public struct LossSimulator: Sendable {
    public let lossPercent: Double
    public let reorderPercent: Double
    public let seed: UInt64
    private var firstSequence: UInt16?
    private var held: [UInt8]?
    public private(set) var dropped = 0
    public private(set) var swapped = 0
    /// Sequence numbers dropped, in order (what a test compares the receiver's loss count with).
    public private(set) var droppedSequenceNumbers: [UInt16] = []

    public init(lossPercent: Double, reorderPercent: Double = 0, seed: UInt64 = 0) {
        self.lossPercent = max(0, min(100, lossPercent))
        self.reorderPercent = max(0, min(100, reorderPercent))
        self.seed = seed
    }

    public var isActive: Bool { lossPercent > 0 || reorderPercent > 0 }

    /// The datagrams to pass on for `datagram` (numbered `sequence`): none, it, or it and the one held back.
    public mutating func process(_ datagram: [UInt8], sequence: UInt16) -> [[UInt8]] {
        let first = firstSequence ?? sequence
        firstSequence = first
        let index = UInt64(sequence &- first)
        if Self.uniform(seed, index, 1) * 100 < lossPercent {
            dropped += 1
            droppedSequenceNumbers.append(sequence)
            return []
        }
        if let previous = held {  // swap neighbours: this one goes first
            held = nil
            swapped += 1
            return [datagram, previous]
        }
        if Self.uniform(seed, index, 2) * 100 < reorderPercent {
            held = datagram
            return []
        }
        return [datagram]
    }

    /// The packet held back for a swap, at the end.
    public mutating func flush() -> [[UInt8]] {
        defer { held = nil }
        return held.map { [$0] } ?? []
    }

    /// A number in [0, 1) from (seed, index, stream).
    static func uniform(_ seed: UInt64, _ index: UInt64, _ stream: UInt64) -> Double {
        var generator = SplitMix64(seed: seed &+ index &* 0x9E37_79B9_7F4A_7C15 &+ stream &* 0xD1B5_4A32_D192_ED03)
        return Double(generator.next() >> 11) / Double(1 << 53)
    }
}

/// SplitMix64: repeatable random numbers (the loss pattern, `vtk send --seed`'s RTP start values).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
