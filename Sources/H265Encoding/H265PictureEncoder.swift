import H265Bitstream

/// vtksoft's H.265 encoder engine: codes one picture as the request describes (slice segments, QP, lists,
/// headers) and rebuilds it exactly as a decoder would, in-loop filters included.
public struct H265PictureEncoder {
    public init() {}

    public mutating func encode(_ request: H265EncodeRequest) throws(H265EncodingError) -> H265EncodedPicture {
        throw .unsupported("not implemented yet")
    }
}
