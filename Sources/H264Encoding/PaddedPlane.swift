/// One 8-bit plane with a border of replicated samples around it, so motion compensation and intra
/// prediction never bounds-check per sample. `(0, 0)` is the top-left visible sample.
public struct PaddedPlane: Sendable {
    public let width: Int
    public let height: Int
    public let padding: Int
    public let stride: Int
    public var samples: [UInt8]

    public init(width: Int, height: Int, padding: Int) {
        self.width = width
        self.height = height
        self.padding = padding
        stride = width + 2 * padding
        samples = [UInt8](repeating: 0, count: stride * (height + 2 * padding))
    }

    /// A plane whose samples are whatever the allocator left (no zero fill, which costs a pass over the
    /// plane per picture): for a caller that writes every sample, padding included, before any is read.
    public init(uninitializedWidth width: Int, height: Int, padding: Int) {
        self.width = width
        self.height = height
        self.padding = padding
        stride = width + 2 * padding
        let count = stride * (height + 2 * padding)
        samples = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Index of sample (x, y) in ``samples``; x and y may reach into the padding.
    @inline(__always) public func index(_ x: Int, _ y: Int) -> Int { (y + padding) * stride + x + padding }
}
