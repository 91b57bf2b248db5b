/// How a decoded picture (or, in H.264, one field of it) is used for reference (H.264 8.2.5, H.265 8.3.2).
public enum ReferenceMarking: Hashable, Sendable {
    case unused
    case shortTerm
    case longTerm
}
