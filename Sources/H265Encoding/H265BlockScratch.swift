/// Working memory of one transform block's coding (``H265PictureCoder/codeBlock(_:_:log2:cIdx:mode:intraCU:)``):
/// its prediction, residuals, levels and rebuilt residuals, up to 32x32 each, and the transforms' memory. One
/// allocation serves a whole picture, so that coding a block allocates nothing and captures nothing of the coder
/// in a closure.
final class H265BlockScratch {
    /// The largest transform block's sample count (32x32).
    static let blockCapacity = 1024
    let prediction: UnsafeMutablePointer<Int32>
    let residuals: UnsafeMutablePointer<Int32>
    let levels: UnsafeMutablePointer<Int32>
    let rebuilt: UnsafeMutablePointer<Int32>
    /// The forward and inverse transforms' own working memory.
    let transform = H265TransformScratch()

    init() {
        prediction = .allocate(capacity: 4 * Self.blockCapacity)
        residuals = prediction + Self.blockCapacity
        levels = prediction + 2 * Self.blockCapacity
        rebuilt = prediction + 3 * Self.blockCapacity
    }

    deinit { prediction.deallocate() }
}
