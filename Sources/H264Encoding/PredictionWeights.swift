import H264Bitstream

/// Weighted sample prediction of one slice (8.4.2.3): what the prediction from each reference, or pair of
/// references, is scaled by. Explicit from the slice's pred_weight_table (PPS weighted_pred_flag in P slices,
/// weighted_bipred_idc 1 in B slices), implicit from POC distances (weighted_bipred_idc 2 in B slices, 8.4.3),
/// or the default prediction.
struct PredictionWeights {
    enum Mode { case none, explicit, implicit }

    /// One reference's weight and offset for Y, Cb and Cr (7.4.3.2; an entry whose flag is 0 has weight
    /// 2^logWD and offset 0; offsets scaled by 1 << (BitDepth − 8), which is 1 here).
    struct Entry: Equatable {
        var weight: SIMD3<Int32>
        var offset: SIMD3<Int32>
    }

    private(set) var mode = Mode.none
    /// logWD of luma and of both chroma components (8-303, 8-304).
    private(set) var logWD = SIMD3<Int32>(repeating: 5)
    /// Explicit: per list, per refIdx.
    private var entries: [[Entry]] = [[], []]
    /// Implicit: w1 of each (refIdxL0, refIdxL1) pair, rows by refIdxL0; w0 = 64 − w1 (8-308).
    private var implicitW1: [Int32] = []
    private var implicitColumns = 0

    init() {}

    /// The weights of a slice of `type`, checked against 7.4.2.2 and 7.4.3.2. `current` is the picture's
    /// PicOrderCnt, the lists its references.
    init(pps: PictureParameterSet, header: SliceHeader, type: SliceType, current: Int,
         list0: [ReferencePicture], list1: [ReferencePicture]) throws(EncodingError) {
        guard (0...2).contains(pps.weightedBipredIdc) else { throw .inconsistent("weighted_bipred_idc \(pps.weightedBipredIdc) outside 0...2") }
        if type == .b && pps.weightedBipredIdc == 2 {
            mode = .implicit
            implicitColumns = list1.count
            implicitW1 = list0.flatMap { p0 in list1.map { p1 in Self.implicitW1(current: current, p0, p1) } }
            return
        }
        guard (type == .p && pps.weightedPredFlag) || (type == .b && pps.weightedBipredIdc == 1) else { return }
        guard let table = header.predWeightTable else { throw .inconsistent("explicit weighted prediction without a pred_weight_table") }
        guard (0...7).contains(table.lumaLog2WeightDenom), (0...7).contains(table.chromaLog2WeightDenom) else {
            throw .inconsistent("luma_log2_weight_denom \(table.lumaLog2WeightDenom) / chroma_log2_weight_denom \(table.chromaLog2WeightDenom) outside 0...7")
        }
        mode = .explicit
        logWD = SIMD3(Int32(table.lumaLog2WeightDenom), Int32(table.chromaLog2WeightDenom), Int32(table.chromaLog2WeightDenom))
        for (list, (rows, count)) in [(table.l0, list0.count), (table.l1, list1.count)].enumerated() where count > 0 {
            guard rows.count >= count else { throw .inconsistent("pred_weight_table has \(rows.count) list \(list) entries for \(count) references") }
            for (i, e) in rows.prefix(count).enumerated() { entries[list].append(try entry(e, list: list, index: i)) }
        }
        // 8.4.2.3.2: with both lists, −128 <= w0 + w1 <= (logWD == 7 ? 127 : 128).
        for a in entries[0] {
            for b in entries[1] {
                let sum = a.weight &+ b.weight
                for c in 0..<3 where sum[c] < -128 || sum[c] > (logWD[c] == 7 ? 127 : 128) {
                    throw .inconsistent("explicit weights \(a.weight[c]) + \(b.weight[c]) outside 8.4.2.3.2's range")
                }
            }
        }
    }

