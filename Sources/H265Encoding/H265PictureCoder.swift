import H265Bitstream
import NALStream

/// The state of one picture while the engine codes it: the reconstruction so far and, per 4x4 block,
/// what later blocks, the entropy coder's contexts and the deblocking filter need of it.
struct H265PictureCoder {
    let sps: H265SequenceParameterSet
    let pps: H265PictureParameterSet
    let source: H265EncoderPicture
    var recon: H265EncoderPicture
    let width: Int, height: Int, bitDepth: Int
    let w4: Int, h4: Int
    let log2Ctb: Int, minCbLog2: Int, minTbLog2: Int, maxTbLog2: Int
    let ctbWidth: Int
    /// Slice index by CTB address (raster), −1 before the slice is coded.
    var sliceOfCtb: [Int]
    // Per 4x4 block.
    var decoded: [Bool]
    var intra: [Bool]
    var skip: [Bool]
    var ctDepth: [UInt8]
    var lumaMode: [UInt8]
    var qpY: [Int8]
    var lumaCoded: [Bool]
    /// bit 0: left edge is a transform or prediction block edge; bit 1: top edge; bits 2, 3: the same edges are
    /// transform block edges.
    var edges: [UInt8]
    var deblockControls: [H265Deblocking.SliceControls] = []
    /// The motion of each 4x4 block coded so far (intra: interDir 0).
    var motion: [H265Motion]

    // Reference pictures (the request's lists) and temporal prediction.
    let references: [[H265ReferencePicture]]
    let refPocs: [[Int]]
    let refLongTerm: [[Bool]]
    let currentPoc: Int
    /// DiffPicOrderCnt(aPic, CurrPic) <= 0 for every reference (NoBackwardPredFlag, 8.5.3.2.9).
    let noBackwardPred: Bool
    var sliceTMVP = false
    var collocatedFromL0 = true
    var colMotion: H265MotionField?
    var colPoc = 0
    var maxNumMergeCand = 5
    var numRefIdxActive = [1, 1]
    var mvdL1Zero = false
    /// The inter prediction of the CU being coded (luma, Cb, Cr), its origin and luma size.
    var interPrediction: [[Int32]] = [[], [], []]
    var interOrigin = (x: 0, y: 0, size: 0)
    /// A luma mode already chosen for the next intra CU (by the inter/intra decision).
    var chosenIntraMode: Int?
    /// The luma predictions the mode decision has costed lately, reused when the CU is coded.
    var predictionCache = H265PredictionCache()
    /// Working memory of ``codeBlock(_:_:log2:cIdx:mode:intraCU:)`` and its transforms.
    let blockScratch = H265BlockScratch()
    var statistics = H265CodingStatistics()

    // Slice state.
    var sliceIndex = 0
    var sliceQP = 26
    var sliceType = H265SliceType.i
    var cbQpOffset = 0, crQpOffset = 0
    var isCuQpDeltaCoded = false
    var writer = H265SyntaxWriter()
    /// Slices whose sao() waits for the deblocked picture (see H265SAOStage.swift).
    var deferredSlices: [H265DeferredSlice] = []
    var saoLambdaScale = 1.0

    init(request: H265EncodeRequest) {
        sps = request.sps
        pps = request.pps
        source = request.source
        width = sps.picWidthInLumaSamples
        height = sps.picHeightInLumaSamples
        bitDepth = sps.bitDepthLuma
        recon = H265EncoderPicture(width: width, height: height, bitDepth: bitDepth)
        w4 = width >> 2
        h4 = height >> 2
        log2Ctb = sps.log2CtbSize
        minCbLog2 = sps.log2MinCbSize
        minTbLog2 = sps.log2MinTransformBlockSize
        maxTbLog2 = sps.log2MaxTransformBlockSize
        ctbWidth = sps.picWidthInCtbs
        sliceOfCtb = [Int](repeating: -1, count: sps.picSizeInCtbs)
        let blocks = w4 * h4
        decoded = [Bool](repeating: false, count: blocks)
        intra = [Bool](repeating: false, count: blocks)
        skip = [Bool](repeating: false, count: blocks)
        ctDepth = [UInt8](repeating: 0, count: blocks)
        lumaMode = [UInt8](repeating: 1, count: blocks)
        qpY = [Int8](repeating: 0, count: blocks)
        lumaCoded = [Bool](repeating: false, count: blocks)
        edges = [UInt8](repeating: 0, count: blocks)
        motion = [H265Motion](repeating: H265Motion(), count: blocks)
        references = [request.refPicList0, request.refPicList1]
        refPocs = references.map { $0.map(\.picOrderCnt) }
        refLongTerm = references.map { $0.map(\.isLongTerm) }
        currentPoc = request.picOrderCnt
        noBackwardPred = refPocs.allSatisfy { $0.allSatisfy { $0 <= request.picOrderCnt } }
    }

