/// One coded slice NAL unit (H.264) or slice segment NAL unit (H.265) with its parsed header.
public struct CodedSlice<Header: Hashable & Sendable>: Hashable, Sendable {
    public var nalUnit: NALUnit
    public var header: Header

    public init(nalUnit: NALUnit, header: Header) {
        self.nalUnit = nalUnit
        self.header = header
    }
}
