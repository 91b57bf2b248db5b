/// The encoder's SAO choice for each CTB, made on the deblocked picture against the source: per component
/// the band or edge offsets (of the four edge classes) that cost least, merged with the CTB to the left or
/// above when that costs less, off when nothing pays. Cost is ΔD + λ·R: ΔD the change of the squared error
/// that the offsets make, R the estimated bins of the sao() syntax, λ from the slice QP like the rest of the
/// engine's decisions (scaled by 4^(BitDepth − 8), as the errors are).
struct H265SAODecision {
    /// One CTB component's deblocked samples against the source: per edge class and category (1...4), and per
    /// band (32), how many samples there are and the sum of source − deblocked.
    struct Statistics {
        /// Index eoClass * 4 + category − 1.
        var edgeCount = InlineArray<16, Int>(repeating: 0)
        var edgeSum = InlineArray<16, Int>(repeating: 0)
        var bandCount = InlineArray<32, Int>(repeating: 0)
        var bandSum = InlineArray<32, Int>(repeating: 0)
    }

    let bitDepth: Int
    /// cMax of sao_offset_abs.
    let maxOffset: Int
    /// The edge classes chroma may use: none with 16x16 CTBs (8x8 chroma). There FFmpeg's decoder classifies a
    /// chroma CTB before it has deblocked all the neighbours it reads (its chroma horizontal edges lag a whole
    /// CTB behind), so chroma edge offsets decode differently from the Recommendation (libde265 and the engine
    /// agree; FFmpeg does not). Band offsets, luma, and larger CTBs decode the same everywhere.
    let chromaEdgeClasses: [Int]

    init(bitDepth: Int, log2Ctb: Int) {
        self.bitDepth = bitDepth
        maxOffset = H265SAOParameters.maxOffset(bitDepth: bitDepth)
        chromaEdgeClasses = log2Ctb == 4 ? [] : [0, 1, 2, 3]
    }

    /// λ for squared errors at SliceQpY (the engine's mode decision λ squared), in the picture's sample units.
    func lambda(sliceQP: Int) -> Double {
        0.85 * H265PictureCoder.twoToTheSixth(2 * (sliceQP - 12)) * Double(1 << (2 * (bitDepth - 8)))
    }

