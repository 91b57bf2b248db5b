/// Reads the bits of an RBSP (emulation prevention already removed), most significant bit first.
///
/// Implements the descriptors of 7.2: u(n), ue(v), se(v), and the helpers `more_rbsp_data()` and
/// byte alignment. Every read that would pass the end throws ``BitstreamError/overrun(bitOffset:needed:)``.
public struct BitReader {
    let bytes: [UInt8]
    /// Current position, in bits from the start of the data.
    public private(set) var bitPosition: Int = 0
    /// Bits offset added to positions in errors (for example, the RBSP's own offset in a bigger buffer).
    public let reportingBase: Int

    public init(_ bytes: [UInt8], reportingBase: Int = 0) {
        self.bytes = bytes
        self.reportingBase = reportingBase
    }

    public var bitCount: Int { bytes.count * 8 }
    public var bitsLeft: Int { bitCount - bitPosition }
    public var isByteAligned: Bool { bitPosition & 7 == 0 }

    /// u(n), n from 0 to 32.
    public mutating func u(_ n: Int) throws(BitstreamError) -> UInt32 {
        precondition(n >= 0 && n <= 32)
        if n == 0 { return 0 }
        guard bitsLeft >= n else { throw .overrun(bitOffset: reportingBase + bitPosition, needed: n - bitsLeft) }
        var value: UInt64 = 0
        var remaining = n
        var pos = bitPosition
        while remaining > 0 {
            let byte = UInt64(bytes[pos >> 3])
            let bitInByte = pos & 7
            let take = min(8 - bitInByte, remaining)
            let shifted = (byte >> UInt64(8 - bitInByte - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | shifted
            remaining -= take
            pos += take
        }
        bitPosition = pos
        return UInt32(truncatingIfNeeded: value)
    }

    /// u(1) as a Bool.
    public mutating func flag() throws(BitstreamError) -> Bool { try u(1) == 1 }

    /// ue(v) (9.1): Exp-Golomb, unsigned, up to 2^32 - 2.
    public mutating func ue() throws(BitstreamError) -> UInt32 {
        let start = bitPosition
        var leadingZeros = 0
        while true {
            guard bitsLeft > 0 else { throw .overrun(bitOffset: reportingBase + bitPosition, needed: 1) }
            if try u(1) == 1 { break }
            leadingZeros += 1
            if leadingZeros > 31 { throw .expGolombTooLong(bitOffset: reportingBase + start) }
        }
        if leadingZeros == 0 { return 0 }
        let suffix = UInt64(try u(leadingZeros))
        let value = (UInt64(1) << UInt64(leadingZeros)) - 1 + suffix
        guard value <= UInt64(UInt32.max) else { throw .expGolombTooLong(bitOffset: reportingBase + start) }
        return UInt32(value)
    }

    /// se(v) (9.1.1): signed Exp-Golomb.
    public mutating func se() throws(BitstreamError) -> Int32 {
        let k = Int64(try ue())
        let magnitude = (k + 1) / 2
        return Int32(truncatingIfNeeded: k & 1 == 1 ? magnitude : -magnitude)
    }

    /// ue(v) checked against an inclusive upper bound, so absurd values fail where they are read.
    public mutating func ue(max: UInt32, _ element: @autoclosure () -> String) throws(BitstreamError) -> Int {
        let start = bitPosition
        let value = try ue()
        guard value <= max else {
            throw .invalidValue(element: element(), value: Int64(value), bitOffset: reportingBase + start)
        }
        return Int(value)
    }

    /// se(v) checked against an inclusive range.
    public mutating func se(in range: ClosedRange<Int32>, _ element: @autoclosure () -> String) throws(BitstreamError) -> Int {
        let start = bitPosition
        let value = try se()
        guard range.contains(value) else {
            throw .invalidValue(element: element(), value: Int64(value), bitOffset: reportingBase + start)
        }
        return Int(value)
    }

    public mutating func skip(_ n: Int) throws(BitstreamError) {
        guard bitsLeft >= n else { throw .overrun(bitOffset: reportingBase + bitPosition, needed: n - bitsLeft) }
        bitPosition += n
    }

    public mutating func byteAlign() {
        bitPosition = (bitPosition + 7) & ~7
        if bitPosition > bitCount { bitPosition = bitCount }
    }

    /// more_rbsp_data() (7.2): true while there is data before the rbsp_stop_one_bit.
    public func moreRBSPData() -> Bool {
        guard bitsLeft > 0 else { return false }
        // Find the last 1 bit in the data: the rbsp_stop_one_bit.
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == 0 { last -= 1 }
        guard last >= 0 else { return false }
        let byte = bytes[last]
        let stopBit = last * 8 + (7 - byte.trailingZeroBitCount)
        return bitPosition < stopBit
    }
}
