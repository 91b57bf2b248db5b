/// What RTP delivers for one RTP timestamp: the NAL units of one access unit (RFC 6184 5.1, RFC 7798 4.1),
/// not yet parsed by the codec, with what was lost around it. (A frame is what decoding it gives.)
public struct RTPAccessUnit: Sendable {
    public var timestamp: UInt32
    public var nalUnits: [[UInt8]] = []
    /// Packets of this access unit were lost or unusable (inside it, or its end).
    public var damaged = false
    /// Packets were lost just before its first packet: they may have been its beginning, or whole access units.
    public var lossBefore = false
    /// The marker bit ended it (rather than a new timestamp or the end of the stream).
    public var complete = false
    public var firstArrival: Double
    public var problems: [RTPError] = []
    /// The RTP sequence number of its first packet received.
    public var firstSequence: UInt16 = 0
}
