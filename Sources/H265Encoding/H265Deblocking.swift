/// The deblocking filter (8.7.2) over a whole reconstructed picture: all vertical edges, then all
/// horizontal ones, on the 8x8 luma grid (chroma: 8x8 chroma grid, bS 2 only).
struct H265Deblocking {
    /// β′ (Table 8-12) by Q 0...51.
    static let betaTable: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24,
                                   26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64]
    /// tC′ (Table 8-12) by Q 0...53.
    static let tcTable: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3,
                                 3, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18, 20, 22, 24]

    /// Per-slice filter controls, from the slice segment header.
    struct SliceControls {
        var disabled: Bool
        var betaOffsetDiv2: Int
        var tcOffsetDiv2: Int
        var acrossSlices: Bool
    }

    /// Boundary strength of the edge between 4x4 blocks `p` and `q` (indices into the block maps), or 0.
    typealias Strength = (_ p: Int, _ q: Int, _ transformEdge: Bool) -> Int

    /// Filters `picture` in place. `edges` marks, per 4x4 block, whether its left (bit 0) and top (bit 1) edges
    /// are transform or prediction block edges (bit 2 and 3: transform block edges among them).
    static func apply(to picture: inout H265EncoderPicture, edges: [UInt8], qp: [Int8], sliceOfBlock: (Int) -> Int,
                      controls: [SliceControls], cbQpOffset: Int, crQpOffset: Int, strength: Strength) {
        let w4 = picture.width >> 2, h4 = picture.height >> 2
        let bitDepth = picture.bitDepth
        let maxValue = Int32((1 << bitDepth) - 1)
        for vertical in [true, false] {
            // Boundary strengths of this direction first: the filter decisions of one edge never depend on another's bS.
            var bs = [UInt8](repeating: 0, count: w4 * h4)
            for by in 0..<h4 {
                for bx in 0..<w4 {
                    let q = by * w4 + bx
                    if vertical ? (bx == 0 || bx & 1 != 0) : (by == 0 || by & 1 != 0) { continue }
                    guard edges[q] & (vertical ? 1 : 2) != 0 else { continue }
                    let p = vertical ? q - 1 : q - w4
                    let sq = sliceOfBlock(q), sp = sliceOfBlock(p)
                    let c = controls[sq]
                    if c.disabled { continue }
                    if sq != sp && !c.acrossSlices { continue }
                    bs[q] = UInt8(strength(p, q, edges[q] & (vertical ? 4 : 8) != 0))
                }
            }
            // Luma.
            picture.luma.withUnsafeMutableBufferPointer { plane in
                let stride = picture.width
                for by in 0..<h4 {
                    for bx in 0..<w4 {
                        let q = by * w4 + bx
                        let strengthValue = Int(bs[q])
                        guard strengthValue > 0 else { continue }
                        let p = vertical ? q - 1 : q - w4
                        let c = controls[sliceOfBlock(q)]
                        let qpL = (Int(qp[q]) + Int(qp[p]) + 1) >> 1
                        let beta = betaTable[min(max(qpL + (c.betaOffsetDiv2 << 1), 0), 51)] << (bitDepth - 8)
                        let tc = tcTable[min(max(qpL + 2 * (strengthValue - 1) + (c.tcOffsetDiv2 << 1), 0), 53)] << (bitDepth - 8)
                        // Sample k of line i across the edge: offset from q0 of line i; step across the edge.
                        let origin = vertical ? (by * 4) * stride + bx * 4 : (by * 4) * stride + bx * 4
                        let across = vertical ? 1 : stride
                        let along = vertical ? stride : 1
                        filterLumaSegment(plane, origin: origin, across: across, along: along, beta: beta, tc: tc, maxValue: maxValue)
                    }
                }
            }
            // Chroma: edges on the 8x8 chroma grid (16 luma), bS 2.
            for (plane, offset) in [(0, cbQpOffset), (1, crQpOffset)] {
                let cw = picture.chromaWidth
                var samples = plane == 0 ? picture.cb : picture.cr
                samples.withUnsafeMutableBufferPointer { s in
                    for by in 0..<h4 {
                        for bx in 0..<w4 {
                            if vertical ? (bx & 3 != 0) : (by & 3 != 0) { continue }
                            let q = by * w4 + bx
                            guard bs[q] == 2 else { continue }
                            let p = vertical ? q - 1 : q - w4
                            let c = controls[sliceOfBlock(q)]
                            let qpi = ((Int(qp[q]) + Int(qp[p]) + 1) >> 1) + offset
                            let qpc = chromaQP(qpi)
                            let tc = tcTable[min(max(qpc + 2 + (c.tcOffsetDiv2 << 1), 0), 53)] << (bitDepth - 8)
                            let origin = (by * 2) * cw + bx * 2
                            let across = vertical ? 1 : cw
                            let along = vertical ? cw : 1
                            for line in 0..<2 {
                                let q0 = origin + line * along
                                let p0v = Int32(s[q0 - across]), p1v = Int32(s[q0 - 2 * across])
                                let q0v = Int32(s[q0]), q1v = Int32(s[q0 + across])
                                let delta = min(max((((q0v - p0v) << 2) + p1v - q1v + 4) >> 3, -Int32(tc)), Int32(tc))
                                s[q0 - across] = UInt16(min(max(p0v + delta, 0), maxValue))
                                s[q0] = UInt16(min(max(q0v - delta, 0), maxValue))
                            }
                        }
                    }
                }
                if plane == 0 { picture.cb = samples } else { picture.cr = samples }
            }
        }
    }

    /// QpC by qPi for ChromaArrayType 1 (Table 8-10).
    static func chromaQP(_ qpi: Int) -> Int {
        if qpi < 30 { return qpi }
        if qpi > 43 { return qpi - 6 }
        return [29, 30, 31, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37][qpi - 30]
    }

    /// Decisions (8.7.2.5.3) and filtering (8.7.2.5.7) of one 4-line luma edge segment.
    private static func filterLumaSegment(_ s: UnsafeMutableBufferPointer<UInt16>, origin: Int, across: Int, along: Int,
                                          beta: Int, tc: Int, maxValue: Int32) {
        @inline(__always) func px(_ line: Int, _ i: Int) -> Int32 { Int32(s[origin + line * along - (i + 1) * across]) }
        @inline(__always) func qx(_ line: Int, _ i: Int) -> Int32 { Int32(s[origin + line * along + i * across]) }
        let dp0 = Int(abs(px(0, 2) - 2 * px(0, 1) + px(0, 0))), dp3 = Int(abs(px(3, 2) - 2 * px(3, 1) + px(3, 0)))
        let dq0 = Int(abs(qx(0, 2) - 2 * qx(0, 1) + qx(0, 0))), dq3 = Int(abs(qx(3, 2) - 2 * qx(3, 1) + qx(3, 0)))
        let dpq0 = dp0 + dq0, dpq3 = dp3 + dq3, dp = dp0 + dp3, dq = dq0 + dq3
        let d = dpq0 + dpq3
        guard d < beta else { return }
        func dSam(_ line: Int, _ dpq: Int) -> Bool {
            2 * dpq < (beta >> 2) && Int(abs(px(line, 3) - px(line, 0)) + abs(qx(line, 0) - qx(line, 3))) < (beta >> 3)
                && Int(abs(px(line, 0) - qx(line, 0))) < ((5 * tc + 1) >> 1)
        }
        let strong = dSam(0, dpq0) && dSam(3, dpq3)
        let dEp = dp < ((beta + (beta >> 1)) >> 3), dEq = dq < ((beta + (beta >> 1)) >> 3)
        let tc32 = Int32(tc)
        for line in 0..<4 {
            let p0 = px(line, 0), p1 = px(line, 1), p2 = px(line, 2), p3 = px(line, 3)
            let q0 = qx(line, 0), q1 = qx(line, 1), q2 = qx(line, 2), q3 = qx(line, 3)
            let base = origin + line * along
            @inline(__always) func setP(_ i: Int, _ v: Int32) { s[base - (i + 1) * across] = UInt16(v) }
            @inline(__always) func setQ(_ i: Int, _ v: Int32) { s[base + i * across] = UInt16(v) }
            if strong {
                let t2 = 2 * tc32
                setP(0, min(max((p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3, p0 - t2), p0 + t2))
                setP(1, min(max((p2 + p1 + p0 + q0 + 2) >> 2, p1 - t2), p1 + t2))
                setP(2, min(max((2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3, p2 - t2), p2 + t2))
                setQ(0, min(max((p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3, q0 - t2), q0 + t2))
                setQ(1, min(max((p0 + q0 + q1 + q2 + 2) >> 2, q1 - t2), q1 + t2))
                setQ(2, min(max((p0 + q0 + q1 + 3 * q2 + 2 * q3 + 4) >> 3, q2 - t2), q2 + t2))
            } else {
                var delta = (9 * (q0 - p0) - 3 * (q1 - p1) + 8) >> 4
                guard abs(delta) < tc32 * 10 else { continue }
                delta = min(max(delta, -tc32), tc32)
                setP(0, min(max(p0 + delta, 0), maxValue))
                setQ(0, min(max(q0 - delta, 0), maxValue))
                if dEp {
                    let dP = min(max((((p2 + p0 + 1) >> 1) - p1 + delta) >> 1, -(tc32 >> 1)), tc32 >> 1)
                    setP(1, min(max(p1 + dP, 0), maxValue))
                }
                if dEq {
                    let dQ = min(max((((q2 + q0 + 1) >> 1) - q1 - delta) >> 1, -(tc32 >> 1)), tc32 >> 1)
                    setQ(1, min(max(q1 + dQ, 0), maxValue))
                }
            }
        }
    }
}
