/// The transforms and scaling of 8.6: the inverse DCT (sizes 4 to 32) and DST (4x4 intra luma) exactly as a
/// decoder computes them, their forward counterparts for the encoder, and quantisation.
enum H265Transform {
    /// cos((π/64)·a) scaled as the Recommendation's transMatrix (8-319) for a = 0...32.
    private static let quarterWave: [Int] = [64, 90, 90, 90, 89, 88, 87, 85, 83, 82, 80, 78, 75, 73, 70, 67, 64, 61, 57, 54, 50, 46,
                                             43, 38, 36, 31, 25, 22, 18, 13, 9, 4, 0]

    /// transMatrix of the 32-point transform, `[k][n]` (8.6.4.2); smaller sizes take rows k·32/N.
    static let matrix32: [[Int32]] = (0..<32).map { k in
        (0..<32).map { n in
            if k == 0 { return 64 }
            let a = (k * (2 * n + 1)) % 128
            let v: Int
            switch a {
            case 0...32: v = quarterWave[a]
            case 33...64: v = -quarterWave[64 - a]
            case 65...96: v = -quarterWave[a - 64]
            default: v = quarterWave[128 - a]
            }
            return Int32(v)
        }
    }

    /// The N-point matrix, `[k * N + n]`.
    static let matrices: [[Int32]] = (2...5).map { log2 in
        let n = 1 << log2
        var m = [Int32](repeating: 0, count: n * n)
        for k in 0..<n { for j in 0..<n { m[k * n + j] = matrix32[k * (32 / n)][j] } }
        return m
    }

    /// The DST-VII matrix of 4x4 intra luma blocks (8-317), `[k * 4 + n]`.
    static let dst: [Int32] = [29, 55, 74, 84, 74, 74, 0, -74, 84, -29, -74, 55, 55, -84, 74, -29]

    /// levelScale (8.6.3).
    static let levelScale: [Int32] = [40, 45, 51, 57, 64, 72]
    /// Forward quantiser scales (the inverse of levelScale: 2^20 / levelScale / 64 · 2^6).
    static let quantScale: [Int32] = [26214, 23302, 20560, 18396, 16384, 14564]

    /// Scaling (8.6.3, flat m = 16, no scaling lists) then the inverse transform (8.6.4.2) of the levels
    /// `c` into residuals `r` (both raster, N x N). `dst`: the 4x4 DST.
    static func inverse(_ c: [Int32], log2: Int, qp: Int, bitDepth: Int, dst useDST: Bool, into r: inout [Int32]) {
        let n = 1 << log2
        let bdShift = bitDepth + log2 - 5
        let scale = levelScale[qp % 6] << Int32(qp / 6)
        var d = [Int32](repeating: 0, count: n * n)
        let add = Int64(1) << Int64(bdShift - 1)
        var anyNonZero = false
        for i in 0..<(n * n) where c[i] != 0 {
            let v = (Int64(c[i]) * Int64(scale) * 16 + add) >> Int64(bdShift)
            d[i] = Int32(min(max(v, -32768), 32767))
            anyNonZero = true
        }
        if !anyNonZero {
            for i in 0..<(n * n) { r[i] = 0 }
            return
        }
        let m = useDST ? dst : matrices[log2 - 2]
        // Columns (vertical 1-D transforms), then clip to 16 bits.
        var g = [Int32](repeating: 0, count: n * n)
        for x in 0..<n {
            for y in 0..<n {
                var sum: Int64 = 0
                for k in 0..<n {
                    let coefficient = d[k * n + x]
                    if coefficient != 0 { sum += Int64(m[k * n + y]) * Int64(coefficient) }
                }
                g[y * n + x] = Int32(min(max((sum + 64) >> 7, -32768), 32767))
            }
        }
        // Rows (horizontal), then bdShift 20 - BitDepth.
        let shift2 = Int64(20 - bitDepth)
        let add2 = Int64(1) << (shift2 - 1)
        for y in 0..<n {
            for x in 0..<n {
                var sum: Int64 = 0
                for k in 0..<n {
                    let coefficient = g[y * n + k]
                    if coefficient != 0 { sum += Int64(m[k * n + x]) * Int64(coefficient) }
                }
                r[y * n + x] = Int32((sum + add2) >> shift2)
            }
        }
    }

    /// Forward transform of residuals `r` into coefficients (HM's scaling: shifts log2 + bitDepth − 9, then log2 + 6).
    static func forward(_ r: [Int32], log2: Int, bitDepth: Int, dst useDST: Bool) -> [Int32] {
        let n = 1 << log2
        let m = useDST ? dst : matrices[log2 - 2]
        let shift1 = Int64(log2 + bitDepth - 9), shift2 = Int64(log2 + 6)
        var t = [Int32](repeating: 0, count: n * n)
        // Rows: t[y][k] = Σ_x m[k][x] r[y][x]
        for y in 0..<n {
            for k in 0..<n {
                var sum: Int64 = 0
                for x in 0..<n { sum += Int64(m[k * n + x]) * Int64(r[y * n + x]) }
                t[y * n + k] = Int32((sum + (1 << (shift1 - 1))) >> shift1)
            }
        }
        var out = [Int32](repeating: 0, count: n * n)
        for x in 0..<n {
            for k in 0..<n {
                var sum: Int64 = 0
                for y in 0..<n { sum += Int64(m[k * n + y]) * Int64(t[y * n + x]) }
                out[k * n + x] = Int32((sum + (1 << (shift2 - 1))) >> shift2)
            }
        }
        return out
    }

    /// Dead-zone quantisation of forward-transform output to levels; `intra` rounds by 1/3, inter by 1/6.
    static func quantise(_ coefficients: [Int32], log2: Int, qp: Int, bitDepth: Int, intra: Bool) -> [Int32] {
        let transformShift = 15 - bitDepth - log2
        let qBits = 14 + qp / 6 + transformShift
        let scale = Int64(quantScale[qp % 6])
        let offset = Int64(intra ? 171 : 85) << Int64(qBits - 9)
        return coefficients.map { c in
            let level = (Int64(abs(c)) * scale + offset) >> Int64(qBits)
            let clipped = Int32(min(level, 32767))
            return c < 0 ? -clipped : clipped
        }
    }
}
