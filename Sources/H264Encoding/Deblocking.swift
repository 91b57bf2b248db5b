import Dispatch

/// The deblocking filter (8.7), run over the reconstructed picture after its macroblock loop.
enum Deblocking {
    /// Slice-level control (7.4.3): disable_deblocking_filter_idc and FilterOffsetA/B.
    struct SliceControl {
        var disableIdc: Int
        var offsetA: Int
        var offsetB: Int
    }

    // Table 8-16 and 8-17, indexed by indexA / indexB 0...51. Written out as plain literals, which the
    // compiler lays out as constant data: no lazy initialisation (swift_once) on every edge that reads them.
    static let alpha: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 5, 6,
        7, 8, 9, 10, 12, 13, 15, 17, 20, 22, 25, 28, 32, 36, 40, 45, 50, 56, 63, 71,
        80, 90, 101, 113, 127, 144, 162, 182, 203, 226, 255, 255]
    static let beta: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 3,
        3, 3, 3, 4, 4, 4, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
        13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18]
    /// tC0 for bS 1, 2, 3 at 3 · indexA + bS − 1 (ten values of indexA a line).
    static let tc0: [Int32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1,
        0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 2, 1, 1, 2,
        1, 1, 2, 1, 2, 3, 1, 2, 3, 2, 2, 3, 2, 2, 4, 2, 3, 4, 2, 3, 4, 3, 3, 5, 3, 4, 6, 3, 4, 6,
        4, 5, 7, 4, 5, 8, 4, 6, 9, 5, 7, 10, 6, 8, 11, 6, 8, 13, 7, 10, 14, 8, 11, 16, 9, 12, 18, 10, 13, 20,
        11, 15, 23, 13, 17, 25]

    /// With `threads` > 1 the macroblock rows are filtered as a ``MacroblockRowWavefront``: the same samples.
    static func filterPicture(y: PlanePointer, cb: PlanePointer, cr: PlanePointer, state: UnsafePointer<MacroblockState>,
                              widthInMbs: Int, heightInMbs: Int, slices: [SliceControl], cbQPOffset: Int, crQPOffset: Int,
                              threads: Int = 1) {
        guard threads > 1, heightInMbs > 1 else {
            for mbAddr in 0..<(widthInMbs * heightInMbs) {
                filterMacroblock(mbAddr, y: y, cb: cb, cr: cr, state: state, widthInMbs: widthInMbs, slices: slices,
                                 cbQPOffset: cbQPOffset, crQPOffset: crQPOffset)
            }
            return
        }
        let wavefront = MacroblockRowWavefront(firstMb: 0, macroblockCount: widthInMbs * heightInMbs, widthInMbs: widthInMbs)
        // Unchecked for Sendable: the wavefront orders every access to the planes (above), and concurrentPerform
        // returns only when every thread has.
        nonisolated(unsafe) let planes = (y, cb, cr), shared = state
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            wavefront.forEachMacroblock { mbAddr in
                filterMacroblock(mbAddr, y: planes.0, cb: planes.1, cr: planes.2, state: shared, widthInMbs: widthInMbs, slices: slices,
                                 cbQPOffset: cbQPOffset, crQPOffset: crQPOffset)
            }
        }
    }

    /// The edges of one macroblock (8.7: its left edge, inner vertical edges, top edge, inner horizontal edges).
    @inline(__always)
    private static func filterMacroblock(_ mbAddr: Int, y: PlanePointer, cb: PlanePointer, cr: PlanePointer, state: UnsafePointer<MacroblockState>,
                                         widthInMbs: Int, slices: [SliceControl], cbQPOffset: Int, crQPOffset: Int) {
        // q by address, as p below: a copy of the whole state costs more than the few fields read
        let q = state + mbAddr
        guard q.pointee.kind != .notCoded, q.pointee.slice >= 0 else { return }
        let slice = q.pointee.slice, qQP = Int(q.pointee.qp)
        let control = slices[Int(slice)]
        if control.disableIdc == 1 { return }
        let mbx = mbAddr % widthInMbs, mby = mbAddr / widthInMbs
        let filterLeft = mbx > 0 && (control.disableIdc != 2 || state[mbAddr - 1].slice == slice)
        let filterTop = mby > 0 && (control.disableIdc != 2 || state[mbAddr - widthInMbs].slice == slice)
        @inline(__always) func thresholds(pQP: Int) -> EdgeThresholds {
            EdgeThresholds(pQP: pQP, qQP: qQP, control: control, cbQPOffset: cbQPOffset, crQPOffset: crQPOffset)
        }
        let innerSkipped = !q.pointee.isIntra && q.pointee.nonZero == 0, partitioned = q.pointee.partitioned
        let transform8x8 = q.pointee.transform8x8
        var inner: EdgeThresholds?  // of the edges inside q, worked out at the first one filtered
        for dir in 0..<2 {  // 0: vertical edges, 1: horizontal edges
            let neighbourAddr = dir == 0 ? mbAddr - 1 : mbAddr - widthInMbs
            for edge in 0..<4 {
                if edge == 0 && !(dir == 0 ? filterLeft : filterTop) { continue }
                // inner edges of an inter macroblock with no coefficients: bS 0 throughout (one motion per 8x8 quadrant, so
                // only edge 2 of a partitioned one may differ)
                if edge > 0 && innerSkipped && (!partitioned || edge != 2) { continue }
                // transform_size_8x8_flag: no luma edges inside the 8x8 blocks (8.7), and chroma (4:2:0) has none there
                if edge & 1 == 1 && transform8x8 { continue }
                // p by address: a struct chosen between two would be copied whole at every edge
                let p = state + (edge == 0 ? neighbourAddr : mbAddr)
                let bS = edgeStrength(p: p, q: q, vertical: dir == 0, edge: edge)
                if bS == .zero { continue }
                let t: EdgeThresholds
                if edge == 0 {
                    t = thresholds(pQP: Int(p.pointee.qp))
                } else if let known = inner {
                    t = known
                } else {
                    t = thresholds(pQP: qQP); inner = t
                }
                let lumaStart = dir == 0 ? y.at(16 * mbx + 4 * edge, 16 * mby) : y.at(16 * mbx, 16 * mby + 4 * edge)
                filterEdge(lumaStart, across: dir == 0 ? 1 : y.stride, along: dir == 0 ? y.stride : 1, lines: 16, bS: bS,
                           thresholds: t.luma, chroma: false)
                if edge & 1 == 0 {  // the chroma edge on this one (4:2:0)
                    for component in 0..<2 {
                        let plane = component == 0 ? cb : cr
                        let start = dir == 0 ? plane.at(8 * mbx + 2 * edge, 8 * mby) : plane.at(8 * mbx, 8 * mby + 2 * edge)
                        filterEdge(start, across: dir == 0 ? 1 : plane.stride, along: dir == 0 ? plane.stride : 1, lines: 8, bS: bS,
                                   thresholds: component == 0 ? t.cb : t.cr, chroma: true)
                    }
                }
            }
        }
    }

    /// The thresholds of luma, Cb and Cr across one edge between macroblocks p and q (the same one inside a
    /// macroblock). 8.7.2.2: qPav is the average of the two QPY, or of the two QPC of each chroma component.
    struct EdgeThresholds {
        var luma, cb, cr: Thresholds

        @inline(__always) init(pQP: Int, qQP: Int, control: SliceControl, cbQPOffset: Int, crQPOffset: Int) {
            luma = Thresholds(qPav: (pQP &+ qQP &+ 1) >> 1, control: control)
            @inline(__always) func chroma(_ offset: Int) -> Thresholds {
                let qc = Transform.chromaQP(lumaQP: qQP, offset: offset)
                let pc = pQP == qQP ? qc : Transform.chromaQP(lumaQP: pQP, offset: offset)
                return Thresholds(qPav: (pc &+ qc &+ 1) >> 1, control: control)
            }
            cb = chroma(cbQPOffset)
            cr = crQPOffset == cbQPOffset ? cb : chroma(crQPOffset)
        }
    }

    /// alpha, beta (Table 8-16) and tC0 for bS 1, 2, 3 (Table 8-17) of one edge's indexA and indexB (8.7.2.2).
    struct Thresholds {
        var alpha, beta: Int32
        var tc0: SIMD3<Int32>

        /// At qPav. Where alpha or beta is 0 nothing is filtered (filterSamplesFlag 0): alpha is then 0.
        @inline(__always) init(qPav: Int, control: SliceControl) {
            let indexA = min(max(qPav &+ control.offsetA, 0), 51), indexB = min(max(qPav &+ control.offsetB, 0), 51)
            beta = Deblocking.beta[indexB]
            alpha = beta == 0 ? 0 : Deblocking.alpha[indexA]
            tc0 = SIMD3(Deblocking.tc0[3 &* indexA], Deblocking.tc0[3 &* indexA &+ 1], Deblocking.tc0[3 &* indexA &+ 2])
        }
    }

    /// bS for frame macroblocks (8.7.2.1). Motion is compared per 8x8 quadrant (one motion each).
    @inline(__always) static func strength(p: MacroblockState, pBlk: Int, q: MacroblockState, qBlk: Int, macroblockEdge: Bool) -> Int32 {
        if p.isIntra || q.isIntra { return macroblockEdge ? 4 : 3 }
        if (p.nonZero >> UInt16(pBlk)) & 1 != 0 || (q.nonZero >> UInt16(qBlk)) & 1 != 0 { return 2 }
        if !macroblockEdge && !q.partitioned { return 0 }  // one 16x16 partition: same motion both sides
        let pq = MacroblockState.quadrant(ofRaster: pBlk), qq = MacroblockState.quadrant(ofRaster: qBlk)
        if !macroblockEdge && pq == qq { return 0 }
        return withUnsafePointer(to: p) { p in withUnsafePointer(to: q) { q in motionStrength(p: p, pq: pq, q: q, qq: qq) } }
    }

    /// bS of the four pairs of 4x4 blocks across edge `edge` (0...3, 0 the macroblock edge) of q, vertical
    /// edges or horizontal ones; lane k is the k-th pair along the edge. The same values as
    /// ``strength(p:pBlk:q:qBlk:macroblockEdge:)`` pair by pair, with the non-zero bits of the four blocks
    /// either side taken at once and the motion compared once per pair of quadrants (lanes 0-1 and 2-3
    /// lie in one quadrant each side).
    /// p and q by address: the states are not copied (a call the compiler may keep would copy both whole).
    @inline(__always) static func edgeStrength(p: UnsafePointer<MacroblockState>, q: UnsafePointer<MacroblockState>, vertical: Bool,
                                               edge: Int) -> SIMD4<Int32> {
        let macroblockEdge = edge == 0
        if p.pointee.isIntra || q.pointee.isIntra { return SIMD4(repeating: macroblockEdge ? 4 : 3) }
        let pLine = macroblockEdge ? 3 : edge &- 1  // p's column (vertical edges) or row of blocks next to the edge
        /// The four blocks of column or row `line` of `bits` (raster) as bits 0...3, in the order along the edge.
        @inline(__always) func lineBits(_ bits: UInt16, _ line: Int) -> Int {
            let b = Int(bits)
            if !vertical { return (b >> (4 &* line)) & 15 }
            // bits line, line + 4, + 8, + 12 to 12...15 by one multiply (the products' bits never overlap: no carries)
            return (((b >> line) & 0x1111) &* 0x1248) >> 12 & 15
        }
        let coded = lineBits(p.pointee.nonZero, pLine) | lineBits(q.pointee.nonZero, edge)
        // Inside the macroblock, motion differs only across the middle edge of a partitioned one (one motion per quadrant).
        let motionMatters = macroblockEdge || (q.pointee.partitioned && edge == 2)
        @inline(__always) func motion(_ half: Int) -> Int32 {
            guard motionMatters else { return 0 }
            let pq = vertical ? 2 &* half &+ pLine >> 1 : 2 &* (pLine >> 1) &+ half
            let qq = vertical ? 2 &* half &+ edge >> 1 : 2 &* (edge >> 1) &+ half
            // The same pictures with the same vectors: bS 0 (a picture is −1 exactly where its refIdx is)
            if p.pointee.motionKey(pq) == q.pointee.motionKey(qq) { return 0 }
            return motionStrength(p: p, pq: pq, q: q, qq: qq)
        }
        // Unpartitioned macroblocks have one motion in all four quadrants (``MacroblockState/setUniform(refIdx:mv:pictures:)``):
        // the second half of the edge then compares the same motion as the first.
        let uniform = !p.pointee.partitioned && !q.pointee.partitioned
        let m0 = coded & 3 == 3 && !(uniform && coded & 12 != 12) ? 0 : motion(0)
        let m1 = coded & 12 == 12 ? 0 : (uniform ? m0 : motion(1))
        return SIMD4(coded & 1 != 0 ? 2 : m0, coded & 2 != 0 ? 2 : m0, coded & 4 != 0 ? 2 : m1, coded & 8 != 0 ? 2 : m1)
    }

    /// bS 1 or 0 across blocks with no coefficients, of inter macroblocks p and q, in quadrants pq and qq
    /// (8.7.2.1: different reference pictures or numbers of motion vectors, or vectors 4 quarter samples apart).
    /// The vectors are read only where compared.
    @inline(__always) static func motionStrength(p: UnsafePointer<MacroblockState>, pq: Int, q: UnsafePointer<MacroblockState>,
                                                 qq: Int) -> Int32 {
        let pr = p.pointee.refs(pq), qr = q.pointee.refs(qq)
        let pr0 = pr[0], pr1 = pr[1], qr0 = qr[0], qr1 = qr[1]
        let pCount = (pr0 >= 0 ? 1 : 0) + (pr1 >= 0 ? 1 : 0)
        let qCount = (qr0 >= 0 ? 1 : 0) + (qr1 >= 0 ? 1 : 0)
        if pCount != qCount { return 1 }
        @inline(__always) func far(_ a: SIMD2<Int16>, _ b: SIMD2<Int16>) -> Bool { abs(Int(a.x) - Int(b.x)) >= 4 || abs(Int(a.y) - Int(b.y)) >= 4 }
        if pCount == 1 {
            let pl = pr0 >= 0 ? 0 : 1, ql = qr0 >= 0 ? 0 : 1
            if p.pointee.picture(pq, list: pl) != q.pointee.picture(qq, list: ql) { return 1 }
            return far(p.pointee.mv(pq, list: pl), q.pointee.mv(qq, list: ql)) ? 1 : 0
        }
        let pmv0 = p.pointee.mv(pq, list: 0), pmv1 = p.pointee.mv(pq, list: 1)
        let qmv0 = q.pointee.mv(qq, list: 0), qmv1 = q.pointee.mv(qq, list: 1)
        let p0 = p.pointee.picture(pq, list: 0), p1 = p.pointee.picture(pq, list: 1)
        let q0 = q.pointee.picture(qq, list: 0), q1 = q.pointee.picture(qq, list: 1)
        guard (p0 == q0 && p1 == q1) || (p0 == q1 && p1 == q0) else { return 1 }
        if p0 != p1 {
            if p0 == q0 { return far(pmv0, qmv0) || far(pmv1, qmv1) ? 1 : 0 }
            return far(pmv0, qmv1) || far(pmv1, qmv0) ? 1 : 0
        }
        let straight = far(pmv0, qmv0) || far(pmv1, qmv1)
        let crossed = far(pmv0, qmv1) || far(pmv1, qmv0)
        return straight && crossed ? 1 : 0
    }

    /// Filters `lines` lines across one edge (8.7.2.3, 8.7.2.4); `start` is q0 of the first line.
    @inline(__always) static func filterEdge(_ start: UnsafeMutablePointer<UInt8>, across: Int, along: Int, lines: Int, bS: SIMD4<Int32>,
                                             thresholds t: Thresholds, chroma: Bool) {
        if t.alpha == 0 { return }
        DeblockingLanes.filter(start, across: across, along: along, lines: lines, bS: bS, alpha: t.alpha, beta: t.beta, tc0: t.tc0, chroma: chroma)
    }
}
