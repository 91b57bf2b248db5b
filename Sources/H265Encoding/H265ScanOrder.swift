/// Scan orders of 6.5.3–6.5.5 used by residual_coding(): for a transform block of 2^log2 samples and
/// scanIdx 0 (up-right diagonal), 1 (horizontal) or 2 (vertical), the 4x4 sub-blocks in scan order
/// and the positions inside a sub-block in scan order.
struct H265ScanOrder: Sendable {
    /// (xS, yS) by sub-block scan position.
    let subBlocks: [(x: Int, y: Int)]
    /// (xP, yP) by position inside the sub-block.
    let positions: [(x: Int, y: Int)]

    /// Tables for log2 sizes 2...5 and scanIdx 0...2, indexed `[log2 - 2][scanIdx]`.
    static let all: [[H265ScanOrder]] = (2...5).map { log2 in
        (0...2).map { scanIdx in
            H265ScanOrder(subBlocks: order(1 << (log2 - 2), scanIdx), positions: order(4, scanIdx))
        }
    }

    /// One scan of a size x size array (6.5.3 diagonal, 6.5.4 horizontal, 6.5.5 vertical).
    static func order(_ size: Int, _ scanIdx: Int) -> [(x: Int, y: Int)] {
        switch scanIdx {
        case 1: return (0..<(size * size)).map { ($0 % size, $0 / size) }
        case 2: return (0..<(size * size)).map { ($0 / size, $0 % size) }
        default:
            var scan: [(x: Int, y: Int)] = []
            var x = 0, y = 0
            while scan.count < size * size {
                while y >= 0 {
                    if x < size && y < size { scan.append((x, y)) }
                    y -= 1
                    x += 1
                }
                y = x
                x = 0
            }
            return scan
        }
    }
}
