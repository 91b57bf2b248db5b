import NALStream

/// One syntax element as read: its name, where it began (bits from the NAL unit's first header bit, as
/// FFmpeg's trace_headers counts), its length in bits and its value.
public struct SyntaxElement: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var bitPosition: Int
    public var bitLength: Int
    public var value: Int64
    public var description: String { "\(name) = \(value) @\(bitPosition)+\(bitLength)" }
}

/// A ``BitReader`` over an H.265 RBSP that can record every element it reads (for the trace_headers
/// oracle). Names are built only while tracing.
public struct SyntaxReader {
    public var bits: BitReader
    /// Elements read so far, when tracing.
    public var trace: [SyntaxElement]?
    /// Bits before the RBSP in the NAL unit (the 2-byte header), added to traced positions.
    let headerBits: Int

    public init(rbsp: [UInt8], tracing: Bool = false, headerBits: Int = 16) {
        bits = BitReader(rbsp)
        trace = tracing ? [] : nil
        self.headerBits = headerBits
    }

    public init(nalUnit: NALUnit, tracing: Bool = false) {
        self.init(rbsp: nalUnit.h265RBSP, tracing: tracing)
    }

    public var position: Int { bits.bitPosition }

    private mutating func note(_ name: () -> String, _ start: Int, _ value: Int64) {
        guard trace != nil else { return }
        trace?.append(SyntaxElement(name: name(), bitPosition: start + headerBits, bitLength: bits.bitPosition - start, value: value))
    }

    /// u(n), n up to 32.
    public mutating func u(_ n: Int, _ name: @autoclosure () -> String) throws(BitstreamError) -> Int {
        let start = bits.bitPosition
        let value = Int(try bits.u(n))
        note(name, start, Int64(value))
        return value
    }

    public mutating func flag(_ name: @autoclosure () -> String) throws(BitstreamError) -> Bool {
        try u(1, name()) == 1
    }

    /// ue(v) no larger than `max`.
    public mutating func ue(_ name: @autoclosure () -> String, max: UInt32 = UInt32.max - 1) throws(BitstreamError) -> Int {
        let start = bits.bitPosition
        let value = try bits.ue()
        guard value <= max else { throw .invalidValue(element: name(), value: Int64(value), bitOffset: start) }
        note(name, start, Int64(value))
        return Int(value)
    }

    /// se(v) inside `range`.
    public mutating func se(_ name: @autoclosure () -> String, in range: ClosedRange<Int32> = Int32.min...Int32.max) throws(BitstreamError) -> Int {
        let start = bits.bitPosition
        let value = try bits.se()
        guard range.contains(value) else { throw .invalidValue(element: name(), value: Int64(value), bitOffset: start) }
        note(name, start, Int64(value))
        return Int(value)
    }

    /// A fixed field longer than 32 bits, read as FFmpeg prints it: 24 bits, then the rest, same name.
    public mutating func long(_ n: Int, _ name: @autoclosure () -> String) throws(BitstreamError) {
        _ = try u(24, name())
        _ = try u(n - 24, name())
    }

    public func moreRBSPData() -> Bool { bits.moreRBSPData() }
}

/// Ceil(Log2(x)) for x >= 1 (5.8).
@inlinable func ceilLog2(_ x: Int) -> Int {
    var bits = 0
    while (1 << bits) < x { bits += 1 }
    return bits
}
