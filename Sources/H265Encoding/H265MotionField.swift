/// The motion of one 4x4 block (8.5.3.2): which lists predict it, the vectors (quarter luma samples), the
/// reference indices, and what temporal prediction needs of the pictures they name (POC, long-term).
struct H265Motion: Equatable, Sendable {
    /// bit 0: PredFlagL0, bit 1: PredFlagL1; 0 for intra.
    var interDir: UInt8 = 0
    var mv0x: Int32 = 0, mv0y: Int32 = 0
    var mv1x: Int32 = 0, mv1y: Int32 = 0
    var refIdx0: Int8 = -1, refIdx1: Int8 = -1

    var predL0: Bool { interDir & 1 != 0 }
    var predL1: Bool { interDir & 2 != 0 }
    static let intra = H265Motion()

    /// Same vectors and reference indices (the comparison of 8.5.3.2.3).
    func sameMotion(_ o: H265Motion) -> Bool {
        interDir == o.interDir && (!predL0 || (mv0x == o.mv0x && mv0y == o.mv0y && refIdx0 == o.refIdx0))
            && (!predL1 || (mv1x == o.mv1x && mv1y == o.mv1y && refIdx1 == o.refIdx1))
    }
}

/// A coded picture's motion, kept with its reconstruction so that later pictures can take temporal
/// motion vector candidates from it (8.5.3.2.8): per 4x4 block, the lists used, the vectors, and the POC
/// and long-term marking of the pictures they referred to.
public struct H265MotionField: Sendable, Equatable {
    public let width4: Int
    public let height4: Int
    struct Entry: Equatable, Sendable {
        var motion = H265Motion()
        var refPoc0: Int32 = 0, refPoc1: Int32 = 0
        var longTerm0 = false, longTerm1 = false
    }
    var entries: [Entry]

    init(width4: Int, height4: Int) {
        self.width4 = width4
        self.height4 = height4
        entries = [Entry](repeating: Entry(), count: width4 * height4)
    }
}
