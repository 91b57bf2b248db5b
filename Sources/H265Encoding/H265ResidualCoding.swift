/// residual_coding() (7.3.8.11) of one transform block, and the sign data hiding that the levels must
/// satisfy before it (7.4.9.11).
extension H265SyntaxWriter {
    /// ctxIdxMap of 9.3.4.2.5 for 4x4 blocks.
    private static let ctxIdxMap: [Int] = [0, 1, 4, 5, 2, 3, 4, 5, 6, 6, 8, 8, 7, 7, 8, 8]
    private static let groupIdx: [Int] = [0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9]
    private static let minInGroup: [Int] = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24]

    /// Codes the levels `c` (raster order, `c[y << log2 | x]`), at least one not zero.
    mutating func residualCoding(_ c: [Int32], log2: Int, cIdx: Int, scanIdx: Int, signHiding: Bool) {
        let scan = H265ScanOrder.all[log2 - 2][scanIdx]
        let sbWidth = 1 << (log2 - 2)
        // The last significant position in scan order.
        var lastSub = -1, lastPos = -1
        search: for i in stride(from: scan.subBlocks.count - 1, through: 0, by: -1) {
            let s = scan.subBlocks[i]
            for n in stride(from: 15, through: 0, by: -1) {
                let p = scan.positions[n]
                if c[((s.y << 2) + p.y) << log2 | ((s.x << 2) + p.x)] != 0 { lastSub = i; lastPos = n; break search }
            }
        }
        guard lastSub >= 0 else { return }
        let ls = scan.subBlocks[lastSub], lp = scan.positions[lastPos]
        var lastX = (ls.x << 2) + lp.x, lastY = (ls.y << 2) + lp.y
        if scanIdx == 2 { swap(&lastX, &lastY) }
        lastSignificantPrefixSuffix(lastX, lastY, log2: log2, cIdx: cIdx)

        var csbf = [Bool](repeating: false, count: sbWidth * sbWidth)
        var greater1Ctx = 1
        var sig = [Int](repeating: 0, count: 16)  // positions n with a level, decreasing
        for i in stride(from: lastSub, through: 0, by: -1) {
            let s = scan.subBlocks[i]
            let right = s.x < sbWidth - 1 && csbf[s.y * sbWidth + s.x + 1]
            let below = s.y < sbWidth - 1 && csbf[(s.y + 1) * sbWidth + s.x]
            var inferDC = false
            if i < lastSub && i > 0 {
                var any = false
                for n in 0..<16 {
                    let p = scan.positions[n]
                    if c[((s.y << 2) + p.y) << log2 | ((s.x << 2) + p.x)] != 0 { any = true; break }
                }
                bin(any, H265Context.codedSubBlockFlag + ((right || below) ? 1 : 0) + (cIdx > 0 ? 2 : 0))
                csbf[s.y * sbWidth + s.x] = any
                inferDC = true
            } else {
                csbf[s.y * sbWidth + s.x] = true
            }
            var count = 0
            if i == lastSub { sig[0] = lastPos; count = 1 }
            if csbf[s.y * sbWidth + s.x] {
                let prevCsbf = (right ? 1 : 0) | (below ? 2 : 0)
                let start = i == lastSub ? lastPos - 1 : 15
                if start >= 0 {
                    for n in stride(from: start, through: 0, by: -1) {
                        let p = scan.positions[n]
                        let xC = (s.x << 2) + p.x, yC = (s.y << 2) + p.y
                        let level = c[yC << log2 | xC]
                        if n > 0 || !inferDC {
                            let ctx = Self.sigCtx(xC: xC, yC: yC, xP: p.x, yP: p.y, log2: log2, cIdx: cIdx, scanIdx: scanIdx,
                                                  prevCsbf: prevCsbf)
                            bin(level != 0, H265Context.sigCoeffFlag + ctx)
                            if level != 0 { sig[count] = n; count += 1; inferDC = false }
                        } else {
                            sig[count] = 0
                            count += 1
                        }
                    }
                }
            }
            guard count > 0 else { continue }
            // Levels of the sub-block (7.3.8.11, 9.3.4.2.6, 9.3.4.2.7).
            var ctxSet = (i == 0 || cIdx > 0) ? 0 : 2
            if i != lastSub && greater1Ctx == 0 { ctxSet += 1 }
            greater1Ctx = 1
            var firstGreater1 = -1
            var levels = [Int32](repeating: 0, count: 16)
            for m in 0..<count {
                let p = scan.positions[sig[m]]
                levels[m] = c[((s.y << 2) + p.y) << log2 | ((s.x << 2) + p.x)]
            }
            for m in 0..<min(count, 8) {
                let g1 = abs(levels[m]) > 1
                bin(g1, H265Context.coeffAbsLevelGreater1Flag + (cIdx > 0 ? 16 : 0) + (ctxSet << 2) + greater1Ctx)
                if g1 {
                    greater1Ctx = 0
                    if firstGreater1 < 0 { firstGreater1 = m }
                } else if greater1Ctx > 0 && greater1Ctx < 3 {
                    greater1Ctx += 1
                }
            }
            if firstGreater1 >= 0 {
                bin(abs(levels[firstGreater1]) > 2, H265Context.coeffAbsLevelGreater2Flag + (cIdx > 0 ? 4 : 0) + ctxSet)
            }
            let hidden = signHiding && sig[0] - sig[count - 1] > 3
            for m in 0..<count where !(hidden && m == count - 1) { bypass(levels[m] < 0) }
            var rice = 0
            for m in 0..<count {
                let a = Int(abs(levels[m]))
                let base: Int, threshold: Int
                if m < 8 {
                    base = 1 + (a > 1 ? 1 : 0) + (m == firstGreater1 && a > 2 ? 1 : 0)
                    threshold = m == firstGreater1 ? 3 : 2
                } else {
                    base = 1
                    threshold = 1
                }
                if base == threshold {
                    levelRemaining(a - base, rice: rice)
                    if a > 3 * (1 << rice) { rice = min(rice + 1, 4) }
                }
            }
        }
    }

    /// coeff_abs_level_remaining (9.3.3.11): a TR prefix of cMax 4 << rice, then EG(rice + 1).
    private mutating func levelRemaining(_ value: Int, rice: Int) {
        if value < (3 << rice) {
            let q = value >> rice
            for _ in 0..<q { bypass(true) }
            bypass(false)
            if rice > 0 { bypassBits(value & ((1 << rice) - 1), rice) }
        } else {
            var p = 3
            while value >= ((1 << (p - 2)) + 2) << rice { p += 1 }
            for _ in 0..<p { bypass(true) }
            bypass(false)
            let suffix = value - (((1 << (p - 3)) + 2) << rice)
            let bits = p - 3 + rice
            if bits > 0 { bypassBits(suffix, bits) }
        }
    }

    /// last_sig_coeff_{x,y}_prefix (TR, contexts of 9.3.4.2.3) then their suffixes (FL, bypass).
    private mutating func lastSignificantPrefixSuffix(_ x: Int, _ y: Int, log2: Int, cIdx: Int) {
        let offset = cIdx == 0 ? 3 * (log2 - 2) + ((log2 - 1) >> 2) : 15
        let shift = cIdx == 0 ? (log2 + 1) >> 2 : log2 - 2
        let cMax = (log2 << 1) - 1
        let px = Self.groupIdx[x], py = Self.groupIdx[y]
        for (prefix, base) in [(px, H265Context.lastSigCoeffXPrefix), (py, H265Context.lastSigCoeffYPrefix)] {
            for i in 0..<min(prefix + 1, cMax) { bin(i < prefix, base + offset + (i >> shift)) }
        }
        if px > 3 { bypassBits(x - Self.minInGroup[px], (px >> 1) - 1) }
        if py > 3 { bypassBits(y - Self.minInGroup[py], (py >> 1) - 1) }
    }

    /// sigCtx of 9.3.4.2.5 (transform_skip_context_enabled_flag 0), plus 27 for chroma.
    @inline(__always)
    private static func sigCtx(xC: Int, yC: Int, xP: Int, yP: Int, log2: Int, cIdx: Int, scanIdx: Int, prevCsbf: Int) -> Int {
        var sigCtx: Int
        if log2 == 2 {
            sigCtx = ctxIdxMap[(yC << 2) + xC]
        } else if xC + yC == 0 {
            sigCtx = 0
        } else {
            switch prevCsbf {
            case 0: sigCtx = xP + yP == 0 ? 2 : xP + yP < 3 ? 1 : 0
            case 1: sigCtx = yP == 0 ? 2 : yP == 1 ? 1 : 0
            case 2: sigCtx = xP == 0 ? 2 : xP == 1 ? 1 : 0
            default: sigCtx = 2
            }
            if cIdx == 0 {
                if (xC >> 2) + (yC >> 2) > 0 { sigCtx += 3 }
                sigCtx += log2 == 3 ? (scanIdx == 0 ? 9 : 15) : 21
            } else {
                sigCtx += log2 == 3 ? 9 : 12
            }
        }
        return cIdx == 0 ? sigCtx : 27 + sigCtx
    }

    /// Makes the levels `c` satisfy sign data hiding (7.4.9.11): in each sub-block whose first and last
    /// levels are more than 3 scan positions apart, the parity of the sum of magnitudes must give the
    /// first level's sign (odd: negative). Where it does not, the last level's magnitude moves by one.
    /// Returns whether any level changed.
    @discardableResult
    static func hideSigns(_ c: inout [Int32], log2: Int, scanIdx: Int) -> Bool {
        let scan = H265ScanOrder.all[log2 - 2][scanIdx]
        var changed = false
        for s in scan.subBlocks {
            var first = -1, last = -1, sum: Int32 = 0
            for n in 0..<16 {
                let p = scan.positions[n]
                let v = c[((s.y << 2) + p.y) << log2 | ((s.x << 2) + p.x)]
                if v != 0 {
                    if first < 0 { first = n }
                    last = n
                    sum += abs(v)
                }
            }
            guard first >= 0, last - first > 3 else { continue }
            let pf = scan.positions[first]
            let negative = c[((s.y << 2) + pf.y) << log2 | ((s.x << 2) + pf.x)] < 0
            if (sum & 1 == 1) != negative {
                let pl = scan.positions[last]
                let i = ((s.y << 2) + pl.y) << log2 | ((s.x << 2) + pl.x)
                let v = c[i]
                let magnitude = abs(v) > 1 ? abs(v) - 1 : abs(v) + 1
                c[i] = v < 0 ? -magnitude : magnitude
                changed = true
            }
        }
        return changed
    }
}
