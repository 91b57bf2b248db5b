/// The sample adaptive offset process (8.7.3) over a deblocked picture: each CTB's band or edge offsets,
/// the edge classification reading deblocked (not yet offset) neighbours, never across the picture edge or a
/// slice boundary that slice_loop_filter_across_slices_enabled_flag closes (8.7.3.2). The engine codes no PCM
/// and no cu_transquant_bypass CUs, so no sample is exempt for those reasons.
struct H265SampleAdaptiveOffset {
    let log2Ctb: Int
    let widthInCtbs: Int, heightInCtbs: Int
    /// Slice index by CTB address (raster); slices are whole CTB runs in raster order (no tiles).
    let sliceOfCtb: [Int]
    /// slice_loop_filter_across_slices_enabled_flag (as inferred when absent) by slice index.
    let acrossSlices: [Bool]

    /// (hPos[0], vPos[0], hPos[1], vPos[1]) by SaoEoClass (8.7.3.2).
    static let neighbourOffsets: [(Int, Int, Int, Int)] = [(-1, 0, 1, 0), (0, -1, 0, 1), (-1, -1, 1, 1), (1, -1, -1, 1)]

    /// Bit (dy + 1) * 3 + (dx + 1) set when the CTB at (rx + dx, ry + dy) may be read by CTB (rx, ry)'s edge
    /// classification: inside the picture and, in another slice, the later of the two slices filters across.
    func neighbourMask(_ rx: Int, _ ry: Int) -> UInt16 {
        let current = sliceOfCtb[ry * widthInCtbs + rx]
        var mask: UInt16 = 0
        for dy in -1...1 {
            for dx in -1...1 {
                let nx = rx + dx, ny = ry + dy
                guard nx >= 0, ny >= 0, nx < widthInCtbs, ny < heightInCtbs else { continue }
                let other = sliceOfCtb[ny * widthInCtbs + nx]
                // MinTbAddrZs order across CTBs is raster order, and so is slice order.
                let usable = other == current || (other < current ? acrossSlices[current] : acrossSlices[other])
                if usable { mask |= 1 << ((dy + 1) * 3 + dx + 1) }
            }
        }
        return mask
    }

    /// The samples of one CTB's block of a plane (`shift` 1 for chroma).
    struct Region {
        let x0: Int, y0: Int, x1: Int, y1: Int
        let size: Int
        let planeWidth: Int, planeHeight: Int
    }

    func region(_ rx: Int, _ ry: Int, shift: Int, planeWidth: Int, planeHeight: Int) -> Region {
        let size = (1 << log2Ctb) >> shift
        let x0 = rx * size, y0 = ry * size
        return Region(x0: x0, y0: y0, x1: min(x0 + size, planeWidth), y1: min(y0 + size, planeHeight), size: size,
                      planeWidth: planeWidth, planeHeight: planeHeight)
    }