    private func entry(_ e: PredWeightTable.Entry, list: Int, index: Int) throws(EncodingError) -> Entry {
        let luma = e.lumaWeightFlag ? (e.lumaWeight, e.lumaOffset) : (1 << Int(logWD[0]), 0)
        let cb = e.chromaWeightFlag ? (e.chromaWeight[0], e.chromaOffset[0]) : (1 << Int(logWD[1]), 0)
        let cr = e.chromaWeightFlag ? (e.chromaWeight[1], e.chromaOffset[1]) : (1 << Int(logWD[2]), 0)
        for (w, o) in [luma, cb, cr] where !(-128...127).contains(w) || !(-128...127).contains(o) {
            throw .inconsistent("list \(list) entry \(index): weight \(w) / offset \(o) outside -128...127 (7.4.3.2)")
        }
        return Entry(weight: SIMD3(Int32(luma.0), Int32(cb.0), Int32(cr.0)), offset: SIMD3(Int32(luma.1), Int32(cb.1), Int32(cr.1)))
    }

    /// w1 of implicit mode (8.4.3): DistScaleFactor >> 2 of 8.4.1.2.3 from the POCs, or 32 where the pictures
    /// are the same distance apart in POC as nothing (DiffPicOrderCnt(pic1, pic0) = 0), a long-term reference
    /// is involved, or the factor leaves −64...128.
    static func implicitW1(current: Int, _ p0: ReferencePicture, _ p1: ReferencePicture) -> Int32 {
        let td = min(max(p1.picOrderCnt - p0.picOrderCnt, -128), 127)
        guard td != 0, !p0.isLongTerm, !p1.isLongTerm else { return 32 }
        let tb = min(max(current - p0.picOrderCnt, -128), 127)
        let tx = (16384 + abs(td / 2)) / td
        let distScaleFactor = min(max((tb * tx + 32) >> 6, -1024), 1023)
        let w1 = distScaleFactor >> 2
        return w1 < -64 || w1 > 128 ? 32 : Int32(w1)
    }

    /// Whether the prediction from one list, `refIdx`, is scaled (explicit mode with other than the default weights).
    @inline(__always) func weightsSingle(list: Int, refIdx: Int) -> Bool {
        mode == .explicit && entries[list][refIdx] != Entry(weight: SIMD3(1, 1, 1) &<< logWD, offset: .zero)
    }

    /// The prediction from one list (8-299, 8-300), in place: `y` 256 samples, `cb` and `cr` 64.
    func applySingle(list: Int, refIdx: Int, y: UnsafeMutablePointer<UInt8>?, cb: UnsafeMutablePointer<UInt8>?,
                     cr: UnsafeMutablePointer<UInt8>?) {
        guard weightsSingle(list: list, refIdx: refIdx) else { return }
        let e = entries[list][refIdx]
        for (c, plane, count) in [(0, y, 256), (1, cb, 64), (2, cr, 64)] {
            guard let plane else { continue }
            let w = e.weight[c], o = e.offset[c], shift = logWD[c]
            let round: Int32 = shift >= 1 ? 1 << (shift - 1) : 0
            for i in 0..<count { plane[i] = InterPrediction.clip(((Int32(plane[i]) * w + round) >> shift) + o) }
        }
    }

    /// The prediction from both lists (8-301, or the default 8-297 without weights) into `y`, `cb`, `cr` (list
    /// 0's prediction), with list 1's in `y1`, `cb1`, `cr1`. Chroma planes may be nil (luma alone, for a search).
    func applyBi(refIdx0: Int, refIdx1: Int, y: UnsafeMutablePointer<UInt8>, _ y1: UnsafePointer<UInt8>,
                 cb: UnsafeMutablePointer<UInt8>? = nil, _ cb1: UnsafePointer<UInt8>? = nil,
                 cr: UnsafeMutablePointer<UInt8>? = nil, _ cr1: UnsafePointer<UInt8>? = nil) {
        applyBi(refIdx0: refIdx0, refIdx1: refIdx1, list0: y, list1: y1, into: y, component: 0, count: 256)
        if let cb, let cb1 { applyBi(refIdx0: refIdx0, refIdx1: refIdx1, list0: cb, list1: cb1, into: cb, component: 1, count: 64) }
        if let cr, let cr1 { applyBi(refIdx0: refIdx0, refIdx1: refIdx1, list0: cr, list1: cr1, into: cr, component: 2, count: 64) }
    }

