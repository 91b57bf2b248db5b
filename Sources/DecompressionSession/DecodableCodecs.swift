import NALStream

/// The codecs vtk decodes, and the one place a runtime ``VideoCodec`` becomes its static codec type. Each
/// layer sees that type through its own codec protocol (``StreamDecodingCodec``, RTPSession's `RTPCodec`,
/// Playback's `AnnexBPlaybackCodec`) and opens it into a generic body.
public enum DecodableCodecs {
    /// Every codec type vtk decodes, H.264 first.
    public static let all: [any StreamDecodingCodec.Type] = [H264Codec.self, H265Codec.self]

    /// The static type of `codec` as `Kind` (a metatype of a codec protocol, e.g. `(any RTPCodec.Type).self`);
    /// nil when vtk has no type for the codec, or its type does not conform.
    public static func type<Kind>(of codec: VideoCodec, as _: Kind.Type) -> Kind? {
        all.first { $0.videoCodec == codec }.flatMap { $0 as? Kind }
    }
}