    /// Gathers the statistics of one CTB's block of a plane, classifying samples exactly as the filter does
    /// (8.7.3.2): the bands in one pass over the block, then every edge class at once in one pass over the samples
    /// whose neighbours can all be read, eight at a time.
    static func statistics(source: UnsafeBufferPointer<UInt16>, deblocked p: UnsafeBufferPointer<UInt16>,
                           region r: H265SampleAdaptiveOffset.Region, mask: UInt16, bitDepth: Int) -> Statistics {
        let bandShift = bitDepth - 5
        let w = r.planeWidth
        @inline(__always) func sign(_ a: Int32, _ b: UInt16) -> Int { (a > Int32(b) ? 1 : 0) - (a < Int32(b) ? 1 : 0) }
        // Counts and sums: edges by eoClass * 5 + edgeIdx (before the remapping of 8.7.3.2), then bands.
        // Every neighbouring CTB readable (so inside the picture): all samples classify directly; else the
        // border samples are checked one by one.
        let open = mask == 0x1FF
        let inner = open ? (x0: r.x0, x1: r.x1, y0: r.y0, y1: r.y1) : (x0: r.x0 + 1, x1: r.x1 - 1, y0: r.y0 + 1, y1: r.y1 - 1)
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 104) { acc in
            acc.initialize(repeating: 0)
            guard let count = acc.baseAddress else { return Statistics() }
            let sum = count + 20, bandCount = count + 40, bandSum = count + 72
            @inline(__always) func addEdge(_ e: Int, _ d: Int) { count[e] &+= 1; sum[e] &+= d }
            for y in r.y0..<r.y1 {
                let row = y * w
                for x in r.x0..<r.x1 {
                    let i = row + x
                    let band = Int(p[i]) >> bandShift
                    bandCount[band] &+= 1
                    bandSum[band] &+= Int(source[i]) - Int(p[i])
                }
            }
            if let sourceBase = source.baseAddress, let deblockedBase = p.baseAddress, inner.x0 < inner.x1 {
                for y in inner.y0..<max(inner.y0, inner.y1) {
                    let row = y * w
                    var x = inner.x0
                    // Eight samples at a time: their edgeIdx (8-255 to 8-257) per class in 16-bit lanes (samples and
                    // differences fit), then added up lane by lane.
                    while x + 8 <= inner.x1 {
                        let i = row + x
                        @inline(__always) func at(_ k: Int) -> SIMD8<Int16> {
                            UnsafeRawPointer(deblockedBase + i + k).loadUnaligned(as: SIMD8<Int16>.self)
                        }
                        let a = at(0)
                        @inline(__always) func signs(_ k: Int) -> SIMD8<Int16> {
                            let b = at(k), zero = SIMD8<Int16>()
                            return zero.replacing(with: 1, where: a .> b) &- zero.replacing(with: 1, where: a .< b)
                        }
                        let d = UnsafeRawPointer(sourceBase + i).loadUnaligned(as: SIMD8<Int16>.self) &- a
                        let e0 = signs(-1) &+ signs(1) &+ 2, e1 = signs(-w) &+ signs(w) &+ 7
                        let e2 = signs(-w - 1) &+ signs(w + 1) &+ 12, e3 = signs(-w + 1) &+ signs(w - 1) &+ 17
                        for lane in 0..<8 {
                            let difference = Int(d[lane])
                            addEdge(Int(e0[lane]), difference)
                            addEdge(Int(e1[lane]), difference)
                            addEdge(Int(e2[lane]), difference)
                            addEdge(Int(e3[lane]), difference)
                        }
                        x += 8
                    }
                    for x in x..<inner.x1 {
                        let i = row + x
                        let a = Int32(p[i])
                        let d = Int(source[i]) - Int(a)
                        addEdge(2 + sign(a, p[i - 1]) + sign(a, p[i + 1]), d)
                        addEdge(7 + sign(a, p[i - w]) + sign(a, p[i + w]), d)
                        addEdge(12 + sign(a, p[i - w - 1]) + sign(a, p[i + w + 1]), d)
                        addEdge(17 + sign(a, p[i - w + 1]) + sign(a, p[i + w - 1]), d)
                    }
                }
            }
            // The samples on the CTB's border: neighbours may lie outside the picture or in a closed slice.
            for eoClass in 0..<4 where !open {
                H265SampleAdaptiveOffset.forEachEdgeSample(p, r, eoClass: eoClass, mask: mask, borderOnly: true) { i, e in
                    count[eoClass * 5 + e] &+= 1
                    sum[eoClass * 5 + e] &+= Int(source[i]) - Int(p[i])
                }
            }
            var s = Statistics()
            for b in 0..<32 { s.bandCount[b] = bandCount[b]; s.bandSum[b] = bandSum[b] }
            // edgeIdx 0, 1, 3, 4 are categories 1, 2, 3, 4 (8.7.3.2).
            for eoClass in 0..<4 {
                for (k, e) in [0, 1, 3, 4].enumerated() {
                    s.edgeCount[eoClass * 4 + k] = count[eoClass * 5 + e]
                    s.edgeSum[eoClass * 4 + k] = sum[eoClass * 5 + e]
                }
            }
            return s
        }
    }

    /// ΔD of adding offset o to n samples whose errors sum to s: Σ(e − o)² − Σe² = n·o² − 2·o·s.
    @inline(__always) static func distortionChange(_ n: Int, _ s: Int, _ o: Int) -> Int { n * o * o - 2 * o * s }

    /// Bins of sao_offset_abs (TR, cMax) and of sao_offset_sign when coded.
    func offsetBins(_ o: Int, signed: Bool) -> Int {
        let a = abs(o)
        return (a < maxOffset ? a + 1 : maxOffset) + (signed && a != 0 ? 1 : 0)
    }

    /// The offset within `range` that minimises ΔD + λ·R for n samples of error sum s, and that cost.
    func bestOffset(_ n: Int, _ s: Int, range: ClosedRange<Int>, signed: Bool, lambda: Double) -> (offset: Int, cost: Double) {
        var best = 0, bestCost = lambda * Double(offsetBins(0, signed: signed))
        guard n > 0 else { return (best, bestCost) }
        var o = min(max(Int((Double(s) / Double(n)).rounded()), range.lowerBound), range.upperBound)
        while o != 0 {
            let c = Double(Self.distortionChange(n, s, o)) + lambda * Double(offsetBins(o, signed: signed))
            if c < bestCost { best = o; bestCost = c }
            o -= o > 0 ? 1 : -1
        }
        return (best, bestCost)
    }

    /// The best edge offsets of class `eoClass` (categories 1, 2 positive, 3, 4 negative) and their cost.
    func edge(_ s: Statistics, eoClass: Int, lambda: Double) -> (H265SAOParameters.Component, Double) {
        var c = H265SAOParameters.Component(kind: .edge, eoClass: eoClass)
        var cost = 0.0
        for k in 0..<4 {
            let range = k < 2 ? 0...maxOffset : -maxOffset...0
            let (o, j) = bestOffset(s.edgeCount[eoClass * 4 + k], s.edgeSum[eoClass * 4 + k], range: range, signed: false, lambda: lambda)
            c.offsets[k] = o
            cost += j
        }
        return (c, cost)
    }

    /// The best band offsets: the four consecutive bands (modulo 32) whose best offsets cost least.
    func band(_ s: Statistics, lambda: Double) -> (H265SAOParameters.Component, Double) {
        let perBand = (0..<32).map { bestOffset(s.bandCount[$0], s.bandSum[$0], range: -maxOffset...maxOffset, signed: true, lambda: lambda) }
        var bestPosition = 0, bestCost = Double.infinity
        for p in 0..<32 {
            let cost = (0..<4).reduce(0.0) { $0 + perBand[(p + $1) & 31].cost }
            if cost < bestCost { bestCost = cost; bestPosition = p }
        }
        var c = H265SAOParameters.Component(kind: .band, bandPosition: bestPosition)
        for k in 0..<4 { c.offsets[k] = perBand[(bestPosition + k) & 31].offset }
        return (c, bestCost)
    }

    /// ΔD of a component's parameters on a CTB's statistics (for merge candidates).
    static func distortionChange(_ c: H265SAOParameters.Component, _ s: Statistics) -> Int {
        var d = 0
        switch c.kind {
        case .off: break
        case .band:
            for k in 0..<4 {
                let b = (c.bandPosition + k) & 31
                d += distortionChange(s.bandCount[b], s.bandSum[b], c.offsets[k])
            }
        case .edge:
            for k in 0..<4 { d += distortionChange(s.edgeCount[c.eoClass * 4 + k], s.edgeSum[c.eoClass * 4 + k], c.offsets[k]) }
        }
        return d
    }

    /// The luma choice: off (one bin), band (type 2, position 5) or an edge class (type 2, class 2).
    func luma(_ s: Statistics, lambda: Double) -> (H265SAOParameters.Component, Double) {
        var best = (H265SAOParameters.Component(), lambda)
        let b = band(s, lambda: lambda)
        if b.1 + 7 * lambda < best.1 { best = (b.0, b.1 + 7 * lambda) }
        for eoClass in 0..<4 {
            let e = edge(s, eoClass: eoClass, lambda: lambda)
            if e.1 + 4 * lambda < best.1 { best = (e.0, e.1 + 4 * lambda) }
        }
        return best
    }

    /// The chroma choice: Cb and Cr share the type and the edge class; band positions and offsets are their own.
    func chroma(_ cb: Statistics, _ cr: Statistics, lambda: Double) -> (H265SAOParameters.Component, H265SAOParameters.Component, Double) {
        var best = (H265SAOParameters.Component(), H265SAOParameters.Component(), lambda)
        let b1 = band(cb, lambda: lambda), b2 = band(cr, lambda: lambda)
        if b1.1 + b2.1 + 12 * lambda < best.2 { best = (b1.0, b2.0, b1.1 + b2.1 + 12 * lambda) }
        for eoClass in chromaEdgeClasses {
            let e1 = edge(cb, eoClass: eoClass, lambda: lambda), e2 = edge(cr, eoClass: eoClass, lambda: lambda)
            if e1.1 + e2.1 + 4 * lambda < best.2 { best = (e1.0, e2.0, e1.1 + e2.1 + 4 * lambda) }
        }
        return best
    }

    /// One CTB: new parameters, or those of the CTB to the left or above (nil when sao() cannot merge with it).
    func decide(_ s: [Statistics], luma lumaOn: Bool, chroma chromaOn: Bool, left: H265SAOParameters?, up: H265SAOParameters?,
                lambda: Double) -> (syntax: H265SAOSyntax, parameters: H265SAOParameters) {
        var parameters = H265SAOParameters()
        var cost = lambda * Double((left != nil ? 1 : 0) + (up != nil ? 1 : 0))
        if lumaOn {
            let l = luma(s[0], lambda: lambda)
            parameters.components[0] = l.0
            cost += l.1
        }
        if chromaOn {
            let c = chroma(s[1], s[2], lambda: lambda)
            parameters.components[1] = c.0
            parameters.components[2] = c.1
            cost += c.2
        }
        var best = (H265SAOSyntax.new(parameters), parameters, cost)
        func mergeCost(_ p: H265SAOParameters, bins: Int) -> Double {
            var d = 0
            for cIdx in 0..<3 where cIdx == 0 ? lumaOn : chromaOn { d += Self.distortionChange(p.components[cIdx], s[cIdx]) }
            return Double(d) + lambda * Double(bins)
        }
        if let left {
            let c = mergeCost(left, bins: 1)
            if c <= best.2 { best = (.mergeLeft, left, c) }
        }
        if let up {
            let c = mergeCost(up, bins: left != nil ? 2 : 1)
            if c <= best.2 { best = (.mergeUp, up, c) }
        }
        return (best.0, best.1)
    }
}
