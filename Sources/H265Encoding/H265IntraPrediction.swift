/// Intra sample prediction (8.4.4.2): reference samples with substitution (8.4.4.2.2) and filtering
/// (8.4.4.2.3), then planar (8.4.4.2.5), DC (8.4.4.2.6) or angular (8.4.4.2.6) prediction.
/// The 4N + 1 reference samples lie in one line: index 0 is p[−1][2N−1] (bottom of the left column) up to index
/// 2N − 1 = p[−1][0], index 2N = p[−1][−1], then p[0][−1] ... p[2N−1][−1] at 2N + 1 ... 4N.
enum H265IntraPrediction {
    /// intraPredAngle by mode 2...34 (Table 8-5; index mode - 2).
    static let angles: [Int] = [32, 26, 21, 17, 13, 9, 5, 2, 0, -2, -5, -9, -13, -17, -21, -26, -32,
                                -26, -21, -17, -13, -9, -5, -2, 0, 2, 5, 9, 13, 17, 21, 26, 32]
    /// invAngle by mode 11...25 (Table 8-6; index mode - 11).
    static let inverseAngles: [Int] = [-4096, -1638, -910, -630, -482, -390, -315, -256, -315, -390, -482, -630, -910, -1638, -4096]

    /// Substitutes the 4N + 1 references `p` where `available[i]` is false (8.4.4.2.2).
    static func substitute(_ p: UnsafeMutablePointer<Int32>, available: UnsafePointer<Bool>, count n: Int, bitDepth: Int) {
        let total = 4 * n + 1
        guard let firstAvailable = (0..<total).first(where: { available[$0] }) else {
            for i in 0..<total { p[i] = Int32(1 << (bitDepth - 1)) }
            return
        }
        if !available[0] { p[0] = p[firstAvailable] }
        for i in 1..<total where !available[i] { p[i] = p[i - 1] }
    }

    /// Whether 8.4.4.2.3 filters the references of an N x N block predicted with `mode` (luma only in 4:2:0).
    static func filters(count n: Int, mode: Int) -> Bool {
        guard mode != 1, n != 4 else { return false }
        let minDistVerHor = min(abs(mode - 26), abs(mode - 10))
        let threshold = n == 8 ? 7 : n == 16 ? 1 : 0
        return mode == 0 || minDistVerHor > threshold
    }

    /// The filtered references pF of 8.4.4.2.3 (the same for every mode that ``filters(count:mode:)``), into `f`.
    static func smooth(_ p: UnsafePointer<Int32>, count n: Int, strongSmoothing: Bool, bitDepth: Int, into f: UnsafeMutablePointer<Int32>) {
        let c = 2 * n  // corner
        let bottom = p[0], corner = p[c], right = p[4 * n]
        f[0] = bottom
        f[4 * n] = right
        if strongSmoothing && n == 32 {
            let limit = Int32(1 << (bitDepth - 5))
            if abs(corner + right - 2 * p[c + n]) < limit && abs(corner + bottom - 2 * p[c - n]) < limit {
                f[c] = corner
                for i in 0..<63 {
                    // left column: pF[−1][y] for y = 0...62 at index c − 1 − y
                    f[c - 1 - i] = ((63 - Int32(i)) * corner + (Int32(i) + 1) * bottom + 32) >> 6
                    f[c + 1 + i] = ((63 - Int32(i)) * corner + (Int32(i) + 1) * right + 32) >> 6
                }
                return
            }
        }
        for i in 1..<(4 * n) { f[i] = (p[i - 1] &+ 2 &* p[i] &+ p[i + 1] &+ 2) &>> 2 }
    }

    /// Predicts an N x N block (raster into `out`) from references `p` (filtered as the mode requires).
    /// `edgeFilters`: luma below 32x32 (DC edges, modes 10 and 26 boundary smoothing).
    static func predict(_ p: UnsafePointer<Int32>, count n: Int, log2: Int, mode: Int, edgeFilters: Bool, bitDepth: Int,
                        into out: UnsafeMutablePointer<Int32>) {
        let c = 2 * n
        @inline(__always) func left(_ y: Int) -> Int32 { p[c - 1 - y] }   // p[−1][y], y = −1...2N−1
        @inline(__always) func top(_ x: Int) -> Int32 { p[c + 1 + x] }    // p[x][−1], x = −1...2N−1
        let maxValue = Int32((1 << bitDepth) - 1)
        switch mode {
        case 0:
            // 8-54: (N−1−x)·p[−1][y] + (x+1)·p[N][−1] + (N−1−y)·p[x][−1] + (y+1)·p[−1][N] + N, as N·p[−1][y] + N plus
            // (x+1)·(p[N][−1] − p[−1][y]) along a row and N·p[x][−1] plus (y+1)·(p[−1][N] − p[x][−1]) down a column.
            let shift = Int32(log2 + 1)
            let topRight = top(n), bottomLeft = left(n)
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: n) { buffer in
                guard let vertical = buffer.baseAddress else { return }
                for x in 0..<n { vertical[x] = Int32(n) &* top(x) }
                for y in 0..<n {
                    let row = out + y * n
                    let step = topRight &- left(y)
                    var horizontal = Int32(n) &* left(y) &+ Int32(n)
                    for x in 0..<n {
                        vertical[x] &+= bottomLeft &- top(x)
                        horizontal &+= step
                        row[x] = (vertical[x] &+ horizontal) &>> shift
                    }
                }
            }
        case 1:
            var sum = Int32(n)
            for i in 0..<n { sum &+= left(i) &+ top(i) }
            let dc = sum >> Int32(log2 + 1)
            for i in 0..<(n * n) { out[i] = dc }
            if edgeFilters {
                out[0] = (left(0) + 2 * dc + top(0) + 2) >> 2
                for x in 1..<n { out[x] = (top(x) + 3 * dc + 2) >> 2 }
                for y in 1..<n { out[y * n] = (left(y) + 3 * dc + 2) >> 2 }
            }
        default:
            let angle = angles[mode - 2]
            let vertical = mode >= 18
            // ref[x] at ref[o + x], x = −N...2N; then, for horizontal modes, the block transposed.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * n + 1 + (vertical ? 0 : n * n)) { buffer in
                guard let ref = buffer.baseAddress else { return }
                let o = n
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
                let rows = vertical ? out : ref + 3 * n + 1
                for j in 0..<n {
                    let position = (j + 1) * angle
                    let fact = Int32(position & 31)
                    let r = ref + o + (position >> 5) + 1, row = rows + j * n
                    if fact == 0 {
                        for i in 0..<n { row[i] = r[i] }
                    } else {
                        for i in 0..<n { row[i] = ((32 &- fact) &* r[i] &+ fact &* r[i + 1] &+ 16) &>> 5 }
                    }
                }
                if !vertical {
                    for j in 0..<n { for i in 0..<n { out[i * n + j] = rows[j * n + i] } }
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
