/// The slices of a picture split for concurrent coding: consecutive runs of slices, at most
/// `concurrency` of them (1 or 2), of about equal macroblock counts. One run when there is one slice.
struct SliceGroups {
    let ranges: [Range<Int>]

    init(_ macroblockCounts: [Int], concurrency: Int) {
        let n = macroblockCounts.count
        guard concurrency >= 2, n >= 2 else { ranges = [0..<n]; return }
        // the split that leaves the two groups' macroblock counts closest
        let total = macroblockCounts.reduce(0, +)
        var best = 1, bestImbalance = Int.max, before = 0
        for k in 1..<n {
            before += macroblockCounts[k - 1]
            let imbalance = abs(total - 2 * before)
            if imbalance < bestImbalance { bestImbalance = imbalance; best = k }
        }
        ranges = [0..<best, best..<n]
    }
}