    /// The picture's motion, for temporal prediction by later pictures.
    var motionField: H265MotionField {
        var field = H265MotionField(width4: w4, height4: h4)
        for (i, m) in motion.enumerated() where m.interDir != 0 {
            var e = H265MotionField.Entry(motion: m)
            if m.predL0 { e.refPoc0 = Int32(refPocs[0][Int(m.refIdx0)]); e.longTerm0 = refLongTerm[0][Int(m.refIdx0)] }
            if m.predL1 { e.refPoc1 = Int32(refPocs[1][Int(m.refIdx1)]); e.longTerm1 = refLongTerm[1][Int(m.refIdx1)] }
            field.entries[i] = e
        }
        return field
    }

    @inline(__always) func block(_ x: Int, _ y: Int) -> Int { (y >> 2) * w4 + (x >> 2) }
    @inline(__always) func ctbAddr(_ x: Int, _ y: Int) -> Int { (y >> log2Ctb) * ctbWidth + (x >> log2Ctb) }

    /// 6.4.1: whether the luma sample (x, y) is available to the block being coded in this slice.
    @inline(__always) func available(_ x: Int, _ y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        return decoded[block(x, y)] && sliceOfCtb[ctbAddr(x, y)] == sliceIndex
    }

    // MARK: Slices

    /// Codes one slice segment; returns its NAL unit (2-byte header + escaped payload), or nothing yet when the
    /// slice codes SAO (``sampleAdaptiveOffset(into:)`` writes it).
    mutating func codeSlice(_ request: H265SliceRequest, index: Int) -> [UInt8] {
        let header = request.header
        sliceIndex = index
        sliceType = header.sliceType
        sliceQP = 26 + pps.initQpMinus26 + header.qpDelta
        cbQpOffset = pps.cbQpOffset + header.cbQpOffset
        crQpOffset = pps.crQpOffset + header.crQpOffset
        let (saoLuma, saoChroma) = H265DeferredSlice.saoFlags(header, sps: sps)
        deblockControls.append(.init(disabled: header.deblockingFilterDisabledFlag, betaOffsetDiv2: header.betaOffsetDiv2,
                                     tcOffsetDiv2: header.tcOffsetDiv2,
                                     acrossSlices: H265DeferredSlice.acrossSlices(header, pps: pps, sao: saoLuma || saoChroma)))
        let initType: Int
        switch header.sliceType {
        case .i: initType = 0
        case .p: initType = header.cabacInitFlag ? 2 : 1
        case .b: initType = header.cabacInitFlag ? 1 : 2
        }
        writer = H265SyntaxWriter()
        writer.initialiseContexts(initType: initType, sliceQP: sliceQP)
        writer.recording = saoLuma || saoChroma
        sliceTMVP = header.temporalMvpEnabledFlag && header.sliceType != .i
        collocatedFromL0 = header.sliceType == .b ? header.collocatedFromL0Flag : true
        maxNumMergeCand = 5 - header.fiveMinusMaxNumMergeCand
        numRefIdxActive = [header.numRefIdxL0ActiveMinus1 + 1, header.sliceType == .b ? header.numRefIdxL1ActiveMinus1 + 1 : 0]
        mvdL1Zero = header.mvdL1ZeroFlag
        colMotion = nil
        if sliceTMVP {
            let list = collocatedFromL0 ? 0 : 1
            let col = references[list][header.collocatedRefIdx]
            colMotion = col.picture.motion ?? H265MotionField(width4: w4, height4: h4)
            colPoc = col.picOrderCnt
        }
        let first = header.sliceSegmentAddress, end = first + request.ctbCount
        for addr in first..<end { sliceOfCtb[addr] = index }
        var ctbBins: [Int] = []
        for addr in first..<end {
            let x0 = (addr % ctbWidth) << log2Ctb, y0 = (addr / ctbWidth) << log2Ctb
            ctbBins.append(writer.recorded.count)
            codingQuadtree(x0, y0, log2: log2Ctb, depth: 0)
            writer.endOfSliceSegment(addr == end - 1)
        }
        let headerBytes: [UInt8]
        if let packed = request.packedHeader {
            headerBytes = Array(packed.bytes.prefix((packed.bitLength + 7) / 8))
        } else {
            headerBytes = header.headerBytes(sps: sps, pps: pps)
        }
        if writer.recording {
            deferredSlices.append(H265DeferredSlice(index: index, headerBytes: headerBytes, initType: initType, sliceQP: sliceQP,
                                                    ctbs: first..<end, luma: saoLuma, chroma: saoChroma,
                                                    bins: writer.recorded, ctbBins: ctbBins))
            return []
        }
        return Array(headerBytes.prefix(2)) + EmulationPrevention.insert(Array(headerBytes.dropFirst(2)) + writer.engine.bytes)
    }

