import H265Bitstream

/// One slice segment to code: its header values and the CTBs it covers.
public struct H265SliceRequest: Sendable {
    /// The slice segment header as it will be written (or as the packed header says).
    public var header: H265SliceSegmentHeader
    /// CTBs the segment covers, in raster order from `header.sliceSegmentAddress`.
    public var ctbCount: Int
    /// The client's packed slice header, unescaped: NAL unit header (2 bytes) + slice_segment_header()
    /// including its byte_alignment() (7.3.2.12), so whole bytes; the slice data follows it directly.
    /// nil: the engine writes `header` with ``H265SliceSegmentHeader/write(_:sps:pps:)``.
    public var packedHeader: (bytes: [UInt8], bitLength: Int)?
    public init(header: H265SliceSegmentHeader, ctbCount: Int, packedHeader: (bytes: [UInt8], bitLength: Int)? = nil) {
        self.header = header
        self.ctbCount = ctbCount
        self.packedHeader = packedHeader
    }
}
