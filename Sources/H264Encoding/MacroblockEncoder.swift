import H264Bitstream

/// The planes, per-macroblock state and references of the picture being coded, as pointers prepared
/// once per picture.
struct PictureContext {
    var sourceY: PlanePointer, sourceCb: PlanePointer, sourceCr: PlanePointer
    var reconY: PlanePointer, reconCb: PlanePointer, reconCr: PlanePointer
    var state: UnsafeMutablePointer<MacroblockState>
    var widthInMbs: Int, heightInMbs: Int
    var list0: UnsafeBufferPointer<ReferencePlanes>
    var list1: UnsafeBufferPointer<ReferencePlanes>
    var constrainedIntraPred: Bool
    var cbQPOffset: Int, crQPOffset: Int
    /// ``EncoderPicture/colocatedZero`` of RefPicList1[0] (a mask of quadrants per macroblock); empty when
    /// unknown or when that picture is a long-term reference (colZeroFlag is then 0, but the engine does not rely on it).
    var colocatedZero: [UInt8] = []
    /// PPS transform_8x8_mode_flag: inter macroblocks with luma coefficients may use the 8x8 transform.
    var transform8x8Mode = false
    /// SPS direct_8x8_inference_flag: B_Direct_16x16 may then use the 8x8 transform (7.3.5).
    var direct8x8Inference = false
    /// B pictures may predict from this one (``H264PictureEncoder/streamHasBPictures``).
    var bPicturesFollow = true
}

/// Scratch buffers of the macroblock encoder, carved once per picture out of one allocation each.
struct MacroblockScratch {
    /// The sample buffers, then room for the split source rows at a 16-byte boundary.
    static let byteCount = 256 * 4 + 64 * 6 + 64 + 16 * MotionSearch.SplitSource.vectorCount + 15
    static let wordCount = 16 * 6 + 256 + 128 + 8 * 3 + 32 + 256 + 512 + 32
    var predY, candY, tmpY, bestY: UnsafeMutablePointer<UInt8>
    var predCb, predCr, candCb, candCr, tmpCb, tmpCr: UnsafeMutablePointer<UInt8>
    /// The filtered lines of an Intra4x4 or Intra 8x8 block's edge (``IntraPrediction/filterEdge4x4(_:into:)``,
    /// ``IntraPrediction/filterEdge8x8(_:into:)``), 64 bytes.
    var edgeLines: UnsafeMutablePointer<UInt8>
    var coef, d, dcCoef, dcLevels, dcY, edge: UnsafeMutablePointer<Int32>
    var lumaLevels, chromaLevels, chromaDCCoef, chromaDCLevels, dcC: UnsafeMutablePointer<Int32>
    var counts: UnsafeMutablePointer<Int32>
    /// The 16 transformed residual blocks of a macroblock (``Transform/forward16x16(src:srcStride:pred:predStride:coef:)``).
    var coefMB: UnsafeMutablePointer<Int32>
    /// The four 8x8 transform blocks of a macroblock (coefficients, then scaling scratch) and their levels, raster.
    var coef8, levels8: UnsafeMutablePointer<Int32>
    /// The filtered edge of an intra 8x8 block (``IntraPrediction/loadEdge8x8(at:stride:_:into:)``).
    var edge8: UnsafeMutablePointer<Int32>
    /// The current block's source rows split for the motion search (``MotionSearch/SplitSource``).
    var splitSource: UnsafeMutablePointer<SIMD8<Int16>>

    init(bytes b: UnsafeMutablePointer<UInt8>, words w: UnsafeMutablePointer<Int32>) {
        predY = b; candY = b + 256; tmpY = b + 512; bestY = b + 768
        predCb = b + 1024; predCr = b + 1088; candCb = b + 1152; candCr = b + 1216; tmpCb = b + 1280; tmpCr = b + 1344
        edgeLines = b + 1408
        splitSource = UnsafeMutableRawPointer(b + 1472).alignedUp(for: SIMD8<Int16>.self)
            .bindMemory(to: SIMD8<Int16>.self, capacity: MotionSearch.SplitSource.vectorCount)
        coef = w; d = w + 16; dcCoef = w + 32; dcLevels = w + 48; dcY = w + 64; edge = w + 80
        lumaLevels = w + 96; chromaLevels = w + 352; chromaDCCoef = w + 480; chromaDCLevels = w + 488; dcC = w + 496
        counts = w + 504
        coefMB = w + 536
        coef8 = w + 792; levels8 = w + 1048; edge8 = w + 1304
    }
}

/// Chooses a macroblock's coding (mode decision on SATD + λ·bits), codes its residual, rebuilds it
/// exactly as a decoder would (8.3, 8.4, 8.5) and fills its ``MacroblockSyntax``.
struct MacroblockEncoder {
    let ctx: PictureContext
    let s: MacroblockScratch
    static let intraDeadZone: Int32 = 21  // 1/3 of a step, in 64ths
    static let interDeadZone: Int32 = 11  // 1/6

    // Per macroblock
    private(set) var mbAddr = 0, mbx = 0, mby = 0, slice: Int32 = 0
    private(set) var qp = 26, qpCb = 26, qpCr = 26
    private(set) var lambda: Int32 = 1

    init(context: PictureContext, scratch: MacroblockScratch) {
        ctx = context
        s = scratch
    }

    /// direct_spatial_mv_pred_flag of the current slice (B only).
    var directSpatial = false
    /// Weighted sample prediction of the current slice (8.4.2.3).
    var weights = PredictionWeights()

    mutating func encode(mbAddr: Int, slice: Int32, sliceType: SliceType, qp: Int, into mb: inout MacroblockSyntax) {
        self.mbAddr = mbAddr
        mbx = mbAddr % ctx.widthInMbs
        mby = mbAddr / ctx.widthInMbs
        self.slice = slice
        self.qp = qp
        qpCb = Transform.chromaQP(lumaQP: qp, offset: ctx.cbQPOffset)
        qpCr = Transform.chromaQP(lumaQP: qp, offset: ctx.crQPOffset)
        lambda = MotionSearch.lambda[qp]
        var st = MacroblockState()
        st.slice = slice
        st.qp = Int8(qp)
        switch sliceType {
        case .p, .sp: encodeP(&mb, &st)
        case .b: encodeB(&mb, &st)
        default: encodeIntra(&mb, &st, interCost: Int32.max)
        }
        st.transform8x8 = mb.transformSize8x8Flag
        ctx.state[mbAddr] = st
    }

    // MARK: Neighbours

    @inline(__always) private func intraAvailable(_ addr: Int, _ inPicture: Bool) -> Bool {
        guard inPicture, addr >= 0 else { return false }
        let n = ctx.state[addr]
        return n.slice == slice && n.kind != .notCoded && (!ctx.constrainedIntraPred || n.kind == .intra)
    }

    private func intraNeighbours() -> IntraPrediction.Neighbours {
        let w = ctx.widthInMbs
        return IntraPrediction.Neighbours(left: intraAvailable(mbAddr - 1, mbx > 0),
                                          top: intraAvailable(mbAddr - w, true),
                                          topRight: intraAvailable(mbAddr - w + 1, mbx < w - 1),
                                          topLeft: intraAvailable(mbAddr - w - 1, mbx > 0))
    }

    // MARK: Intra

