/// A problem found while reading a byte stream (H.264 or H.265) or a syntax structure in it.
///
/// Every case carries the position it was found at, so a user can be told where the stream is bad:
/// `byteOffset` is an offset in the byte stream (or sample) being read, `bitOffset` a bit position
/// inside one NAL unit's RBSP.
public enum BitstreamError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A read went past the end of the data (`needed` more bits at `bitOffset`).
    case overrun(bitOffset: Int, needed: Int)
    /// An Exp-Golomb code (9.1) with more than 31 leading zero bits: the value does not fit 32 bits.
    case expGolombTooLong(bitOffset: Int)
    /// A syntax element has a value the spec does not allow.
    case invalidValue(element: String, value: Int64, bitOffset: Int)
    /// A NAL unit whose header is malformed (forbidden_zero_bit set, or empty).
    case malformedNALUnit(byteOffset: Int, reason: String)
    /// A length-prefixed sample whose length field points past the end of the sample.
    case truncatedSample(byteOffset: Int, declaredLength: Int, available: Int)
    /// A parameter set that a slice or another parameter set refers to is missing.
    case missingParameterSet(kind: String, id: Int)
    /// A feature that vtk does not support.
    case unsupported(String)
    /// An avcC record that is malformed.
    case malformedRecord(byteOffset: Int, reason: String)

    public var description: String {
        switch self {
        case let .overrun(bit, needed):
            return "bitstream ends early: \(needed) more bit(s) needed at bit \(bit) (byte \(bit / 8))"
        case let .expGolombTooLong(bit):
            return "Exp-Golomb code longer than 32 bits at bit \(bit) (byte \(bit / 8))"
        case let .invalidValue(element, value, bit):
            return "\(element) = \(value) is out of range at bit \(bit) (byte \(bit / 8))"
        case let .malformedNALUnit(offset, reason):
            return "malformed NAL unit at byte \(offset): \(reason)"
        case let .truncatedSample(offset, declared, available):
            return "NAL unit length \(declared) at byte \(offset) runs past the end of the sample (\(available) byte(s) left)"
        case let .missingParameterSet(kind, id):
            return "missing \(kind) with id \(id)"
        case let .unsupported(what):
            return "not supported: \(what)"
        case let .malformedRecord(offset, reason):
            return "malformed avcC record at byte \(offset): \(reason)"
        }
    }
}
