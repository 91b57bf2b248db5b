/// One coded slice NAL unit with its parsed header.
public typealias Slice = CodedSlice<SliceHeader>

/// The NAL units of one access unit (7.4.1.2): one primary coded picture with the parameter sets, SEI and
/// delimiters that come with it.
public struct AccessUnit: CodedAccessUnit {
    /// All NAL units in stream order.
    public var nalUnits: [NALUnit] = []
    /// The coded slices of the primary picture (and any redundant ones), in stream order.
    public var slices: [Slice] = []
    /// Parameter sets in force once this access unit's own SPS/PPS NAL units have been read.
    public var parameterSets = ParameterSets()
    public var recoveryPoint: RecoveryPoint?
    /// The payload of a pic_timing SEI message (D.1.3), read with the SPS by ``PictureTiming``.
    public var pictureTimingPayload: [UInt8]?
    /// Problems met while assembling it (a slice with a missing PPS, a damaged SPS, ...). The access unit
    /// is still delivered, so that a decoder can decide what to do.
    public var problems: [BitstreamError] = []

    public init() {}

    public var isIDR: Bool { slices.first?.header.idrPicFlag ?? false }
    public var primarySliceHeader: SliceHeader? { slices.first?.header }
    /// Size in bytes of its NAL units, without start codes.
    public var byteCount: Int { nalUnits.reduce(0) { $0 + $1.bytes.count } }
}
