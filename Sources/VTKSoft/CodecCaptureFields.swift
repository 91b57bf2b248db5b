import CLibVA
import JSONText

/// One codec's VA parameter structs as capture JSON (`CaptureFields` for H.264, `HEVCCaptureFields` for H.265):
/// the codec says what a buffer of one of its types holds; ``ParameterCapture/describe(_:fields:)`` writes the
/// rest of the buffer's entry, and the codec-neutral encode buffers (misc, packed headers), once for all codecs.
protocol CodecCaptureFields {
    /// The buffer's "value" as the codec's struct for its type, or nil when the type is not the codec's.
    static func value(of buffer: RenderedBuffer) -> JSONValue?
}
