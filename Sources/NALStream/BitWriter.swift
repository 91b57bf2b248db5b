/// Writes an RBSP bit by bit, most significant bit first: the inverse of ``BitReader``.
///
/// The encoder builds packed SPS, PPS and slice headers with it; vtksoft rebuilds parameter sets from
/// VA parameter buffers. Call ``EmulationPrevention/insert(_:)`` on the result before it goes into a
/// NAL unit.
public struct BitWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var current: UInt64 = 0
    private var pending = 0

    public init() {}

    /// Number of bits written so far.
    public var bitCount: Int { bytes.count * 8 + pending }
    public var isByteAligned: Bool { pending == 0 }

    /// u(n), n from 0 to 32.
    public mutating func u(_ n: Int, _ value: UInt32) {
        precondition(n >= 0 && n <= 32)
        guard n > 0 else { return }
        let masked = UInt64(value) & ((1 << UInt64(n)) - 1)
        current = (current << UInt64(n)) | masked
        pending &+= n  // ≤ 39: 7 pending bits and n ≤ 32
        while pending >= 8 {
            pending &-= 8
            bytes.append(UInt8(truncatingIfNeeded: current >> UInt64(pending)))
        }
        current &= (1 << UInt64(pending)) - 1
    }

    public mutating func u(_ n: Int, _ value: Int) { u(n, UInt32(truncatingIfNeeded: value)) }
    public mutating func flag(_ value: Bool) { u(1, value ? 1 : 0) }

    /// ue(v) (9.1).
    public mutating func ue(_ value: UInt32) {
        let codeNum = UInt64(value) + 1
        let length = 64 - codeNum.leadingZeroBitCount  // bits in codeNum
        let zeros = length - 1
        if zeros > 0 { writeWide(0, zeros) }
        writeWide(codeNum, length)
    }

    public mutating func ue(_ value: Int) { ue(UInt32(value)) }

    /// se(v) (9.1.1).
    public mutating func se(_ value: Int32) {
        let mapped: UInt32 = value > 0 ? UInt32(2 * Int64(value) - 1) : UInt32(-2 * Int64(value))
        ue(mapped)
    }

    public mutating func se(_ value: Int) { se(Int32(value)) }

    private mutating func writeWide(_ value: UInt64, _ n: Int) {
        var remaining = n
        while remaining > 0 {
            let take = min(remaining, 32)
            remaining -= take
            u(take, UInt32(truncatingIfNeeded: value >> UInt64(remaining)))
        }
    }

    /// rbsp_trailing_bits() (7.3.2.11): a stop bit, then zeros to the byte boundary.
    public mutating func rbspTrailingBits() {
        u(1, 1)
        alignWithZeros()
    }

    /// Pads with zero bits to the next byte boundary.
    public mutating func alignWithZeros() {
        if pending > 0 { u(8 - pending, 0) }
    }

    /// Appends whole bytes; the writer must be byte aligned.
    public mutating func append(bytes more: [UInt8]) {
        precondition(isByteAligned)
        bytes.append(contentsOf: more)
    }
}
