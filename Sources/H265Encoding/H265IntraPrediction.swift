/// Intra sample prediction (8.4.4.2): reference samples with substitution (8.4.4.2.2) and filtering
/// (8.4.4.2.3), then planar (8.4.4.2.5), DC (8.4.4.2.6) or angular (8.4.4.2.6) prediction.
enum H265IntraPrediction {
    /// intraPredAngle by mode 2...34 (Table 8-5; index mode - 2).
    static let angles: [Int] = [32, 26, 21, 17, 13, 9, 5, 2, 0, -2, -5, -9, -13, -17, -21, -26, -32,
                                -26, -21, -17, -13, -9, -5, -2, 0, 2, 5, 9, 13, 17, 21, 26, 32]
    /// invAngle by mode 11...25 (Table 8-6; index mode - 11).
    static let inverseAngles: [Int] = [-4096, -1638, -910, -630, -482, -390, -315, -256, -315, -390, -482, -630, -910, -1638, -4096]

    /// The 4N + 1 reference samples: index 0 is p[−1][2N−1] (bottom of the left column) up to index
    /// 2N − 1 = p[−1][0], index 2N = p[−1][−1], then p[0][−1] ... p[2N−1][−1] at 2N + 1 ... 4N.
    /// `available(i)` says whether sample i may be used; the others are substituted (8.4.4.2.2).
    static func references(count n: Int, bitDepth: Int, sample: (Int) -> Int32, available: (Int) -> Bool) -> [Int32] {
        let total = 4 * n + 1
        var p = [Int32](repeating: 0, count: total)
        var firstAvailable = -1
        var flags = [Bool](repeating: false, count: total)
        for i in 0..<total where available(i) {
            flags[i] = true
            p[i] = sample(i)
            if firstAvailable < 0 { firstAvailable = i }
        }
        if firstAvailable < 0 {
            return [Int32](repeating: Int32(1 << (bitDepth - 1)), count: total)
        }
        if !flags[0] { p[0] = p[firstAvailable] }
        for i in 1..<total where !flags[i] { p[i] = p[i - 1] }
        return p
    }

    /// Filters the references when 8.4.4.2.3 says so (luma only in 4:2:0).
    static func filter(_ p: [Int32], count n: Int, mode: Int, strongSmoothing: Bool, bitDepth: Int) -> [Int32] {
        guard mode != 1, n != 4 else { return p }
        let minDistVerHor = min(abs(mode - 26), abs(mode - 10))
        let threshold = n == 8 ? 7 : n == 16 ? 1 : 0
        guard mode == 0 || minDistVerHor > threshold else { return p }
        let c = 2 * n  // corner
        let bottom = p[0], corner = p[c], right = p[4 * n]
        if strongSmoothing && n == 32 {
            let limit = Int32(1 << (bitDepth - 5))
            if abs(corner + right - 2 * p[c + n]) < limit && abs(corner + bottom - 2 * p[c - n]) < limit {
                var f = p
                for i in 0..<63 {
                    // left column: pF[−1][y] for y = 0...62 at index c − 1 − y
                    f[c - 1 - i] = ((63 - Int32(i)) * corner + (Int32(i) + 1) * bottom + 32) >> 6
                    f[c + 1 + i] = ((63 - Int32(i)) * corner + (Int32(i) + 1) * right + 32) >> 6
                }
                return f
            }
        }
        var f = p
        for i in 1..<(4 * n) { f[i] = (p[i - 1] + 2 * p[i] + p[i + 1] + 2) >> 2 }
        return f
    }

    /// Predicts an N x N block (raster into `out`) from references `p` (layout of ``references``).
    /// `edgeFilters`: luma below 32x32 (DC edges, modes 10 and 26 boundary smoothing).
    static func predict(_ p: [Int32], count n: Int, log2: Int, mode: Int, edgeFilters: Bool, bitDepth: Int, into out: inout [Int32]) {
        let c = 2 * n
        @inline(__always) func left(_ y: Int) -> Int32 { p[c - 1 - y] }   // p[−1][y], y = −1...2N−1
        @inline(__always) func top(_ x: Int) -> Int32 { p[c + 1 + x] }    // p[x][−1], x = −1...2N−1
        let maxValue = Int32((1 << bitDepth) - 1)
        switch mode {
        case 0:
            for y in 0..<n {
                for x in 0..<n {
                    let v = Int32(n - 1 - x) * left(y) + Int32(x + 1) * top(n) + Int32(n - 1 - y) * top(x) + Int32(y + 1) * left(n) + Int32(n)
                    out[y * n + x] = v >> Int32(log2 + 1)
                }
            }
        case 1:
            var sum = Int32(n)
            for i in 0..<n { sum += left(i) + top(i) }
            let dc = sum >> Int32(log2 + 1)
            for i in 0..<(n * n) { out[i] = dc }
            if edgeFilters {
                out[0] = (left(0) + 2 * dc + top(0) + 2) >> 2
                for x in 1..<n { out[x] = (top(x) + 3 * dc + 2) >> 2 }
                for y in 1..<n { out[y * n] = (left(y) + 3 * dc + 2) >> 2 }
            }
        default:
            let angle = angles[mode - 2]
            var ref = [Int32](repeating: 0, count: 3 * n + 1)
            let o = n  // ref[x] at ref[o + x], x = −N...2N
            let vertical = mode >= 18
            // main: the row above (vertical) or the column on the left (horizontal), from index −1.
            @inline(__always) func main(_ i: Int) -> Int32 { vertical ? top(i) : left(i) }
            @inline(__always) func side(_ i: Int) -> Int32 { vertical ? left(i) : top(i) }
            for x in 0...n { ref[o + x] = main(x - 1) }
            if angle < 0 {
                let last = (n * angle) >> 5
                if last < -1 {
                    let inv = inverseAngles[mode - 11]
                    for x in last...(-1) { ref[o + x] = side(-1 + ((x * inv + 128) >> 8)) }
                }
            } else {
                for x in (n + 1)...(2 * n) { ref[o + x] = main(x - 1) }
            }
            for j in 0..<n {
                let position = (j + 1) * angle
                let idx = position >> 5, fact = Int32(position & 31)
                for i in 0..<n {
                    let v: Int32 = fact != 0
                        ? ((32 - fact) * ref[o + i + idx + 1] + fact * ref[o + i + idx + 2] + 16) >> 5
                        : ref[o + i + idx + 1]
                    if vertical { out[j * n + i] = v } else { out[i * n + j] = v }
                }
            }
            if edgeFilters && (mode == 26 || mode == 10) {
                if mode == 26 {
                    for y in 0..<n { out[y * n] = min(max(top(0) + ((left(y) - left(-1)) >> 1), 0), maxValue) }
                } else {
                    for x in 0..<n { out[x] = min(max(left(0) + ((top(x) - top(-1)) >> 1), 0), maxValue) }
                }
            }
        }
    }
}