    // MARK: Coding tree (7.3.8.4)

    mutating func codingQuadtree(_ x0: Int, _ y0: Int, log2: Int, depth: Int) {
        let size = 1 << log2
        let split: Bool
        if x0 + size <= width && y0 + size <= height && log2 > minCbLog2 {
            split = log2 > targetCULog2(x0, y0, log2: log2)
            var ctxInc = 0
            if available(x0 - 1, y0) && Int(ctDepth[block(x0 - 1, y0)]) > depth { ctxInc += 1 }
            if available(x0, y0 - 1) && Int(ctDepth[block(x0, y0 - 1)]) > depth { ctxInc += 1 }
            writer.splitCUFlag(split, ctxInc: ctxInc)
        } else {
            split = log2 > minCbLog2
        }
        if pps.cuQpDeltaEnabledFlag && log2 >= log2Ctb - pps.diffCuQpDeltaDepth { isCuQpDeltaCoded = false }
        if split {
            let half = size >> 1
            for (dx, dy) in [(0, 0), (half, 0), (0, half), (half, half)] where x0 + dx < width && y0 + dy < height {
                codingQuadtree(x0 + dx, y0 + dy, log2: log2 - 1, depth: depth + 1)
            }
        } else {
            codingUnit(x0, y0, log2: log2, depth: depth)
        }
    }

    /// The CU size the encoder wants here: 16x16 (within the SPS's limits), or 32x32 in P and B slices where
    /// the first merge candidate already predicts the whole block well.
    mutating func targetCULog2(_ x0: Int, _ y0: Int, log2: Int) -> Int {
        let base = min(max(4, minCbLog2), log2Ctb)
        if sliceType != .i && log2 == 5 && base < 5 && mergeSuffices(x0, y0, log2: 5) { return 5 }
        return base
    }

    /// Marks a CU's blocks (depth, prediction, QP, skip).
    mutating func markCU(_ x0: Int, _ y0: Int, size: Int, depth: Int, isIntra: Bool, isSkip: Bool) {
        for y in stride(from: y0, to: min(y0 + size, height), by: 4) {
            for x in stride(from: x0, to: min(x0 + size, width), by: 4) {
                let b = block(x, y)
                ctDepth[b] = UInt8(depth)
                intra[b] = isIntra
                skip[b] = isSkip
                qpY[b] = Int8(sliceQP)
            }
        }
    }

    mutating func codingUnit(_ x0: Int, _ y0: Int, log2: Int, depth: Int) {
        let size = 1 << log2
        if pps.transquantBypassEnabledFlag { writer.bin(false, H265Context.cuTransquantBypassFlag) }
        if sliceType != .i {
            codeInterSliceCU(x0, y0, log2: log2, depth: depth)
            return
        }
        markCU(x0, y0, size: size, depth: depth, isIntra: true, isSkip: false)
        codeIntraCU(x0, y0, log2: log2)
    }

    /// cu_skip_flag's ctxInc (9.3.4.2.2).
    func skipContext(_ x0: Int, _ y0: Int) -> Int {
        var ctxInc = 0
        if available(x0 - 1, y0) && skip[block(x0 - 1, y0)] { ctxInc += 1 }
        if available(x0, y0 - 1) && skip[block(x0, y0 - 1)] { ctxInc += 1 }
        return ctxInc
    }

    // MARK: Intra CUs

    /// candModeList of 8.4.2.
    func mostProbableModes(_ x0: Int, _ y0: Int) -> [Int] {
        func neighbour(_ x: Int, _ y: Int) -> Int {
            guard available(x, y) else { return 1 }
            let b = block(x, y)
            return intra[b] ? Int(lumaMode[b]) : 1
        }
        let a = neighbour(x0 - 1, y0)
        // B is DC when above the current CTB (8.4.2).
        let b = y0 - 1 < ((y0 >> log2Ctb) << log2Ctb) ? 1 : neighbour(x0, y0 - 1)
        if a == b {
            if a < 2 { return [0, 1, 26] }
            return [a, 2 + ((a + 29) % 32), 2 + ((a - 2 + 1) % 32)]
        }
        let c = (a != 0 && b != 0) ? 0 : (a != 1 && b != 1) ? 1 : 26
        return [a, b, c]
    }

