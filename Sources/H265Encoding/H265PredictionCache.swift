/// The luma predictions that the mode decision has made and costed lately, by block and motion, so that
/// coding the chosen one, or costing it again (a 32x32 merge test, then the 32x32 CU), interpolates nothing
/// twice. References do not change within a picture, so an entry stays exact for the whole picture.
struct H265PredictionCache {
    struct Entry {
        var x = -1, y = -1, n = 0
        var motion = H265Motion()
        /// SATD of the prediction against the source.
        var cost = 0
        var luma: [Int32] = []
    }
    private var entries = [Entry](repeating: Entry(), count: 8)
    private var next = 0

    /// The entry of the n x n block at (x, y) predicted with `motion`, if kept.
    func find(_ x: Int, _ y: Int, n: Int, motion: H265Motion) -> Entry? {
        for e in entries where e.x == x && e.y == y && e.n == n && e.motion.sameMotion(motion) { return e }
        return nil
    }

    /// The luma of the entry that ``insert(_:_:n:motion:cost:luma:)`` replaces next, taken out of it, so that the
    /// new prediction can be made in its storage.
    mutating func takeOldestLuma() -> [Int32] {
        let luma = entries[next].luma
        entries[next].luma = []
        return luma
    }

    /// Keeps a prediction, in place of the oldest.
    mutating func insert(_ x: Int, _ y: Int, n: Int, motion: H265Motion, cost: Int, luma: [Int32]) {
        entries[next] = Entry(x: x, y: y, n: n, motion: motion, cost: cost, luma: luma)
        next = (next + 1) % entries.count
    }
}
