import VTKMedia

/// The macroblock rows of one slice shared between threads as a wavefront: each thread takes the next
/// row nobody has taken, and works on a macroblock only once the row above has finished the macroblock up
/// and to its right.
/// - Decisions: a macroblock's reads no other macroblock than its neighbours A, B, C and D (left, above,
///   above right, above left: 6.4.11.1, 6.4.11.7, 8.3.1.2, 8.4.1.3), and those are then finished, with
///   their state and reconstruction written; the macroblocks after it in decoding order are never read.
/// - Deblocking (8.7): a macroblock's edges change samples of its left and upper neighbours only, and the
///   upper one's samples were last changed by the left edge of the macroblock up and to the right.
/// So every macroblock sees exactly what a serial pass would show it, whatever the threads' timing.
///
/// Rows are taken in order, so the lowest unfinished row never waits for anything: the threads cannot
/// deadlock, and one thread alone (a pool that runs the iterations one after the other) takes every row.
/// Everything here is touched under `lock`, which is what makes it Sendable; the lock's release and
/// acquire also order the finished macroblocks' memory before a reader's use of it.
final class MacroblockRowWavefront: @unchecked Sendable {
    private let lock = Lock()
    /// The slice: its first macroblock, one past its last, the picture's width in macroblocks.
    let firstMb: Int, endMb: Int, widthInMbs: Int
    private let firstRow: Int
    /// Per row of the slice (from `firstRow`): how many of its macroblocks, counted from column 0, are finished.
    /// The slice's first row counts the columns before the slice as finished (they are in no row of it).
    private var finished: [Int]
    /// The next row to take, from `firstRow`.
    private var nextRow = 0
    /// Threads waiting for a row above to move on.
    private var waiting = 0

    init(firstMb: Int, macroblockCount: Int, widthInMbs: Int) {
        self.firstMb = firstMb
        endMb = firstMb + macroblockCount
        self.widthInMbs = widthInMbs
        firstRow = firstMb / widthInMbs
        let lastRow = (endMb - 1) / widthInMbs
        finished = [Int](repeating: 0, count: lastRow - firstRow + 1)
        finished[0] = firstMb % widthInMbs
    }

    /// The macroblock addresses of the next row nobody has taken, in decoding order; nil when all are taken.
    func takeRow() -> (row: Int, addresses: Range<Int>)? {
        lock.withLock { () -> (row: Int, addresses: Range<Int>)? in
            guard nextRow < finished.count else { return nil }
            let row = nextRow
            nextRow += 1
            let y = firstRow + row
            return (row, max(firstMb, y * widthInMbs)..<min(endMb, (y + 1) * widthInMbs))
        }
    }

    /// Whether every row has been taken and finished.
    var isComplete: Bool {
        lock.withLock { nextRow == finished.count && finished.last.map { $0 == (endMb - 1) % widthInMbs + 1 } ?? true }
    }

    /// Waits until row `row` − 1 has finished the macroblocks up to `column` + 1 (C, the neighbour above
    /// right; the row's last macroblock at the picture's right edge). `seen` is what the caller last read
    /// of that row: the lock is taken only when it does not already suffice.
    func waitForRowAbove(_ row: Int, column: Int, seen: inout Int) {
        guard row > 0 else { return }
        let needed = min(column + 2, widthInMbs)
        guard seen < needed else { return }
        lock.withLock {
            while finished[row - 1] < needed {
                waiting += 1
                lock.wait()
                waiting -= 1
            }
            seen = finished[row - 1]
        }
    }

    /// The caller's share of the work: `body` on every macroblock of the rows it takes, each once the row
    /// above allows it, in decoding order within a row. Every thread of the wavefront calls this.
    func forEachMacroblock(_ body: (_ mbAddr: Int) -> Void) {
        while let (row, addresses) = takeRow() {
            var seen = 0
            for mbAddr in addresses {
                let column = mbAddr % widthInMbs
                waitForRowAbove(row, column: column, seen: &seen)
                body(mbAddr)
                finish(row, column: column)
            }
        }
    }

    /// Row `row` has finished its macroblock in `column`.
    func finish(_ row: Int, column: Int) {
        lock.withLock {
            finished[row] = column + 1
            if waiting > 0 { lock.broadcast() }
        }
    }
}