    mutating func codeIntraCU(_ x0: Int, _ y0: Int, log2: Int) {
        let size = 1 << log2
        statistics.intraCUs += 1
        if log2 == minCbLog2 { writer.partModeIntra(nxn: false) }
        if sps.pcmEnabledFlag {
            let minPcm = sps.log2MinPcmLumaCodingBlockSizeMinus3 + 3
            let maxPcm = minPcm + sps.log2DiffMaxMinPcmLumaCodingBlockSize
            if log2 >= minPcm && log2 <= maxPcm { writer.terminate(false) }
        }
        let candidates = mostProbableModes(x0, y0)
        let mode = chosenIntraMode ?? chooseLumaMode(x0, y0, log2: min(log2, maxTbLog2), candidates: candidates).mode
        chosenIntraMode = nil
        for y in stride(from: y0, to: y0 + size, by: 4) {
            for x in stride(from: x0, to: x0 + size, by: 4) { lumaMode[block(x, y)] = UInt8(mode) }
        }
        if let index = candidates.firstIndex(of: mode) {
            writer.intraLumaMode(mpmIndex: index, remainder: 0)
        } else {
            writer.intraLumaMode(mpmIndex: nil, remainder: mode - candidates.filter { $0 < mode }.count)
        }
        writer.intraChromaPredMode(4)
        // Reconstruct the transform tree, then write it.
        var tree = TransformNode()
        buildTransformTree(&tree, x0, y0, log2: log2, depth: 0, mode: mode, intraCU: true)
        writeTransformTree(tree, x0, y0, log2: log2, depth: 0, parentCbf: (true, true), intraCU: true, blkIdx: 0, mode: mode)
    }

