/// What the engine gives back: each slice segment as a complete NAL unit (2-byte header + escaped
/// payload, no start code), and the reconstruction, in-loop filtered exactly as a decoder rebuilds it (8.7).
public struct H265EncodedPicture: Sendable {
    public var sliceNALUnits: [[UInt8]]
    public var reconstruction: H265EncoderPicture
    public var statistics = H265CodingStatistics()
    public init(sliceNALUnits: [[UInt8]], reconstruction: H265EncoderPicture) {
        self.sliceNALUnits = sliceNALUnits
        self.reconstruction = reconstruction
    }
}
