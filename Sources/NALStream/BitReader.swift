/// Reads the bits of an RBSP (emulation prevention already removed), most significant bit first.
///
/// Implements the descriptors of 7.2: u(n), ue(v), se(v), and the helpers `more_rbsp_data()` and
/// byte alignment. Every read that would pass the end throws ``BitstreamError/overrun(bitOffset:needed:)``.
public struct BitReader {
    let bytes: ArraySlice<UInt8>
    /// Current position, in bits from the start of the data.
    public private(set) var bitPosition: Int = 0
    /// Bits offset added to positions in errors (for example, the RBSP's own offset in a bigger buffer).
    public let reportingBase: Int

    public init(_ bytes: [UInt8], reportingBase: Int = 0) {
        self.init(bytes[...], reportingBase: reportingBase)
    }

    /// Reads a slice of an array in place (a header's RBSP that needed no emulation prevention removed).
    public init(_ bytes: ArraySlice<UInt8>, reportingBase: Int = 0) {
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
        let value = peek32() >> UInt32(32 - n)
        bitPosition += n
        return value
    }

    /// The 32 bits from the current position, as zeros past the end; the position does not move. One
    /// load of the 5 bytes they span instead of a loop per byte (u(1) and ue(v) read most of a header).
    @inline(__always)
    func peek32() -> UInt32 {
        let first = bitPosition >> 3
        return bytes.withUnsafeBufferPointer { buffer -> UInt32 in
            var window: UInt64 = 0
            if first + 5 <= buffer.count {
                for index in first..<first + 5 { window = window << 8 | UInt64(buffer[index]) }
            } else {
                for index in first..<first + 5 { window = window << 8 | (index < buffer.count ? UInt64(buffer[index]) : 0) }
            }
            return UInt32(truncatingIfNeeded: window >> UInt64(8 - (bitPosition & 7)))
        }
    }

    /// u(1) as a Bool.
    public mutating func flag() throws(BitstreamError) -> Bool { try u(1) == 1 }

    /// ue(v) (9.1): Exp-Golomb, unsigned, up to 2^32 - 2.
    public mutating func ue() throws(BitstreamError) -> UInt32 {
        let start = bitPosition
        // The leading zeros and the 1 that ends them in the next 32 bits, inside the data: counted at once,
        // and a code of up to 32 bits read with them. Anything else (a code that runs past the end, 32 or more
        // zeros) takes the bit-by-bit path, which gives the errors.
        let window = peek32()
        let leadingZeros = window.leadingZeroBitCount
        if leadingZeros < 32 && start + leadingZeros < bitCount {
            let length = 2 * leadingZeros + 1
            if length <= 32 && start + length <= bitCount {
                bitPosition = start + length
                return (window >> UInt32(32 - length)) - 1
            }
            bitPosition = start + leadingZeros + 1
            let suffix = UInt64(try u(leadingZeros))
            return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + suffix)
        }
        return try ueBitByBit()
    }

    /// ue(v) one bit at a time: what ``ue()`` falls back on where the code does not end inside the data
    /// or has 32 or more leading zeros.
    private mutating func ueBitByBit() throws(BitstreamError) -> UInt32 {
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
        var last = bytes.endIndex - 1
        while last >= bytes.startIndex && bytes[last] == 0 { last -= 1 }
        guard last >= bytes.startIndex else { return false }
        let byte = bytes[last]
        let stopBit = (last - bytes.startIndex) * 8 + (7 - byte.trailingZeroBitCount)
        return bitPosition < stopBit
    }
}
