import H264Bitstream

/// One slice to code: its header (as it will be written, or as the client's packed header says) and
/// the macroblocks it covers.
public struct SliceRequest: Sendable {
    public var header: SliceHeader
    public var macroblockCount: Int
    /// The client's packed slice header (NAL header byte + slice_header() bits, unescaped RBSP bits) to
    /// put in front of the slice data verbatim; nil: write `header` with ``SliceHeader/write(_:sps:pps:)``.
    public var packedHeader: (bytes: [UInt8], bitLength: Int)?
    public init(header: SliceHeader, macroblockCount: Int, packedHeader: (bytes: [UInt8], bitLength: Int)? = nil) {
        self.header = header
        self.macroblockCount = macroblockCount
        self.packedHeader = packedHeader
    }
}
