/// Why the H.265 engine cannot code a request as asked.
public enum H265EncodingError: Error, Equatable, Sendable {
    /// The request asks for something the engine does not implement (named), e.g. tiles, 4:2:2.
    case unsupported(String)
    /// The request contradicts itself (named), e.g. a P slice with an empty RefPicList0.
    case inconsistent(String)
}
