/// Why the engine cannot code a request as asked.
public enum EncodingError: Error, Equatable, Sendable {
    /// The request asks for something the engine does not implement (named), e.g. interlace, 4:4:4.
    case unsupported(String)
    /// The request contradicts itself (named), e.g. a P slice with an empty RefPicList0.
    case inconsistent(String)
}
