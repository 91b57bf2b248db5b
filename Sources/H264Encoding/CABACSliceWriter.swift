import H264Bitstream

/// Placeholder so the engine builds; the real CABAC back end (9.3) replaces this file at merge.
public struct CABACSliceWriter: SliceDataWriter {
    private var bits: BitWriter
    public init(header: BitWriter, slice: SliceCoding) { bits = header }
    public mutating func write(_ macroblock: borrowing MacroblockSyntax) {}
    public mutating func finish() -> [UInt8] {
        bits.rbspTrailingBits()
        return bits.bytes
    }
}