    /// Codes the macroblock as intra (Intra16x16 or Intra4x4, whichever costs less) unless `interCost`
    /// is lower than both; returns false (nothing written) in that case.
    @discardableResult
    mutating func encodeIntra(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState, interCost: Int32) -> Bool {
        let n = intraNeighbours()
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby)
        let recY = ctx.reconY.at(16 * mbx, 16 * mby)
        // Intra16x16: best mode by SATD. A mode costing at least `worse` loses to inter anyway: its SATD
        // may stop there too. Every mode below `worse` is then costed exactly, and so is the best one
        // whenever it is below; otherwise cost16 ≥ interCost either way.
        let worse = interCost <= Int32.max / 2 ? interCost - lambda * 4 : Int32.max
        var best16 = Int32.max, mode16 = 2
        let split = MotionSearch.SplitSource(srcY, ctx.sourceY.stride, h: 16, into: s.splitSource)
        let candidate = MotionSearch.PlanePrediction(a: s.candY, stride: 16)
        for mode in 0..<4 where IntraPrediction.isAvailable16x16(mode: mode, n) {
            IntraPrediction.predict16x16(mode: mode, at: recY, stride: ctx.reconY.stride, n, dst: s.candY, dstStride: 16)
            let modeCost = lambda * (mode == 2 ? 2 : 4)
            let cost = MotionSearch.satd16(split, candidate, h: 16, stoppingAt: min(best16, worse) &- modeCost) + modeCost
            if cost < best16 { best16 = cost; mode16 = mode; s.predY.update(from: s.candY, count: 256) }
        }
        let cost16 = best16 + lambda * 4
        if interCost <= cost16 && interCost <= Int32.max / 2 {
            return false
        }
        // Intra4x4 is tried when Intra16x16 is not already very good, coded as it goes.
        mb.reset(kind: .intra4x4)
        let tryNxN = interCost == Int32.max || cost16 < interCost
        var cost4 = tryNxN ? codeIntra4x4(&mb, &st, n, srcY: srcY, recY: recY, limit: min(cost16, interCost)) : Int32.max
        // Intra 8x8 (High) where the PPS allows it, coded over the Intra4x4 attempt; the Intra4x4 outcome is kept
        // aside and put back if it was better.
        if tryNxN && ctx.transform8x8Mode {
            let saved = cost4 != Int32.max ? saveIntraNxN(mb, st, recY: recY) : nil
            mb.reset(kind: .intra4x4)
            let cost8 = codeIntra8x8(&mb, &st, n, srcY: srcY, recY: recY, limit: min(cost16, interCost, cost4))
            if cost8 == Int32.max, let saved {
                restoreIntraNxN(saved, &mb, &st, recY: recY)
            } else {
                cost4 = cost8
            }
        }
        if cost4 >= cost16 || cost4 >= interCost {
            if cost16 >= interCost { return false }
            mb.reset(kind: .intra16x16)
            mb.intra16x16PredMode = mode16
            IntraPrediction.predict16x16(mode: mode16, at: recY, stride: ctx.reconY.stride, n, dst: s.predY, dstStride: 16)
            codeIntra16x16(&mb, &st, srcY: srcY, recY: recY)
            st.intra4x4Modes = SIMD16(repeating: 2)
        }
        st.kind = .intra
        st.setUniform(refIdx: SIMD2(-1, -1), mv: .zero, pictures: SIMD2(-1, -1))
        // Chroma: best mode by SATD over both components
        var bestC = Int32.max, modeC = 0
        let srcCb = ctx.sourceCb.at(8 * mbx, 8 * mby), srcCr = ctx.sourceCr.at(8 * mbx, 8 * mby)
        let recCb = ctx.reconCb.at(8 * mbx, 8 * mby), recCr = ctx.reconCr.at(8 * mbx, 8 * mby)
        for mode in 0..<4 where IntraPrediction.isAvailableChroma(mode: mode, n) {
            IntraPrediction.predictChroma(mode: mode, at: recCb, stride: ctx.reconCb.stride, n, dst: s.candCb, dstStride: 8)
            IntraPrediction.predictChroma(mode: mode, at: recCr, stride: ctx.reconCr.stride, n, dst: s.candCr, dstStride: 8)
            let cost = MotionSearch.satd(srcCb, ctx.sourceCb.stride, s.candCb, 8, w: 8, h: 8)
                + MotionSearch.satd(srcCr, ctx.sourceCr.stride, s.candCr, 8, w: 8, h: 8) + lambda * (mode == 0 ? 1 : 3)
            if cost < bestC {
                bestC = cost; modeC = mode
                s.predCb.update(from: s.candCb, count: 64); s.predCr.update(from: s.candCr, count: 64)
            }
        }
        mb.intraChromaPredMode = modeC
        mb.codedBlockPatternChroma = codeChroma(&mb, intra: true)
        return true
    }

    /// Codes Intra4x4, block by block; returns its cost (stops early, returning Int32.max, past `limit`).
    private mutating func codeIntra4x4(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState, _ n: IntraPrediction.Neighbours,
                                       srcY: UnsafeMutablePointer<UInt8>, recY: UnsafeMutablePointer<UInt8>, limit: Int32) -> Int32 {
        let w = ctx.widthInMbs
        let leftModes: SIMD16<UInt8>? = n.left ? ctx.state[mbAddr - 1].intra4x4Modes : nil
        let topModes: SIMD16<UInt8>? = n.top ? ctx.state[mbAddr - w].intra4x4Modes : nil
        var modes = SIMD16<UInt8>(repeating: 2)
        var total: Int32 = lambda * 24
        var cbp = 0
        var nonZero: UInt16 = 0
        let rs = ctx.reconY.stride, ss = ctx.sourceY.stride
        let quantizer = Transform.Quantizer(qp: qp, deadZone: Self.intraDeadZone)
        for blk in 0..<16 {
            let x4 = BlockGeometry.x4(blk), y4 = BlockGeometry.y4(blk)
            var bn = IntraPrediction.Neighbours()
            bn.left = x4 > 0 || n.left
            bn.top = y4 > 0 || n.top
            if y4 == 0 { bn.topRight = x4 < 3 ? n.top : n.topRight } else {
                bn.topRight = x4 < 3 && Self.decodedBefore(x4 + 1, y4 - 1, blk)
            }
            bn.topLeft = x4 > 0 && y4 > 0 ? true : (y4 > 0 ? n.left : (x4 > 0 ? n.top : n.topLeft))
            let modeA: UInt8? = x4 > 0 ? modes[blk4(x4 - 1, y4)] : leftModes.map { $0[3 + 4 * y4] }
            let modeB: UInt8? = y4 > 0 ? modes[blk4(x4, y4 - 1)] : topModes.map { $0[x4 + 12] }
            var predMode = 2  // dcPredModePredictedFlag when A or B is unavailable (8.3.1.1)
            if let modeA, let modeB { predMode = Int(min(modeA, modeB)) }
            let rec = recY + 4 * y4 * rs + 4 * x4
            let src = srcY + 4 * y4 * ss + 4 * x4
            IntraPrediction.loadEdge4x4(at: rec, stride: rs, bn, into: s.edge)
            IntraPrediction.filterEdge4x4(s.edge, into: s.edgeLines)
            let pred = s.predY + 4 * y4 * 16 + 4 * x4
            // vertical, horizontal and DC costed in the transform domain; the directional modes formed side by side in
            // candY and costed together; the best mode chosen on all nine costs, then formed in predY
            let hadamard = SourceHadamard4x4(src, stride: ss)
            let e = s.edge
            IntraDirectionalSATD4x4.predict(edge: e, lines: s.edgeLines, bn, into: s.candY)
            let directional = IntraDirectionalSATD4x4.satds(src, stride: ss, predictions: s.candY)
            let (bestMode, bestCost) = IntraModeChoice.cheapest(bn, predMode: predMode, lambda: lambda) { mode in
                switch mode {
                case 0: return hadamard.satdVertical(e[5], e[6], e[7], e[8])
                case 1: return hadamard.satdHorizontal(e[3], e[2], e[1], e[0])
                case 2: return hadamard.satdFlat(IntraPrediction.dc4x4(edge: e, bn))
                default: return IntraDirectionalSATD4x4.satd(directional, mode: mode)
                }
            }
            total += bestCost
            if total >= limit { return Int32.max }
            if bestMode <= 2 {
                IntraPrediction.predict4x4(mode: bestMode, edge: e, lines: s.edgeLines, bn, dst: pred, dstStride: 16)
            } else {
                let formed = s.candY + IntraDirectionalSATD4x4.offset(mode: bestMode)
                for r in 0..<4 { (pred + 16 * r).update(from: formed + 16 * r, count: 4) }
            }
            modes[4 * y4 + x4] = UInt8(bestMode)
            mb.prevIntra4x4PredModeFlag[blk] = bestMode == predMode
            mb.remIntra4x4PredMode[blk] = UInt8(bestMode <= predMode ? bestMode : bestMode - 1)
            // residual of this block, reconstructed at once (the next block predicts from it)
            Transform.residual4x4(src: src, srcStride: ss, pred: pred, predStride: 16, into: s.coef)
            Transform.forward4x4(s.coef)
            let levels = s.lumaLevels + 16 * blk
            let count = quantizer.quantize(s.coef, levels: levels)
            if count > 0 {
                cbp |= 1 << (blk >> 2)
                nonZero |= 1 << UInt16(4 * y4 + x4)
                Self.scan(levels, into: &mb.luma, at: 16 * blk, from: 0)
            }
            reconstruct4x4(levels: levels, count: count, dc: nil, qp: qp, pred: pred, predStride: 16, dst: rec, dstStride: rs)
        }
        mb.codedBlockPatternLuma = cbp
        st.nonZero = nonZero
        st.intra4x4Modes = modes
        return total
    }

    /// Levels (raster) into `dst[offset...]` in zig-zag scan order (8.5.6), from scan position `first`:
    /// one uniqueness check of the array per block, not per level.
    @inline(__always) private static func scan(_ levels: UnsafePointer<Int32>, into dst: inout [Int32], at offset: Int, from first: Int) {
        BlockGeometry.zigzag4x4.withUnsafeBufferPointer { zz in
            dst.withUnsafeMutableBufferPointer { d in
                guard let z = zz.baseAddress, let out = d.baseAddress, offset + 16 <= d.count else { return }
                for k in first..<16 { out[offset + k] = levels[z[k]] }
            }
        }
    }

    @inline(__always) private func blk4(_ x4: Int, _ y4: Int) -> Int { 4 * y4 + x4 }

    /// Whether the 4x4 block at (x4, y4) comes before block `blk` in decoding order.
    @inline(__always) private static func decodedBefore(_ x4: Int, _ y4: Int, _ blk: Int) -> Bool {
        BlockGeometry.blkIdxOfRaster[4 * y4 + x4] < blk
    }

    private mutating func codeIntra16x16(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState,
                                         srcY: UnsafeMutablePointer<UInt8>, recY: UnsafeMutablePointer<UInt8>) {
        let ss = ctx.sourceY.stride, rs = ctx.reconY.stride
        var anyAC = false
        Transform.forward16x16(src: srcY, srcStride: ss, pred: s.predY, predStride: 16, coef: s.coefMB)
        let quantizer = Transform.Quantizer(qp: qp, deadZone: Self.intraDeadZone)
        for blk in 0..<16 {
            let raster = BlockGeometry.raster(blk), coef = s.coefMB + 16 * raster
            s.dcCoef[raster] = coef[0]
            let levels = s.lumaLevels + 16 * blk
            levels[0] = 0
            let count = quantizer.quantize(coef, levels: levels, first: 1)
            s.counts[blk] = Int32(count)
            if count > 0 { anyAC = true }
        }
        Transform.forwardLumaDC(s.dcCoef)
        _ = Transform.quantizeDC(s.dcCoef, levels: s.dcLevels, count: 16, qp: qp, deadZone: Self.intraDeadZone)
        Self.scan(s.dcLevels, into: &mb.lumaDC, at: 0, from: 0)
        Transform.inverseLumaDC(s.dcLevels, into: s.dcY, qp: qp)
        var nonZero: UInt16 = 0
        for blk in 0..<16 {
            let x4 = BlockGeometry.x4(blk), y4 = BlockGeometry.y4(blk)
            let levels = s.lumaLevels + 16 * blk
            var count = Int(s.counts[blk])
            if !anyAC { count = 0 }
            if count > 0 {
                nonZero |= 1 << UInt16(4 * y4 + x4)
                Self.scan(levels, into: &mb.luma, at: 16 * blk, from: 1)
            }
            reconstruct4x4(levels: levels, count: count, dc: s.dcY[4 * y4 + x4], qp: qp, pred: s.predY + 4 * y4 * 16 + 4 * x4, predStride: 16,
                           dst: recY + (4 &* y4 &* rs &+ 4 &* x4), dstStride: rs)
        }
        mb.codedBlockPatternLuma = anyAC ? 15 : 0
        st.nonZero = nonZero
    }

    /// Rebuilds one 4x4 block: pred + inverse transform of the scaled levels (8.5.12), DC replaced by
    /// `dc` when given (Intra16x16 and chroma).
    @inline(__always) private func reconstruct4x4(levels: UnsafeMutablePointer<Int32>, count: Int, dc: Int32?, qp: Int,
                                                  pred: UnsafePointer<UInt8>, predStride: Int, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        let residual: Transform.Rows4x4
        if count == 0 {
            let dcValue = dc ?? 0
            if dcValue == 0 {
                for r in 0..<4 { (dst + r * dstStride).update(from: pred + r * predStride, count: 4) }
                return
            }
            residual = Transform.inverseDCOnly4x4(dcValue)
        } else {
            Transform.dequantize4x4(levels, into: s.d, qp: qp, first: dc == nil ? 0 : 1)
            if let dc { s.d[0] = dc }
            residual = Transform.inverse4x4(s.d)
        }
        Transform.addResidual4x4(residual, pred: pred, predStride: predStride, dst: dst, dstStride: dstStride)
    }

    // MARK: Chroma residual (both components)

    /// Codes Cb and Cr against predCb / predCr; returns CodedBlockPatternChroma (a skip `probe`: as
    /// ``codeLumaInter(_:probe:)``).
    mutating func codeChroma(_ mb: inout MacroblockSyntax, intra: Bool, probe: Bool = false) -> Int {
        let cbp = quantizeChroma(intra: intra)
        if probe && cbp != 0 { return cbp }
        reconstructChroma(&mb, cbp: cbp)
        return cbp
    }

    /// The first half of ``codeChroma(_:intra:probe:)``: transform and quantise both components
    /// against predCb / predCr into chromaLevels, counts and chromaDCLevels; returns
    /// CodedBlockPatternChroma.
    private mutating func quantizeChroma(intra: Bool) -> Int {
        let dz = intra ? Self.intraDeadZone : Self.interDeadZone
        var anyAC = false, anyDC = false
        // coefMB is free here: the luma levels are already taken from it
        let quantizers = (Transform.Quantizer(qp: qpCb, deadZone: dz), Transform.Quantizer(qp: qpCr, deadZone: dz))
        let reaching = Transform.forwardChroma(srcCb: ctx.sourceCb.at(8 * mbx, 8 * mby), srcCr: ctx.sourceCr.at(8 * mbx, 8 * mby),
                                               srcStride: ctx.sourceCb.stride, predCb: s.predCb, predCr: s.predCr, coef: s.coefMB,
                                               reaching: (quantizers.0.nonZeroFrom, quantizers.1.nonZeroFrom))
        for c in 0..<2 {
            let cqp = c == 0 ? qpCb : qpCr
            let quantizer = c == 0 ? quantizers.0 : quantizers.1
            for blk in 0..<4 {
                let coef = s.coefMB + 16 * (4 * c + blk)
                s.chromaDCCoef[4 * c + blk] = coef[0]
                let levels = s.chromaLevels + 16 * (4 * c + blk)
                let count = quantizer.quantize(coef, levels: levels, first: 1, reaching: reaching & (1 << (4 * c + blk)) != 0)
                s.counts[16 + 4 * c + blk] = Int32(count)
                if count > 0 { anyAC = true }
            }
            Transform.hadamard2x2(s.chromaDCCoef + 4 * c)
            if Transform.quantizeDC(s.chromaDCCoef + 4 * c, levels: s.chromaDCLevels + 4 * c, count: 4, qp: cqp, deadZone: dz) > 0 { anyDC = true }
        }
        return anyAC ? 2 : (anyDC ? 1 : 0)
    }

    /// The second half of ``codeChroma(_:intra:probe:)``: the levels into `mb` and the reconstruction
    /// from predCb / predCr of what ``quantizeChroma(intra:)`` left in the scratch.
    private mutating func reconstructChroma(_ mb: inout MacroblockSyntax, cbp: Int) {
        let anyAC = cbp == 2
        let rs = ctx.reconCb.stride
        let recCb = ctx.reconCb.at(8 * mbx, 8 * mby), recCr = ctx.reconCr.at(8 * mbx, 8 * mby)
        // the blocks without residual keep the prediction: copied whole first, the others rebuilt over it
        Transform.copyPrediction(rows: 8, width: 8, pred: s.predCb, predStride: 8, dst: recCb, dstStride: rs)
        Transform.copyPrediction(rows: 8, width: 8, pred: s.predCr, predStride: 8, dst: recCr, dstStride: rs)
        mb.chromaDC.withUnsafeMutableBufferPointer { dc in dc.baseAddress?.update(from: s.chromaDCLevels, count: 8) }
        guard cbp != 0 else { return }  // every DC and AC level 0
        for c in 0..<2 {
            let cqp = c == 0 ? qpCb : qpCr
            let pred = c == 0 ? s.predCb : s.predCr
            let rec = c == 0 ? recCb : recCr
            Transform.inverseChromaDC(s.chromaDCLevels + 4 * c, into: s.dcC + 4 * c, qp: cqp)
            for blk in 0..<4 {
                let bx = blk & 1, by = blk >> 1
                let levels = s.chromaLevels + 16 * (4 * c + blk)
                let count = anyAC ? Int(s.counts[16 + 4 * c + blk]) : 0
                let dc = s.dcC[4 * c + blk]
                if count == 0 && dc == 0 { continue }
                if count > 0 { Self.scan(levels, into: &mb.chromaAC, at: 16 * (4 * c + blk), from: 1) }
                reconstruct4x4(levels: levels, count: count, dc: dc, qp: cqp, pred: pred + 4 * by * 8 + 4 * bx, predStride: 8,
                               dst: rec + (4 &* by &* rs &+ 4 &* bx), dstStride: rs)
            }
        }
    }

    // MARK: Inter luma residual

    /// Codes the luma residual against predY with inter dead zone and x264-style decimation of
    /// lone ±1 levels; returns CodedBlockPatternLuma and the non-zero mask. A skip `probe` stops at a
    /// non-zero pattern, with nothing reconstructed or written: the macroblock is then coded again.
    private mutating func codeLumaInter(_ mb: inout MacroblockSyntax, probe: Bool = false) -> (cbp: Int, nonZero: UInt16) {
        let cbp = quantizeLumaInter()
        if probe && cbp != 0 { return (cbp, 0) }
        return (cbp, reconstructLumaInter(&mb, cbp: cbp))
    }

    /// The first half of ``codeLumaInter(_:probe:)``: transform and quantise against predY into
    /// lumaLevels and counts, decimate; returns CodedBlockPatternLuma.
    mutating func quantizeLumaInter() -> Int {
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby), ss = ctx.sourceY.stride
        var scores = SIMD4<Int32>.zero
        let quantizer = Transform.Quantizer(qp: qp, deadZone: Self.interDeadZone)
        let reaching = Transform.forward16x16(src: srcY, srcStride: ss, pred: s.predY, predStride: 16, coef: s.coefMB,
                                              reaching: quantizer.nonZeroFrom)
        for blk in 0..<16 {
            let levels = s.lumaLevels + 16 * blk, raster = BlockGeometry.raster(blk)
            let count = quantizer.quantize(s.coefMB + 16 * raster, levels: levels, reaching: reaching & (1 << raster) != 0)
            s.counts[blk] = Int32(count)
            if count > 0 { scores[blk >> 2] += Self.decimateScore(levels) }
        }
        var cbp = 0
        let total = scores.wrappedSum()
        for b8 in 0..<4 where scores[b8] > 0 && (total >= 6 && scores[b8] >= 4) { cbp |= 1 << b8 }
        return cbp
    }

    /// The second half of ``codeLumaInter(_:probe:)``: the levels of the 8x8 blocks in `cbp` into `mb`,
    /// the reconstruction from predY; returns the non-zero mask.
    mutating func reconstructLumaInter(_ mb: inout MacroblockSyntax, cbp: Int) -> UInt16 {
        var nonZero: UInt16 = 0
        let recY = ctx.reconY.at(16 * mbx, 16 * mby), rs = ctx.reconY.stride
        // the blocks without residual keep the prediction: copied whole first, the others rebuilt over it
        Transform.copyPrediction(rows: 16, width: 16, pred: s.predY, predStride: 16, dst: recY, dstStride: rs)
        guard cbp != 0 else { return 0 }
        for blk in 0..<16 {
            let count = cbp & (1 << (blk >> 2)) != 0 ? Int(s.counts[blk]) : 0
            if count == 0 { continue }
            let x4 = BlockGeometry.x4(blk), y4 = BlockGeometry.y4(blk)
            let levels = s.lumaLevels + 16 * blk
            nonZero |= 1 << UInt16(4 * y4 + x4)
            Self.scan(levels, into: &mb.luma, at: 16 * blk, from: 0)
            reconstruct4x4(levels: levels, count: count, dc: nil, qp: qp, pred: s.predY + 4 * y4 * 16 + 4 * x4, predStride: 16,
                           dst: recY + (4 &* y4 &* rs &+ 4 &* x4), dstStride: rs)
        }
        return nonZero
    }

    /// How much a block's levels are worth keeping (x264's decimation score): 9 when any |level| > 1, else the sum
    /// over ±1 levels, in `scan` order, of `weight` of the zeros before each.
    @inline(__always) static func decimationScore(_ levels: UnsafePointer<Int32>, scan: [Int], weight: (Int) -> Int32) -> Int32 {
        scan.withUnsafeBufferPointer { order in  // no bounds check per level
            var score: Int32 = 0
            var run = 0
            var seen = false
            for k in order.indices.reversed() {
                let v = levels[order[k]]
                if v == 0 { if seen { run += 1 }; continue }
                if abs(v) > 1 { return 9 }
                if seen { score += weight(run) }
                seen = true
                run = 0
            }
            return score + weight(run)
        }
    }

    /// ``decimationScore(_:scan:weight:)`` of a 4x4 block: 3, 2, 2, 1, 1, 1, then 0.
    @inline(__always) private static func decimateScore(_ levels: UnsafeMutablePointer<Int32>) -> Int32 {
        decimationScore(levels, scan: BlockGeometry.zigzag4x4) { run in run == 0 ? 3 : (run < 3 ? 2 : (run < 6 ? 1 : 0)) }
    }

    // MARK: P macroblocks

    /// Below this 16x16 inter cost 16x8 and 8x16 partitions are not tried in P macroblocks: half the P_Skip probe
    /// threshold. (The whole threshold saved 5% of P instructions at BD-rates within 0.5% on the encoder table's
    /// contents, but `make roundtrip`'s synthetic pattern lost 0.22 dB Y at 1.3% fewer bits.)
    static let partitionTrialCost: [Int32] = skipProbeSAD.map { $0 / 2 }

    /// The same for B macroblocks: higher (B partitions gain less than P ones, whose vectors the B pictures predict from).
    static let bPartitionTrialCost: [Int32] = skipProbeSAD.map { $0 * 3 / 2 }

    /// Below this inter cost (the P_Skip probe threshold) intra is not tried.
    static let intraTrialCost: [Int32] = skipProbeSAD

    /// Below this SAD a P_Skip prediction may leave a residual that quantises away (a 4x4 DC
    /// quantises to 0 below about 2·2^(QP/6) per block): only then is P_Skip tried.
    static let skipProbeSAD: [Int32] = (0..<52).map { qp in
        var v = 33.0
        for _ in 0..<qp { v *= 1.122462 }  // 2^(1/6)
        return Int32(v)
    }

    private mutating func encodeP(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState) {
        let ref = ctx.list0[0]
        let (a, b, c) = MotionVectorPrediction.neighbours(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 0)
        let skipMV = MotionVectorPrediction.pSkip(a, b, c)
        let mvp = MotionVectorPrediction.predict(refIdx: 0, a, b, c)
        // P_Skip first: its prediction with no residual, if the residual would quantise away.
        predictInterLuma(ref, mv: skipMV, into: s.predY)
        weights.applySingle(list: 0, refIdx: 0, y: s.predY, cb: nil, cr: nil)
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby)
        let skipSAD = MotionSearch.sad16x16(srcY, ctx.sourceY.stride, s.predY, 16)
        // What the probe leaves in the scratch for skipMV, reused when the search ends there.
        var chromaPredicted = false
        var probedLumaCBP: Int? = nil, probedChromaCBP: Int? = nil
        if skipSAD < Self.skipProbeSAD[qp] {
            predictInterChroma(ref, mv: skipMV, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 0, refIdx: 0, y: nil, cb: s.predCb, cr: s.predCr)
            chromaPredicted = true
            mb.reset(kind: .pL016x16)
            let lumaCBP = quantizeLumaInter()
            probedLumaCBP = lumaCBP
            if lumaCBP == 0 {
                let cbpC = quantizeChroma(intra: false)
                probedChromaCBP = cbpC
                if cbpC == 0 {
                    _ = reconstructLumaInter(&mb, cbp: 0)
                    reconstructChroma(&mb, cbp: 0)
                    mb.reset(kind: .pSkip)
                    setInter(&st, kind: .skip, refIdx: SIMD2(0, -1), mv: SIMD4(skipMV.x, skipMV.y, 0, 0), nonZero: 0)
                    return
                }
            }
        }
        var best = search(ref, mvp: mvp, candidates: SIMD8(a.mv.x, a.mv.y, b.mv.x, b.mv.y, c.mv.x, c.mv.y, skipMV.x, skipMV.y))
        best.cost += lambda * (1 + Self.refIdxBits(0, count: ctx.list0.count))
        // Every other picture of the client's RefPicList0, each with its own prediction (8.4.1.3: the
        // neighbours that use the same refIdx); the best cost including ref_idx_l0's bits wins.
        var bestRef = 0, bestMVP = mvp
        for r in 1..<max(ctx.list0.count, 1) {
            let mvpR = MotionVectorPrediction.predict(refIdx: Int8(r), a, b, c)
            var candidate = search(ctx.list0[r], mvp: mvpR, candidates: SIMD8(best.mv.x, best.mv.y, a.mv.x, a.mv.y, b.mv.x, b.mv.y, 0, 0))
            candidate.cost += lambda * (1 + Self.refIdxBits(r, count: ctx.list0.count))
            if candidate.cost < best.cost { best = candidate; bestRef = r; bestMVP = mvpR }
        }
        let bestPlanes = ctx.list0[bestRef]
        // 16x8 / 8x16 where the 16x16 prediction leaves enough to gain
        let partitions = partitionsAllowed && best.cost > Self.partitionTrialCost[qp]
            ? bestPPartitions(refIdx: bestRef, start: best.mv, startBits: best.bits, limit: best.cost) : nil
        let interCost = partitions?.cost ?? best.cost
        // Intra is tried only where the motion-compensated prediction is poor (the trial overwrites predY).
        let intraTried = interCost > Self.intraTrialCost[qp]
        if intraTried, encodeIntra(&mb, &st, interCost: interCost) { return }
        if let partitions {
            codePartitions(&mb, &st, wide: partitions.wide, parts: partitions.parts, bSlice: false)
            return
        }
        mb.reset(kind: .pL016x16)
        mb.refIdxL0 = bestRef
        mb.mvdL0 = (Int32(best.mv.x - bestMVP.x), Int32(best.mv.y - bestMVP.y))
        if intraTried || best.mv != skipMV || bestRef != 0 {
            predictInterLuma(bestPlanes, mv: best.mv, into: s.predY)
            weights.applySingle(list: 0, refIdx: bestRef, y: s.predY, cb: nil, cr: nil)
            chromaPredicted = false
            probedLumaCBP = nil
            probedChromaCBP = nil
        }
        if !chromaPredicted {
            predictInterChroma(bestPlanes, mv: best.mv, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 0, refIdx: bestRef, y: nil, cb: s.predCb, cr: s.predCr)
        }
        let luma = codeLumaInterChoosingTransform(&mb, probedCBP: probedLumaCBP)
        mb.codedBlockPatternLuma = luma.cbp
        if let cbpC = probedChromaCBP {
            // the probe's chroma levels for this same prediction are still in the scratch
            reconstructChroma(&mb, cbp: cbpC)
            mb.codedBlockPatternChroma = cbpC
        } else {
            mb.codedBlockPatternChroma = codeChroma(&mb, intra: false)
        }
        if luma.cbp == 0 && mb.codedBlockPatternChroma == 0 && best.mv == skipMV && bestRef == 0 {
            mb.reset(kind: .pSkip)
            setInter(&st, kind: .skip, refIdx: SIMD2(0, -1), mv: SIMD4(skipMV.x, skipMV.y, 0, 0), nonZero: 0)
            return
        }
        setInter(&st, kind: .inter, refIdx: SIMD2(Int8(bestRef), -1), mv: SIMD4(best.mv.x, best.mv.y, 0, 0), nonZero: luma.nonZero)
    }

    /// Bits of ref_idx_lX = `refIdx` as te(v) with range `count` − 1 (9.1.2): none with one picture, one
    /// with two, ue(v) beyond.
    @inline(__always) static func refIdxBits(_ refIdx: Int, count: Int) -> Int32 {
        count <= 1 ? 0 : (count == 2 ? 1 : MotionSearch.bitsUE(refIdx))
    }

    func setInter(_ st: inout MacroblockState, kind: MacroblockState.Kind, refIdx: SIMD2<Int8>, mv: SIMD4<Int16>, nonZero: UInt16) {
        st.kind = kind
        st.setUniform(refIdx: refIdx, mv: mv, pictures: pictures(refIdx))
        st.nonZero = nonZero
        st.intra4x4Modes = SIMD16(repeating: 2)
    }

    /// The pictures (``ReferencePlanes/identity``) that refIdxL0 / refIdxL1 name, −1 for an unused list.
    func pictures(_ refIdx: SIMD2<Int8>) -> SIMD2<Int32> {
        SIMD2(refIdx[0] >= 0 ? ctx.list0[Int(refIdx[0])].identity : -1, refIdx[1] >= 0 ? ctx.list1[Int(refIdx[1])].identity : -1)
    }

    /// Luma and chroma prediction of the macroblock from one reference with `mv`.
    func predictInter(_ ref: ReferencePlanes, mv: SIMD2<Int16>, y: UnsafeMutablePointer<UInt8>,
                              cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) {
        predictInterLuma(ref, mv: mv, into: y)
        predictInterChroma(ref, mv: mv, cb: cb, cr: cr)
    }

    func predictInterLuma(_ ref: ReferencePlanes, mv: SIMD2<Int16>, into y: UnsafeMutablePointer<UInt8>) {
        let mx = Int(mv.x), my = Int(mv.y)
        InterPrediction.predictLuma(ref, x: 16 * mbx + (mx >> 2), y: 16 * mby + (my >> 2), fx: mx & 3, fy: my & 3, w: 16, h: 16, dst: y, dstStride: 16)
    }

    func predictInterChroma(_ ref: ReferencePlanes, mv: SIMD2<Int16>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) {
        let mx = Int(mv.x), my = Int(mv.y)
        let cx = 8 * mbx + (mx >> 3), cy = 8 * mby + (my >> 3)
        InterPrediction.predictChroma(ref.cb, width: ref.width / 2, height: ref.height / 2, padding: ref.padding / 2, x: cx, y: cy,
                                      fx: mx & 7, fy: my & 7, w: 8, h: 8, dst: cb, dstStride: 8)
        InterPrediction.predictChroma(ref.cr, width: ref.width / 2, height: ref.height / 2, padding: ref.padding / 2, x: cx, y: cy,
                                      fx: mx & 7, fy: my & 7, w: 8, h: 8, dst: cr, dstStride: 8)
    }

    // MARK: B macroblocks (B_L0_16x16, B_L1_16x16, B_Bi_16x16, B_Direct_16x16, B_Skip)

    private mutating func encodeB(_ mb: inout MacroblockSyntax, _ st: inout MacroblockState) {
        let ref0 = ctx.list0[0], ref1 = ctx.list1[0]
        let (a0, b0, c0) = MotionVectorPrediction.neighbours(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 0)
        let (a1, b1, c1) = MotionVectorPrediction.neighbours(ctx.state, mbAddr: mbAddr, widthInMbs: ctx.widthInMbs, slice: slice, list: 1)
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby)
        // B_Skip / B_Direct_16x16 where spatial direct prediction is known exactly
        var direct: (refIdx: SIMD2<Int8>, mvL0: SIMD2<Int16>, mvL1: SIMD2<Int16>)? = nil
        // colZeroFlag known for the whole macroblock when its quadrants agree
        let colMask: UInt8? = ctx.colocatedZero.isEmpty ? nil : ctx.colocatedZero[mbAddr]
        let colZero: Bool? = colMask == 15 ? true : (colMask == 0 ? false : nil)
        if directSpatial, let d = MotionVectorPrediction.spatialDirect(list0: a0, b0, c0, list1: a1, b1, c1, colZero: colZero),
           Int(d.refIdx[0]) < ctx.list0.count, Int(d.refIdx[1]) < ctx.list1.count {
            direct = d
        }
        var directCost = Int32.max
        if let d = direct {
            predictDirect(d)
            let sad = MotionSearch.sad16x16(srcY, ctx.sourceY.stride, s.predY, 16)
            if sad < Self.skipProbeSAD[qp] {
                mb.reset(kind: .bDirect16x16)
                if codeLumaInter(&mb, probe: true).cbp == 0 && codeChroma(&mb, intra: false, probe: true) == 0 {
                    mb.reset(kind: .bSkip)
                    setInter(&st, kind: .skip, refIdx: d.refIdx, mv: SIMD4(d.mvL0.x, d.mvL0.y, d.mvL1.x, d.mvL1.y), nonZero: 0)
                    return
                }
            }
            directCost = MotionSearch.satd(srcY, ctx.sourceY.stride, s.predY, 16, w: 16, h: 16) + lambda
        }
        let mvp0 = MotionVectorPrediction.predict(refIdx: 0, a0, b0, c0)
        let mvp1 = MotionVectorPrediction.predict(refIdx: 0, a1, b1, c1)
        var best0 = search(ref0, mvp: mvp0, candidates: SIMD8(a0.mv.x, a0.mv.y, b0.mv.x, b0.mv.y, c0.mv.x, c0.mv.y, 0, 0))
        var best1 = search(ref1, mvp: mvp1, candidates: SIMD8(a1.mv.x, a1.mv.y, b1.mv.x, b1.mv.y, c1.mv.x, c1.mv.y, -best0.mv.x, -best0.mv.y))
        // Bi: from both best single-list vectors, each refined against the other list's prediction
        var bi0 = best0, bi1 = best1
        let biCost = refineBi(ref0, ref1, &bi0, &bi1, mvp0: mvp0, mvp1: mvp1) + lambda * 5
        let cost0 = best0.cost + lambda * 3, cost1 = best1.cost + lambda * 3
        let bestCost = min(biCost, cost0, cost1, directCost)
        let partitions = partitionsAllowed && bestCost > Self.bPartitionTrialCost[qp]
            ? bestBPartitions(start0: best0, start1: best1, limit: bestCost) : nil
        let interCost = partitions?.cost ?? bestCost
        // predY is scratch for the intra trial: each inter choice predicts again. As in P, intra is tried
        // only where the inter prediction is poor.
        if interCost > Self.intraTrialCost[qp], encodeIntra(&mb, &st, interCost: interCost) { return }
        if let partitions {
            codePartitions(&mb, &st, wide: partitions.wide, parts: partitions.parts, bSlice: true)
            return
        }
        if let d = direct, directCost == bestCost {
            mb.reset(kind: .bDirect16x16)
            predictDirect(d)
            let luma = codeLumaInterChoosingTransform(&mb, probedCBP: nil)
            mb.codedBlockPatternLuma = luma.cbp
            mb.codedBlockPatternChroma = codeChroma(&mb, intra: false)
            if luma.cbp == 0 && mb.codedBlockPatternChroma == 0 { mb.reset(kind: .bSkip) }
            setInter(&st, kind: mb.kind == .bSkip ? .skip : .inter, refIdx: d.refIdx,
                     mv: SIMD4(d.mvL0.x, d.mvL0.y, d.mvL1.x, d.mvL1.y), nonZero: luma.nonZero)
            return
        }
        if biCost == bestCost {
            mb.reset(kind: .bBi16x16)
            best0 = bi0
            best1 = bi1
            predictInter(ref0, mv: best0.mv, y: s.predY, cb: s.predCb, cr: s.predCr)
            predictInter(ref1, mv: best1.mv, y: s.tmpY, cb: s.tmpCb, cr: s.tmpCr)
            weights.applyBi(refIdx0: 0, refIdx1: 0, y: s.predY, s.tmpY, cb: s.predCb, s.tmpCb, cr: s.predCr, s.tmpCr)
        } else if cost0 == bestCost {
            mb.reset(kind: .bL016x16)
            predictInter(ref0, mv: best0.mv, y: s.predY, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 0, refIdx: 0, y: s.predY, cb: s.predCb, cr: s.predCr)
        } else {
            mb.reset(kind: .bL116x16)
            predictInter(ref1, mv: best1.mv, y: s.predY, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 1, refIdx: 0, y: s.predY, cb: s.predCb, cr: s.predCr)
        }
        let uses0 = mb.kind != .bL116x16, uses1 = mb.kind != .bL016x16
        if uses0 { mb.mvdL0 = (Int32(best0.mv.x - mvp0.x), Int32(best0.mv.y - mvp0.y)) }
        if uses1 { mb.mvdL1 = (Int32(best1.mv.x - mvp1.x), Int32(best1.mv.y - mvp1.y)) }
        let luma = codeLumaInterChoosingTransform(&mb, probedCBP: nil)
        mb.codedBlockPatternLuma = luma.cbp
        mb.codedBlockPatternChroma = codeChroma(&mb, intra: false)
        setInter(&st, kind: .inter, refIdx: SIMD2(uses0 ? 0 : -1, uses1 ? 0 : -1),
                 mv: SIMD4(uses0 ? best0.mv.x : 0, uses0 ? best0.mv.y : 0, uses1 ? best1.mv.x : 0, uses1 ? best1.mv.y : 0), nonZero: luma.nonZero)
    }

    /// Refines a bi-predictive pair of vectors: each list's in turn moves by a quarter sample (to the best of its 8
    /// neighbours, once) against the average with the other list's prediction held. Returns the pair's
    /// SATD + λ·(bits of both mvds); leaves the luma prediction of list 0 in predY, of list 1 in tmpY.
    /// (Up to 4 rounds while a list's vector moved cost 1.3% more instructions with B-frames for BD-rates within
    /// 0.1%: VID −0.73% against −0.83% with one round, KristenAndSara −2.36% against −2.25%.)
    func refineBi(_ ref0: ReferencePlanes, _ ref1: ReferencePlanes, _ r0: inout SearchResult, _ r1: inout SearchResult,
                          mvp0: SIMD2<Int16>, mvp1: SIMD2<Int16>) -> Int32 {
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby), ss = ctx.sourceY.stride
        @inline(__always) func predict(_ ref: ReferencePlanes, _ mv: SIMD2<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
            let mx = Int(mv.x), my = Int(mv.y)
            InterPrediction.predictLuma(ref, x: 16 * mbx + (mx >> 2), y: 16 * mby + (my >> 2), fx: mx & 3, fy: my & 3, w: 16, h: 16, dst: dst, dstStride: 16)
        }
        @inline(__always) func bits(_ mv: SIMD2<Int16>, _ mvp: SIMD2<Int16>) -> Int32 {
            MotionSearch.bitsSE(Int32(mv.x - mvp.x)) + MotionSearch.bitsSE(Int32(mv.y - mvp.y))
        }
        // The SATD of the bi-prediction with `mv` on `ref` and the other list's prediction `held`; with default
        // weights read from the planes as it is costed, else predicted and weighted into candY first.
        @inline(__always) func biSATD(_ ref: ReferencePlanes, _ mv: SIMD2<Int16>, held: UnsafeMutablePointer<UInt8>, list0: Bool,
                                      stoppingAt limit: Int32) -> Int32 {
            let mx = Int(mv.x), my = Int(mv.y), x = 16 * mbx + (mx >> 2), y = 16 * mby + (my >> 2)
            if weights.mode == .none && InterPrediction.fitsFastPath(ref, x: x, y: y, w: 16, h: 16) {
                let (a, b) = InterPrediction.sources(ref, x: x, y: y, fx: mx & 3, fy: my & 3)
                let p = MotionSearch.BiPrediction(single: MotionSearch.AveragedPrediction(a: a, b: b ?? a, stride: ref.full.stride),
                                                  other: held)
                return MotionSearch.satd16(split, p, h: 16, stoppingAt: limit)
            }
            predict(ref, mv, s.candY)
            weights.applyBiLuma(refIdx0: 0, refIdx1: 0, s.candY, other: held, dstIsList0: list0)
            return MotionSearch.satd16x16(srcY, ss, s.candY, 16, stoppingAt: limit)
        }
        let split = MotionSearch.SplitSource(srcY, ss, h: 16, into: s.splitSource)
        predict(ref0, r0.mv, s.predY)
        predict(ref1, r1.mv, s.tmpY)
        s.candY.update(from: s.predY, count: 256)
        weights.applyBiLuma(refIdx0: 0, refIdx1: 0, s.candY, other: s.tmpY, dstIsList0: true)
        var best = MotionSearch.satd16x16(srcY, ss, s.candY, 16)
        r0.bits = bits(r0.mv, mvp0)
        r1.bits = bits(r1.mv, mvp1)
        for list in 0..<2 {
            let ref = list == 0 ? ref0 : ref1, mvp = list == 0 ? mvp0 : mvp1
            let held = list == 0 ? s.tmpY : s.predY, own = list == 0 ? s.predY : s.tmpY
            var r = list == 0 ? r0 : r1
            let fixedBits = (list == 0 ? r1 : r0).bits
            var bestCost = best + lambda * (r.bits + fixedBits)
            let centre = r.mv
            for dy in Int16(-1)...1 {
                for dx in Int16(-1)...1 where dx != 0 || dy != 0 {
                    let mv = centre &+ SIMD2(dx, dy)
                    let b = bits(mv, mvp)
                    let satd = biSATD(ref, mv, held: held, list0: list == 0, stoppingAt: bestCost &- lambda * (b + fixedBits))
                    if satd + lambda * (b + fixedBits) < bestCost { bestCost = satd + lambda * (b + fixedBits); best = satd; r.mv = mv; r.bits = b }
                }
            }
            predict(ref, r.mv, own)
            if list == 0 { r0 = r } else { r1 = r }
        }
        return best + lambda * (r0.bits + r1.bits)
    }

    /// The direct prediction: one list, or both (8.4.2.3), weighted as the slice says.
    func predictDirect(_ d: (refIdx: SIMD2<Int8>, mvL0: SIMD2<Int16>, mvL1: SIMD2<Int16>)) {
        let r0 = Int(d.refIdx[0]), r1 = Int(d.refIdx[1])
        if r0 >= 0 && r1 >= 0 {
            predictInter(ctx.list0[r0], mv: d.mvL0, y: s.predY, cb: s.predCb, cr: s.predCr)
            predictInter(ctx.list1[r1], mv: d.mvL1, y: s.tmpY, cb: s.tmpCb, cr: s.tmpCr)
            weights.applyBi(refIdx0: r0, refIdx1: r1, y: s.predY, s.tmpY, cb: s.predCb, s.tmpCb, cr: s.predCr, s.tmpCr)
        } else if r0 >= 0 {
            predictInter(ctx.list0[r0], mv: d.mvL0, y: s.predY, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 0, refIdx: r0, y: s.predY, cb: s.predCb, cr: s.predCr)
        } else {
            predictInter(ctx.list1[r1], mv: d.mvL1, y: s.predY, cb: s.predCb, cr: s.predCr)
            weights.applySingle(list: 1, refIdx: r1, y: s.predY, cb: s.predCb, cr: s.predCr)
        }
    }

    // MARK: Motion search

    struct SearchResult {
        var mv: SIMD2<Int16>
        var cost: Int32
        var bits: Int32
    }

    /// Integer search (predictors, hexagon, square) on SAD, then half and quarter refinement on SATD.
    private static let hexagon: [(Int, Int)] = [(-2, 0), (-1, -2), (1, -2), (2, 0), (1, 2), (-1, 2)]

    func search(_ ref: ReferencePlanes, mvp: SIMD2<Int16>, candidates: SIMD8<Int16>) -> SearchResult {
        let bx = 16 * mbx, by = 16 * mby
        let src = UnsafePointer(ctx.sourceY.at(bx, by)), ss = ctx.sourceY.stride
        let loX = -ref.padding + 4 - bx, hiX = ref.width + ref.padding - 22 - bx
        let loY = -ref.padding + 4 - by, hiY = ref.height + ref.padding - 22 - by
        let lam = lambda
        let px = Int32(mvp.x), py = Int32(mvp.y)
        // A cost at or above the best so far never wins (strict <): its SAD may stop there.
        @inline(__always) func intCost(_ x: Int, _ y: Int, below best: Int32) -> Int32 {
            let mvCost = lam &* MotionSearch.bitsMVD(4 &* x, 4 &* y, px, py)
            return MotionSearch.sad16x16(src, ss, ref.full.at(bx &+ x, by &+ y), ref.full.stride, stoppingAt: best &- mvCost) &+ mvCost
        }
        var bestX = 0, bestY = 0, bestCost = intCost(0, 0, below: Int32.max)
        // The predictors often coincide: a position costed before cannot win on a strict <.
        var costed = SIMD8<Int32>.zero, costedCount = 1  // packed x, y; (0, 0) first
        @inline(__always) func consider(_ mv: SIMD2<Int16>) {
            let x = min(max((Int(mv.x) + 2) >> 2, loX), hiX), y = min(max((Int(mv.y) + 2) >> 2, loY), hiY)
            let position = Int32(truncatingIfNeeded: x << 16 | (y & 0xFFFF))
            for k in 0..<costedCount where costed[k] == position { return }
            costed[costedCount] = position
            costedCount += 1
            let c = intCost(x, y, below: bestCost)
            if c < bestCost { bestCost = c; bestX = x; bestY = y }
        }
        consider(mvp)
        for k in 0..<4 { consider(SIMD2(candidates[2 * k], candidates[2 * k + 1])) }
        // After a move to hexagon point i, only points i − 1, i, i + 1 around the new centre are new: the
        // other three were costed before (or are out of range) and cannot win on a strict <.
        let hex = Self.hexagon
        var direction = -1
        for _ in 0..<16 {
            var moved = -1
            let cx = bestX, cy = bestY
            for k in 0..<6 {
                if direction >= 0 && k != direction && k != (direction + 1) % 6 && k != (direction + 5) % 6 { continue }
                let x = cx &+ hex[k].0, y = cy &+ hex[k].1
                guard x >= loX && x <= hiX && y >= loY && y <= hiY else { continue }
                let c = intCost(x, y, below: bestCost)
                if c < bestCost { bestCost = c; bestX = x; bestY = y; moved = k }
            }
            if moved < 0 { break }
            direction = moved
        }
        let cx = bestX, cy = bestY
        for dy in -1...1 {
            for dx in -1...1 where dx != 0 || dy != 0 {
                let x = cx + dx, y = cy + dy
                guard x >= loX && x <= hiX && y >= loY && y <= hiY else { continue }
                let c = intCost(x, y, below: bestCost)
                if c < bestCost { bestCost = c; bestX = x; bestY = y }
            }
        }
        // Sub-sample refinement on SATD, against the source rows split once
        var qx = 4 * bestX, qy = 4 * bestY
        let split = MotionSearch.SplitSource(src, ss, h: 16, into: s.splitSource)
        // As intCost, the SATD may stop once the cost reaches the best so far.
        @inline(__always) func subCost(_ x: Int, _ y: Int, below best: Int32) -> (Int32, Int32) {
            let bits = MotionSearch.bitsMVD(x, y, px, py)
            let mvCost = lam &* bits, limit = best &- mvCost
            let ix = bx &+ (x >> 2), iy = by &+ (y >> 2)
            if InterPrediction.fitsFastPath(ref, x: ix, y: iy, w: 16, h: 16) {
                let (a, b) = InterPrediction.sources(ref, x: ix, y: iy, fx: x & 3, fy: y & 3)
                guard let b else {
                    let plane = MotionSearch.PlanePrediction(a: a, stride: ref.full.stride)
                    return (MotionSearch.satd16(split, plane, h: 16, stoppingAt: limit) &+ mvCost, bits)
                }
                let averaged = MotionSearch.AveragedPrediction(a: a, b: b, stride: ref.full.stride)
                return (MotionSearch.satd16(split, averaged, h: 16, stoppingAt: limit) &+ mvCost, bits)
            }
            InterPrediction.predictLuma(ref, x: ix, y: iy, fx: x & 3, fy: y & 3, w: 16, h: 16, dst: s.candY, dstStride: 16)
            return (MotionSearch.satd16x16(src, ss, s.candY, 16, stoppingAt: limit) + mvCost, bits)
        }
        var (best, bestBits) = subCost(qx, qy, below: Int32.max)
        // half samples: the 8 neighbours; quarter samples: a small diamond, again if it moved
        let hx = qx, hy = qy
        for dy in -1...1 {
            for dx in -1...1 where dx != 0 || dy != 0 {
                let (c, bits) = subCost(hx &+ 2 &* dx, hy &+ 2 &* dy, below: best)
                if c < best { best = c; bestBits = bits; qx = hx + 2 * dx; qy = hy + 2 * dy }
            }
        }
        do {
            let step = 1
            var came = -1  // the second round skips the previous centre (costed, cannot win on a strict <)
            for _ in 0..<2 {
                let cx = qx, cy = qy
                var moved = -1
                for k in 0..<4 where k != came {
                    let dx = k == 0 ? -step : (k == 1 ? step : 0), dy = k == 2 ? -step : (k == 3 ? step : 0)
                    let (c, bits) = subCost(cx &+ dx, cy &+ dy, below: best)
                    if c < best { best = c; bestBits = bits; qx = cx + dx; qy = cy + dy; moved = k }
                }
                if moved < 0 { break }
                came = moved ^ 1
            }
        }
        return SearchResult(mv: SIMD2(Int16(qx), Int16(qy)), cost: best, bits: bestBits)
    }
}

