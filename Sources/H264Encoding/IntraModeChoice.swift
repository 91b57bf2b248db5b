/// The Intra4x4 mode decision of a block: the mode of least SATD + λ·(1 bit for the predicted mode of 8.3.1.1, else 4),
/// the lowest-numbered on ties, among the modes the neighbours allow (``IntraPrediction/isAvailable4x4(mode:_:)``).
/// The modes are scanned in order keeping a strictly lower cost, branch-free: each cost shifted left four bits with its
/// mode below it, the least of these keys.
enum IntraModeChoice {
    /// The chosen mode and its cost; `satd(mode)` is asked for every mode 0...8 (an unavailable one's is ignored) and
    /// every cost must be below 2^27 (an Intra4x4 SATD is at most 16 · 16 · 255 / 2).
    @inline(__always) static func cheapest(_ n: IntraPrediction.Neighbours, predMode: Int, lambda: Int32,
                                           satd: (Int) -> Int32) -> (mode: Int, cost: Int32) {
        let top = n.top, left = n.left, all = n.top && n.left && n.topLeft
        var least = Int32.max
        @inline(__always) func consider(_ mode: Int, _ available: Bool) {
            let key = ((satd(mode) &+ (mode == predMode ? lambda : lambda &* 4)) &<< 4) | Int32(mode)
            least = available && key < least ? key : least
        }
        consider(0, top); consider(1, left); consider(2, true); consider(3, top); consider(4, all); consider(5, all); consider(6, all)
        consider(7, top); consider(8, left)
        return (Int(least & 15), least >> 4)
    }
}
