/// What the engine gives back: each slice as a complete NAL unit (header byte + escaped payload, no
/// start code), and the reconstruction, deblocked, exactly as a decoder would rebuild it (8.7).
public struct EncodedPicture: Sendable {
    public var sliceNALUnits: [[UInt8]]
    public var reconstruction: EncoderPicture
    /// The largest ref_idx_l0 a macroblock of the picture used (−1: none used list 0), for tests.
    var maxRefIdxL0 = -1
    /// Macroblocks coded with transform_size_8x8_flag = 1, for tests.
    var transform8x8Count = 0
    /// Macroblocks coded with 16x8 or 8x16 partitions, for tests.
    var partitionedCount = 0
    public init(sliceNALUnits: [[UInt8]], reconstruction: EncoderPicture) {
        self.sliceNALUnits = sliceNALUnits
        self.reconstruction = reconstruction
    }
}
