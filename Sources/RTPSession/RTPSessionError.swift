/// Why a reception or a transmission failed: what was at fault (the input or the network, the VA device,
/// the output) and a message without the command's name, which the caller puts in front.
public struct RTPSessionError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The network or the stream: no packets, a port in use, the wrong codec.
        case input
        /// The VA device or its decoder.
        case device
        /// Sending failed.
        case output
        /// An address or option the caller gave cannot be used.
        case usage
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
