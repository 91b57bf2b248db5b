/// Fractional sample interpolation (8.5.3.3.3) and default weighted sample prediction (8.5.3.3.4.2).
enum H265MotionCompensation {
    /// fL (Table 8-11) by xFrac 1...3.
    static let lumaFilter: [[Int32]] = [[-1, 4, -10, 58, 17, -5, 1, 0], [-1, 4, -11, 40, 40, -11, 4, -1], [0, 1, -5, 17, 58, -10, 4, -1]]
    /// fC (Table 8-12) by xFrac 1...7.
    static let chromaFilter: [[Int32]] = [[-2, 58, 10, -2], [-4, 54, 16, -2], [-6, 46, 28, -4], [-4, 36, 36, -4],
                                          [-4, 28, 46, -6], [-2, 16, 54, -4], [-2, 10, 58, -2]]

    /// The intermediate prediction (14-bit) of a w x h block of `plane` (pw x ph) at integer position
    /// (x, y) plus fraction (fx, fy) in units of 1/4 (luma, `taps` 8) or 1/8 (chroma, `taps` 4). Samples
    /// outside the plane are the nearest edge samples (8-228, 8-229).
    static func predict(_ plane: [UInt16], pw: Int, ph: Int, x: Int, y: Int, fx: Int, fy: Int, w: Int, h: Int,
                        luma: Bool, bitDepth: Int, into out: inout [Int32]) {
        let taps = luma ? 8 : 4
        let half = luma ? 3 : 1
        // The block with its filter margins, copied (edge-replicated where it leaves the plane).
        let bw = w + taps - 1, bh = h + taps - 1
        let x0 = x - half, y0 = y - half
        var window = [Int32](repeating: 0, count: bw * bh)
        plane.withUnsafeBufferPointer { p in
            window.withUnsafeMutableBufferPointer { win in
                if x0 >= 0, y0 >= 0, x0 + bw <= pw, y0 + bh <= ph {
                    for j in 0..<bh {
                        let row = (y0 + j) * pw + x0
                        for i in 0..<bw { win[j * bw + i] = Int32(p[row + i]) }
                    }
                } else {
                    for j in 0..<bh {
                        let row = min(max(y0 + j, 0), ph - 1) * pw
                        for i in 0..<bw { win[j * bw + i] = Int32(p[row + min(max(x0 + i, 0), pw - 1)]) }
                    }
                }
            }
        }
        let shift1 = Int32(min(4, bitDepth - 8)), shift3 = Int32(max(2, 14 - bitDepth))
        window.withUnsafeBufferPointer { win in
            out.withUnsafeMutableBufferPointer { o in
                if fx == 0 && fy == 0 {
                    for j in 0..<h { for i in 0..<w { o[j * w + i] = win[(j + half) * bw + i + half] << shift3 } }
                    return
                }
                let fX = fx == 0 ? lumaFilter[1] : (luma ? lumaFilter[fx - 1] : chromaFilter[fx - 1])
                let fY = fy == 0 ? lumaFilter[1] : (luma ? lumaFilter[fy - 1] : chromaFilter[fy - 1])
                if fy == 0 {
                    for j in 0..<h {
                        let row = (j + half) * bw
                        for i in 0..<w {
                            var s: Int32 = 0
                            for k in 0..<taps { s += fX[k] * win[row + i + k] }
                            o[j * w + i] = s >> shift1
                        }
                    }
                    return
                }
                if fx == 0 {
                    for j in 0..<h {
                        for i in 0..<w {
                            var s: Int32 = 0
                            for k in 0..<taps { s += fY[k] * win[(j + k) * bw + i + half] }
                            o[j * w + i] = s >> shift1
                        }
                    }
                    return
                }
                var temp = [Int32](repeating: 0, count: bh * w)
                temp.withUnsafeMutableBufferPointer { t in
                    for r in 0..<bh {
                        for i in 0..<w {
                            var s: Int32 = 0
                            for k in 0..<taps { s += fX[k] * win[r * bw + i + k] }
                            t[r * w + i] = s >> shift1
                        }
                    }
                    for j in 0..<h {
                        for i in 0..<w {
                            var s: Int32 = 0
                            for k in 0..<taps { s += fY[k] * t[(j + k) * w + i] }
                            o[j * w + i] = s >> 6
                        }
                    }
                }
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