    /// Luma of both lists into `dst`, which holds one of them (`dstIsList0` says which; the other is in `other`).
    func applyBiLuma(refIdx0: Int, refIdx1: Int, _ dst: UnsafeMutablePointer<UInt8>, other: UnsafePointer<UInt8>, dstIsList0: Bool) {
        if dstIsList0 {
            applyBi(refIdx0: refIdx0, refIdx1: refIdx1, list0: dst, list1: other, into: dst, component: 0, count: 256)
        } else {
            applyBi(refIdx0: refIdx0, refIdx1: refIdx1, list0: other, list1: dst, into: dst, component: 0, count: 256)
        }
    }

    private func applyBi(refIdx0: Int, refIdx1: Int, list0 a: UnsafePointer<UInt8>, list1 b: UnsafePointer<UInt8>,
                         into dst: UnsafeMutablePointer<UInt8>, component c: Int, count: Int) {
        switch mode {
        case .none:
            InterPrediction.average(dst, UnsafePointer(dst) == a ? b : a, count: count)
        case .implicit:
            let w1 = implicitW1[refIdx0 * implicitColumns + refIdx1]
            if w1 == 32 {
                InterPrediction.average(dst, UnsafePointer(dst) == a ? b : a, count: count)
            } else {
                InterPrediction.weightedAverage(a, b, into: dst, w0: Int16(64 - w1), w1: Int16(w1), count: count)
            }
        case .explicit:
            let e0 = entries[0][refIdx0], e1 = entries[1][refIdx1]
            let w0 = e0.weight[c], w1 = e1.weight[c], shift = logWD[c] + 1, round = Int32(1) << logWD[c]
            let offset = (e0.offset[c] + e1.offset[c] + 1) >> 1
            for i in 0..<count { dst[i] = InterPrediction.clip(((Int32(a[i]) * w0 + Int32(b[i]) * w1 + round) >> shift) + offset) }
        }
    }
}

extension InterPrediction {
    /// Implicit weighted bi-prediction (8-301 with logWD 5 and no offsets): Clip1((a·w0 + b·w1 + 32) >> 6), w0 + w1 = 64
    /// with both in −64...128, so every sum fits 16 bits. `dst` may be `a` or `b`.
    static func weightedAverage(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>,
                                w0: Int16, w1: Int16, count: Int) {
        var i = 0
        let v0 = SIMD8<Int16>(repeating: w0), v1 = SIMD8<Int16>(repeating: w1), rounding = SIMD8<Int16>(repeating: 32)
        @inline(__always) func weigh(_ p: SIMD8<Int16>, _ q: SIMD8<Int16>) -> SIMD8<Int16> {
            let sum: SIMD8<Int16> = p &* v0 &+ q &* v1
            return (sum &+ rounding) &>> 6
        }
        @inline(__always) func clip(_ x: SIMD8<Int16>) -> SIMD8<Int16> {
            let positive = x & ~(x &>> 15)
            let over = (255 &- positive) &>> 15  // −1 above 255
            return (positive & ~over) | (255 & over)
        }
        while i + 16 <= count {
            let x = split(a + i), y = split(b + i)
            let even: SIMD8<Int16> = weigh(x.even, y.even), odd: SIMD8<Int16> = weigh(x.odd, y.odd)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: clip(even) | (clip(odd) &<< 8), as: SIMD8<Int16>.self)
            i += 16
        }
        while i < count {
            let v: Int32 = Int32(a[i]) * Int32(w0) + Int32(b[i]) * Int32(w1) + 32
            dst[i] = InterPrediction.clip(v >> 6)
            i += 1
        }
    }
}