    /// Picks the luma mode by SATD of the prediction at the first transform block, plus a bit estimate.
    func chooseLumaMode(_ x0: Int, _ y0: Int, log2: Int, candidates: [Int]) -> (mode: Int, cost: Double) {
        let n = 1 << log2
        let lambda = 0.85 * Self.twoToTheSixth(sliceQP - 12)
        // The references, filtered once (the filter is the same for every mode that applies it), and the prediction.
        let count = 4 * n + 1
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count + n * n) { buffer in
            guard let refs = buffer.baseAddress else { return (1, .infinity) }
            let smoothed = refs + count, pred = refs + 2 * count
            referenceSamples(x0, y0, log2: log2, cIdx: 0, into: refs)
            H265IntraPrediction.smooth(refs, count: n, strongSmoothing: sps.strongIntraSmoothingEnabledFlag, bitDepth: bitDepth, into: smoothed)
            func cost(_ mode: Int) -> Double {
                H265IntraPrediction.predict(H265IntraPrediction.filters(count: n, mode: mode) ? smoothed : refs, count: n, log2: log2, mode: mode,
                                            edgeFilters: n < 32, bitDepth: bitDepth, into: pred)
                let bits = candidates.contains(mode) ? 2.0 : 6.0
                return Double(satd(x0, y0, n: n, pred: pred)) + lambda * bits
            }
            var best = 0, bestCost = Double.infinity
            var tried: UInt64 = 0  // bit m: mode m costed
            func consider(_ m: Int) {
                guard m >= 0, m <= 34, tried & (1 << m) == 0 else { return }
                tried |= 1 << m
                let c = cost(m)
                if c < bestCost { bestCost = c; best = m }
            }
            let coarse = sliceType == .i ? [0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 34] : [0, 1, 10, 26]
            for m in coarse { consider(m) }
            for m in candidates { consider(m) }
            // Inter slices (where intra rarely wins) keep the coarse choice; I slices refine an angular one.
            if best >= 2 && sliceType == .i {
                let centre = best
                for d in [-2, -1, 1, 2] where centre + d >= 2 { consider(centre + d) }
            }
            return (best, bestCost)
        }
    }

    /// 2^(k / 6).
    static func twoToTheSixth(_ k: Int) -> Double {
        let fractions = [1.0, 1.122462, 1.259921, 1.414214, 1.587401, 1.781797]
        let whole = k >= 0 ? k / 6 : -((-k + 5) / 6)
        let base = whole >= 0 ? Double(1 << whole) : 1 / Double(1 << -whole)
        return base * fractions[k - 6 * whole]
    }

    /// |v| without abs's overflow trap (no sum of differences reaches Int32.min), so that the loops vectorise.
    @inline(__always) static func magnitude(_ v: Int32) -> Int32 { (v ^ (v >> 31)) &- (v >> 31) }

    /// Sum of 4x4 Hadamard-transformed differences between the source luma at (x0, y0) and `pred`.
    func satd(_ x0: Int, _ y0: Int, n: Int, pred p: UnsafePointer<Int32>) -> Int {
        let width = self.width
        return source.luma.withUnsafeBufferPointer { src in
            if n % 8 == 0, let s = src.baseAddress {
                return Int(H265Distortion.hadamardSum(s + y0 * width + x0, width, p, w: n)) / 2
            }
            var total: Int32 = 0
            @inline(__always) func row(_ s: Int, _ q: Int) -> (Int32, Int32, Int32, Int32) {
                let d0 = Int32(src[s]) &- p[q], d1 = Int32(src[s + 1]) &- p[q + 1]
                let d2 = Int32(src[s + 2]) &- p[q + 2], d3 = Int32(src[s + 3]) &- p[q + 3]
                let a0 = d0 &+ d3, a1 = d1 &+ d2, a2 = d1 &- d2, a3 = d0 &- d3
                return (a0 &+ a1, a3 &+ a2, a0 &- a1, a3 &- a2)
            }
            @inline(__always) func column(_ r0: Int32, _ r1: Int32, _ r2: Int32, _ r3: Int32) -> Int32 {
                let a0 = r0 &+ r3, a1 = r1 &+ r2, a2 = r1 &- r2, a3 = r0 &- r3
                return Self.magnitude(a0 &+ a1) &+ Self.magnitude(a3 &+ a2) &+ Self.magnitude(a0 &- a1) &+ Self.magnitude(a3 &- a2)
            }
            for by in stride(from: 0, to: n, by: 4) {
                for bx in stride(from: 0, to: n, by: 4) {
                    let s = (y0 + by) * width + x0 + bx, q = by * n + bx
                    let r0 = row(s, q), r1 = row(s + width, q + n), r2 = row(s + 2 * width, q + 2 * n), r3 = row(s + 3 * width, q + 3 * n)
                    total &+= column(r0.0, r1.0, r2.0, r3.0) &+ column(r0.1, r1.1, r2.1, r3.1)
                        &+ column(r0.2, r1.2, r2.2, r3.2) &+ column(r0.3, r1.3, r2.3, r3.3)
                }
            }
            return Int(total) / 2
        }
    }

    // MARK: Intra prediction from the reconstruction

    /// The 4N + 1 references of the N x N block at (x, y) of plane cIdx (chroma: chroma coordinates) into `p`, in
    /// the layout of ``H265IntraPrediction``, substituted (8.4.4.2.2).
    func referenceSamples(_ x: Int, _ y: Int, log2: Int, cIdx: Int, into p: UnsafeMutablePointer<Int32>) {
        let n = 1 << log2
        let shift = cIdx == 0 ? 0 : 1
        let planeWidth = cIdx == 0 ? width : width >> 1
        let plane = cIdx == 0 ? recon.luma : cIdx == 1 ? recon.cb : recon.cr
        let c = 2 * n, total = 4 * n + 1
        // Availability is a 4x4 luma block's: decided once per run of 4 luma or 2 chroma samples (the corner is one
        // alone); blocks are aligned to the runs, and the picture's edges fall between them.
        let run = 4 >> shift
        withUnsafeTemporaryAllocation(of: Bool.self, capacity: total) { flags in
            guard let available = flags.baseAddress else { return }
            plane.withUnsafeBufferPointer { samples in
                var usable = false
                for i in 0..<total {
                    let (sx, sy) = i < c ? (x - 1, y + c - 1 - i) : (x + i - c - 1, y - 1)
                    if i == c || (i < c ? i % run == 0 : (i - c - 1) % run == 0) { usable = self.available(sx << shift, sy << shift) }
                    available[i] = usable
                    if usable { p[i] = Int32(samples[sy * planeWidth + sx]) }
                }
            }
            H265IntraPrediction.substitute(p, available: available, count: n, bitDepth: bitDepth)
        }
    }

    /// The intra prediction of the N x N block at (x, y) of plane cIdx with `mode`, into `pred`.
    func predictIntraBlock(_ x: Int, _ y: Int, log2: Int, mode: Int, cIdx: Int, into pred: UnsafeMutablePointer<Int32>) {
        let n = 1 << log2, count = 4 * n + 1
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { buffer in
            guard let refs = buffer.baseAddress else { return }
            referenceSamples(x, y, log2: log2, cIdx: cIdx, into: refs)
            var used = UnsafePointer(refs)
            if cIdx == 0 && H265IntraPrediction.filters(count: n, mode: mode) {
                H265IntraPrediction.smooth(refs, count: n, strongSmoothing: sps.strongIntraSmoothingEnabledFlag, bitDepth: bitDepth, into: refs + count)
                used = UnsafePointer(refs + count)
            }
            H265IntraPrediction.predict(used, count: n, log2: log2, mode: mode, edgeFilters: cIdx == 0 && n < 32, bitDepth: bitDepth, into: pred)
        }
    }

    // MARK: Transform tree

    /// One node of a coded transform tree: its children, or the levels of a leaf.
    struct TransformNode {
        var children: [TransformNode] = []
        var luma: [Int32]?
        var cb: [Int32]?
        var cr: [Int32]?
        var cbfCb = false, cbfCr = false
        /// Chroma of a 4x4-luma split, coded with the fourth child (blkIdx 3).
        var chromaAtParent = false
    }

    /// Whether split_transform_flag is coded at this node, and the split when inferred (7.4.9.8).
    func transformSplit(log2: Int, depth: Int, intraCU: Bool) -> (coded: Bool, split: Bool) {
        let maxDepth = intraCU ? sps.maxTransformHierarchyDepthIntra : sps.maxTransformHierarchyDepthInter
        if log2 <= maxTbLog2 && log2 > minTbLog2 && depth < maxDepth { return (true, false) }
        return (false, log2 > maxTbLog2)
    }

    /// Predicts, transforms, quantises and reconstructs the tree of the CU at (x0, y0) in decoding order.
    mutating func buildTransformTree(_ node: inout TransformNode, _ x0: Int, _ y0: Int, log2: Int, depth: Int, mode: Int, intraCU: Bool) {
        let (_, split) = transformSplit(log2: log2, depth: depth, intraCU: intraCU)
        if split {
            let half = 1 << (log2 - 1)
            node.children = []
            for (dx, dy) in [(0, 0), (half, 0), (0, half), (half, half)] {
                var child = TransformNode()
                buildTransformTree(&child, x0 + dx, y0 + dy, log2: log2 - 1, depth: depth + 1, mode: mode, intraCU: intraCU)
                node.children.append(child)
            }
            if log2 == 3 {
                // 4x4 luma blocks: the 4x4 chroma blocks of the 8x8 area come after the fourth.
                node.chromaAtParent = true
                node.cb = codeBlock(x0 >> 1, y0 >> 1, log2: 2, cIdx: 1, mode: mode, intraCU: intraCU)
                node.cr = codeBlock(x0 >> 1, y0 >> 1, log2: 2, cIdx: 2, mode: mode, intraCU: intraCU)
                node.cbfCb = node.cb != nil
                node.cbfCr = node.cr != nil
                markDecoded(x0, y0, size: 8)
            } else {
                node.cbfCb = node.children.contains { $0.cbfCb }
                node.cbfCr = node.children.contains { $0.cbfCr }
            }
            return
        }
        let size = 1 << log2
        node.luma = codeBlock(x0, y0, log2: log2, cIdx: 0, mode: mode, intraCU: intraCU)
        for y in stride(from: y0, to: y0 + size, by: 4) {
            for x in stride(from: x0, to: x0 + size, by: 4) {
                let b = block(x, y)
                lumaCoded[b] = node.luma != nil
                if x == x0 { edges[b] |= 1 | 4 }
                if y == y0 { edges[b] |= 2 | 8 }
            }
        }
        if log2 > 2 {
            node.cb = codeBlock(x0 >> 1, y0 >> 1, log2: log2 - 1, cIdx: 1, mode: mode, intraCU: intraCU)
            node.cr = codeBlock(x0 >> 1, y0 >> 1, log2: log2 - 1, cIdx: 2, mode: mode, intraCU: intraCU)
            node.cbfCb = node.cb != nil
            node.cbfCr = node.cr != nil
            markDecoded(x0, y0, size: size)
        } else {
            // Luma 4x4 blocks are available to the next one before the chroma of their 8x8 area.
            markDecoded(x0, y0, size: size)
        }
    }

    mutating func markDecoded(_ x0: Int, _ y0: Int, size: Int) {
        for y in stride(from: y0, to: y0 + size, by: 4) {
            for x in stride(from: x0, to: x0 + size, by: 4) { decoded[block(x, y)] = true }
        }
    }

    /// Codes one transform block of plane cIdx at (x, y) in that plane's coordinates: prediction (intra),
    /// residual, levels, reconstruction. Returns the levels, nil when all are zero.
    mutating func codeBlock(_ x: Int, _ y: Int, log2: Int, cIdx: Int, mode: Int, intraCU: Bool) -> [Int32]? {
        let n = 1 << log2, count = n * n
        let pred = blockScratch.prediction, residual = blockScratch.residuals, quantised = blockScratch.levels, rebuilt = blockScratch.rebuilt
        if intraCU {
            // 4x4 chroma of a split 8x8 sits beside luma that is already decoded; its own area is not.
            predictIntraBlock(x, y, log2: log2, mode: mode, cIdx: cIdx, into: pred)
        } else {
            let shift = cIdx == 0 ? 0 : 1
            let ox = x - (interOrigin.x >> shift), oy = y - (interOrigin.y >> shift), stride = interOrigin.size >> shift
            interPrediction[cIdx].withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                // Row by row through pointers (unchecked offsets): the copies vectorise.
                for j in 0..<n { (pred + j * n).update(from: base + (oy + j) * stride + ox, count: n) }
            }
        }
        let planeWidth = cIdx == 0 ? width : width >> 1
        let src = cIdx == 0 ? source.luma : cIdx == 1 ? source.cb : source.cr
        var sumOfMagnitudes = 0
        src.withUnsafeBufferPointer { s in
            guard let base = s.baseAddress else { return }
            var sum: Int32 = 0
            for j in 0..<n {
                let sourceRow = base + (y + j) * planeWidth + x, p = pred + j * n, r = residual + j * n
                for i in 0..<n {
                    let v = Int32(sourceRow[i]) &- p[i]
                    r[i] = v
                    sum &+= Self.magnitude(v)
                }
            }
            sumOfMagnitudes = Int(sum)
        }
        let qp = (cIdx == 0 ? sliceQP : chromaQP(cIdx)) + 6 * (bitDepth - 8)
        let useDST = intraCU && cIdx == 0 && log2 == 2
        var levels: [Int32]? = nil
        if !H265Transform.quantisesToZero(sumOfMagnitudes: sumOfMagnitudes, log2: log2, qp: qp, bitDepth: bitDepth, intra: intraCU) {
            H265Transform.forward(residual, log2: log2, bitDepth: bitDepth, dst: useDST, into: quantised, scratch: blockScratch.transform)
            if H265Transform.quantise(quantised, count: count, log2: log2, qp: qp, bitDepth: bitDepth, intra: intraCU, into: quantised) {
                levels = Array(UnsafeBufferPointer(start: quantised, count: count))
            }
        }
        if var coded = levels {
            if pps.signDataHidingEnabledFlag {
                H265SyntaxWriter.hideSigns(&coded, log2: log2, scanIdx: scanIndex(log2: log2, cIdx: cIdx, mode: mode, intraCU: intraCU))
                levels = coded
            }
            coded.withUnsafeBufferPointer { c in
                guard let base = c.baseAddress else { return }
                H265Transform.inverse(base, log2: log2, qp: qp, bitDepth: bitDepth, dst: useDST, into: rebuilt, scratch: blockScratch.transform)
            }
        } else {
            for i in 0..<count { rebuilt[i] = 0 }
        }
        let maxValue = Int32((1 << bitDepth) - 1)
        var plane = cIdx == 0 ? recon.luma : cIdx == 1 ? recon.cb : recon.cr
        if cIdx == 0 { recon.luma = [] } else if cIdx == 1 { recon.cb = [] } else { recon.cr = [] }
        plane.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            for j in 0..<n {
                let outRow = base + (y + j) * planeWidth + x, p = pred + j * n, r = rebuilt + j * n
                for i in 0..<n { outRow[i] = UInt16(truncatingIfNeeded: min(max(p[i] &+ r[i], 0), maxValue)) }
            }
        }
        if cIdx == 0 { recon.luma = plane } else if cIdx == 1 { recon.cb = plane } else { recon.cr = plane }
        return levels
    }

    /// Qp′Cb / Qp′Cr without the bit depth offset (8.6.1).
    func chromaQP(_ cIdx: Int) -> Int {
        let offset = cIdx == 1 ? cbQpOffset : crQpOffset
        let qpi = min(max(sliceQP + offset, -6 * (bitDepth - 8)), 57)
        return H265Deblocking.chromaQP(qpi)
    }

    /// scanIdx of 7.4.9.11.
    func scanIndex(log2: Int, cIdx: Int, mode: Int, intraCU: Bool) -> Int {
        guard intraCU, log2 == 2 || (log2 == 3 && cIdx == 0) else { return 0 }
        if (6...14).contains(mode) { return 2 }
        if (22...30).contains(mode) { return 1 }
        return 0
    }

    /// Writes transform_tree() (7.3.8.8) and transform_unit() (7.3.8.10) of a built tree.
    mutating func writeTransformTree(_ node: TransformNode, _ x0: Int, _ y0: Int, log2: Int, depth: Int, parentCbf: (Bool, Bool),
                                     intraCU: Bool, blkIdx: Int, mode: Int) {
        let (coded, _) = transformSplit(log2: log2, depth: depth, intraCU: intraCU)
        let split = !node.children.isEmpty
        if coded { writer.splitTransformFlag(split, log2TrafoSize: log2) }
        if log2 > 2 {
            if depth == 0 || parentCbf.0 { writer.cbfChroma(node.cbfCb, trafoDepth: depth) }
            if depth == 0 || parentCbf.1 { writer.cbfChroma(node.cbfCr, trafoDepth: depth) }
        }
        if split {
            let half = 1 << (log2 - 1)
            for (i, (dx, dy)) in [(0, 0), (half, 0), (0, half), (half, half)].enumerated() {
                var child = node.children[i]
                if node.chromaAtParent {
                    // cbf_cb/cbf_cr of the 8x8 node serve the 4x4 children (cbfDepthC = trafoDepth − 1).
                    child.cbfCb = node.cbfCb
                    child.cbfCr = node.cbfCr
                    if i == 3 { child.cb = node.cb; child.cr = node.cr }
                }
                writeTransformTree(child, x0 + dx, y0 + dy, log2: log2 - 1, depth: depth + 1, parentCbf: (node.cbfCb, node.cbfCr),
                                   intraCU: intraCU, blkIdx: i, mode: mode)
            }
            return
        }
        let cbfLuma = node.luma != nil
        if intraCU || depth != 0 || node.cbfCb || node.cbfCr { writer.cbfLuma(cbfLuma, trafoDepth: depth) }
        guard cbfLuma || node.cbfCb || node.cbfCr else { return }
        if pps.cuQpDeltaEnabledFlag && !isCuQpDeltaCoded {
            writer.cuQPDelta(0)
            isCuQpDeltaCoded = true
        }
        let sdh = pps.signDataHidingEnabledFlag
        if let luma = node.luma {
            writer.residualCoding(luma, log2: log2, cIdx: 0, scanIdx: scanIndex(log2: log2, cIdx: 0, mode: mode, intraCU: intraCU), signHiding: sdh)
        }
        let chromaLog2 = log2 > 2 ? log2 - 1 : (blkIdx == 3 ? 2 : 0)
        guard chromaLog2 > 0 else { return }
        let chromaScan = scanIndex(log2: chromaLog2, cIdx: 1, mode: mode, intraCU: intraCU)
        if let cb = node.cb { writer.residualCoding(cb, log2: chromaLog2, cIdx: 1, scanIdx: chromaScan, signHiding: sdh) }
        if let cr = node.cr { writer.residualCoding(cr, log2: chromaLog2, cIdx: 2, scanIdx: chromaScan, signHiding: sdh) }
    }

    // MARK: In-loop filters

    mutating func deblock() {
        let w4 = self.w4, log2Ctb = self.log2Ctb, ctbWidth = self.ctbWidth
        let sliceOfCtb = self.sliceOfCtb, intra = self.intra, lumaCoded = self.lumaCoded
        let motion = self.motion, refPocs = self.refPocs
        H265Deblocking.apply(to: &recon, edges: edges, qp: qpY, sliceOfBlock: { b in
            let x = (b % w4) << 2, y = (b / w4) << 2
            return sliceOfCtb[(y >> log2Ctb) * ctbWidth + (x >> log2Ctb)]
        }, controls: deblockControls, cbQpOffset: pps.cbQpOffset, crQpOffset: pps.crQpOffset) { p, q, transformEdge in
            if intra[p] || intra[q] { return 2 }
            if transformEdge && (lumaCoded[p] || lumaCoded[q]) { return 1 }
            return H265PictureCoder.motionStrength(motion[p], motion[q], refPocs: refPocs)
        }
    }
}
