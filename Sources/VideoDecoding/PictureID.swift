/// Identity of a picture (for H.264, of a frame store: both fields of a frame share it) inside one decoder,
/// stable while it is in the DPB. The accelerator maps it to its surface.
public struct PictureID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "pic#\(rawValue)" }
}
