/// Fractional sample interpolation (8.5.3.3.3) and default weighted sample prediction (8.5.3.3.4.2).
enum H265MotionCompensation {
    /// fL (Table 8-11) by xFrac 1...3.
    static let lumaFilter: [[Int32]] = [[-1, 4, -10, 58, 17, -5, 1, 0], [-1, 4, -11, 40, 40, -11, 4, -1], [0, 1, -5, 17, 58, -10, 4, -1]]
    /// fC (Table 8-12) by xFrac 1...7.
    static let chromaFilter: [[Int32]] = [[-2, 58, 10, -2], [-4, 54, 16, -2], [-6, 46, 28, -4], [-4, 36, 36, -4],
                                          [-4, 28, 46, -6], [-2, 16, 54, -4], [-2, 10, 58, -2]]

    /// The intermediate prediction (14-bit) of a w x h block of `plane` (pw x ph) at integer position
    /// (x, y) plus fraction (fx, fy) in units of 1/4 (luma, `taps` 8) or 1/8 (chroma, `taps` 4).
    static func predict(_ plane: [UInt16], pw: Int, ph: Int, x: Int, y: Int, fx: Int, fy: Int, w: Int, h: Int,
                        luma: Bool, bitDepth: Int, into out: inout [Int32]) {
        let taps = luma ? 8 : 4
        let half = luma ? 3 : 1
        let shift1 = Int32(min(4, bitDepth - 8)), shift3 = Int32(max(2, 14 - bitDepth))
        @inline(__always) func sample(_ sx: Int, _ sy: Int) -> Int32 {
            Int32(plane[min(max(sy, 0), ph - 1) * pw + min(max(sx, 0), pw - 1)])
        }
        if fx == 0 && fy == 0 {
            for j in 0..<h { for i in 0..<w { out[j * w + i] = sample(x + i, y + j) << shift3 } }
            return
        }
        let fX = fx == 0 ? [] : (luma ? lumaFilter[fx - 1] : chromaFilter[fx - 1])
        let fY = fy == 0 ? [] : (luma ? lumaFilter[fy - 1] : chromaFilter[fy - 1])
        if fy == 0 {
            for j in 0..<h {
                for i in 0..<w {
                    var s: Int32 = 0
                    for k in 0..<taps { s += fX[k] * sample(x + i + k - half, y + j) }
                    out[j * w + i] = s >> shift1
                }
            }
            return
        }
        if fx == 0 {
            for j in 0..<h {
                for i in 0..<w {
                    var s: Int32 = 0
                    for k in 0..<taps { s += fY[k] * sample(x + i, y + j + k - half) }
                    out[j * w + i] = s >> shift1
                }
            }
            return
        }
        let rows = h + taps - 1
        var temp = [Int32](repeating: 0, count: rows * w)
        for r in 0..<rows {
            for i in 0..<w {
                var s: Int32 = 0
                for k in 0..<taps { s += fX[k] * sample(x + i + k - half, y + r - half) }
                temp[r * w + i] = s >> shift1
            }
        }
        for j in 0..<h {
            for i in 0..<w {
                var s: Int32 = 0
                for k in 0..<taps { s += fY[k] * temp[(j + k) * w + i] }
                out[j * w + i] = s >> 6
            }
        }
    }

    /// Default weighted prediction: one list, or the average of two, back to sample values.
    static func weighted(_ p0: [Int32], _ p1: [Int32]?, count: Int, bitDepth: Int, into out: inout [Int32]) {
        let maxValue = Int32((1 << bitDepth) - 1)
        if let p1 {
            let shift = Int32(15 - bitDepth), offset = Int32(1) << (shift - 1)
            for i in 0..<count { out[i] = min(max((p0[i] + p1[i] + offset) >> shift, 0), maxValue) }
        } else {
            let shift = Int32(14 - bitDepth), offset = Int32(1) << (shift - 1)
            for i in 0..<count { out[i] = min(max((p0[i] + offset) >> shift, 0), maxValue) }
        }
    }
}