    /// Calls `body(index, edgeIdx)` for every sample of the region whose two neighbours of class `eoClass`
    /// may be read, with edgeIdx = 2 + Sign(a − n0) + Sign(a − n1) before the remapping of 8.7.3.2; with
    /// `borderOnly`, for the samples of the region's first and last rows and columns only.
    @inline(__always)
    static func forEachEdgeSample(_ p: UnsafeBufferPointer<UInt16>, _ r: Region, eoClass: Int, mask: UInt16, borderOnly: Bool = false,
                                  _ body: (_ index: Int, _ edgeIdx: Int) -> Void) {
        let (h0, v0, h1, v1) = neighbourOffsets[eoClass]
        let w = r.planeWidth
        @inline(__always) func readable(_ x: Int, _ y: Int) -> Bool {
            guard x >= 0, y >= 0, x < w, y < r.planeHeight else { return false }
            let dx = x < r.x0 ? 0 : x >= r.x0 + r.size ? 2 : 1
            let dy = y < r.y0 ? 0 : y >= r.y0 + r.size ? 2 : 1
            return mask & (1 << (dy * 3 + dx)) != 0
        }
        @inline(__always) func sign(_ d: Int32) -> Int { (d > 0 ? 1 : 0) - (d < 0 ? 1 : 0) }
        let d0 = v0 * w + h0, d1 = v1 * w + h1
        @inline(__always) func classify(_ i: Int) -> Int {
            let a = Int32(p[i])
            return 2 + sign(a - Int32(p[i + d0])) + sign(a - Int32(p[i + d1]))
        }
        @inline(__always) func edgeSample(_ x: Int, _ y: Int) {
            if readable(x + h0, y + v0) && readable(x + h1, y + v1) { body(y * w + x, classify(y * w + x)) }
        }
        for y in r.y0..<r.y1 {
            let row = y * w
            let borderRow = y == r.y0 || y == r.y1 - 1
            // Inner columns: the neighbours lie in this CTB's column, so only their rows decide.
            if borderOnly {
                if borderRow { for x in (r.x0 + 1)..<max(r.x0 + 1, r.x1 - 1) { edgeSample(x, y) } }
            } else if r.x1 - r.x0 > 2, readable(r.x0 + 1, y + v0), readable(r.x0 + 1, y + v1) {
                for x in (r.x0 + 1)..<(r.x1 - 1) { body(row + x, classify(row + x)) }
            }
            // The first and last columns: a neighbour may sit in the CTB to the side.
            edgeSample(r.x0, y)
            if r.x1 - 1 > r.x0 { edgeSample(r.x1 - 1, y) }
        }
    }

    /// Applies each CTB's parameters to `picture` (deblocked), reading the deblocked samples only.
    func apply(to picture: inout H265EncoderPicture, parameters: [H265SAOParameters]) {
        let deblocked = picture
        let maxValue = Int32((1 << picture.bitDepth) - 1)
        let bandShift = picture.bitDepth - 5
        for cIdx in 0..<3 {
            guard parameters.contains(where: { $0.components[cIdx].kind != .off }) else { continue }
            let shift = cIdx == 0 ? 0 : 1
            let planeWidth = cIdx == 0 ? picture.width : picture.chromaWidth
            let planeHeight = cIdx == 0 ? picture.height : picture.chromaHeight
            let source = cIdx == 0 ? deblocked.luma : cIdx == 1 ? deblocked.cb : deblocked.cr
            var output = source
            source.withUnsafeBufferPointer { p in
                output.withUnsafeMutableBufferPointer { out in
                    for ry in 0..<heightInCtbs {
                        for rx in 0..<widthInCtbs {
                            let c = parameters[ry * widthInCtbs + rx].components[cIdx]
                            let r = region(rx, ry, shift: shift, planeWidth: planeWidth, planeHeight: planeHeight)
                            switch c.kind {
                            case .off:
                                continue
                            case .band:
                                // 8.7.3.2: bandTable[(k + sao_band_position) & 31] = k + 1.
                                for y in r.y0..<r.y1 {
                                    for x in r.x0..<r.x1 {
                                        let i = y * planeWidth + x
                                        let k = ((Int(p[i]) >> bandShift) - c.bandPosition) & 31
                                        if k < 4 { out[i] = UInt16(min(max(Int32(p[i]) + Int32(c.offsets[k]), 0), maxValue)) }
                                    }
                                }
                            case .edge:
                                // SaoOffsetVal by edgeIdx before its remapping (0, 1, 2 become 1, 2, 0: 8.7.3.2).
                                let table = [Int32(c.offsets[0]), Int32(c.offsets[1]), 0, Int32(c.offsets[2]), Int32(c.offsets[3])]
                                table.withUnsafeBufferPointer { offsets in
                                    Self.forEachEdgeSample(p, r, eoClass: c.eoClass, mask: neighbourMask(rx, ry)) { i, e in
                                        let o = offsets[e]
                                        if o != 0 { out[i] = UInt16(truncatingIfNeeded: min(max(Int32(p[i]) &+ o, 0), maxValue)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if cIdx == 0 { picture.luma = output } else if cIdx == 1 { picture.cb = output } else { picture.cr = output }
        }
    }
}
