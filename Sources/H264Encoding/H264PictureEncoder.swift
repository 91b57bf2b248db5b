import Dispatch
import H264Bitstream
import VTKMedia

extension PaddedPlane {
    /// Fills the padding with copies of the nearest edge samples, so motion compensation past the
    /// edges reads what 8.4.2.2's clamped coordinates would.
    public mutating func replicateEdges() {
        let w = width, h = height, pad = padding, stride = self.stride
        samples.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            Self.replicateEdges(PlanePointer(base: base + pad * stride + pad, stride: stride), width: w, height: h, padding: pad)
        }
    }

    static func replicateEdges(_ p: PlanePointer, width w: Int, height h: Int, padding pad: Int) {
        for y in 0..<h {
            let row = p.at(0, y)
            (row - pad).update(repeating: row[0], count: pad)
            (row + w).update(repeating: row[w - 1], count: pad)
        }
        for y in 1...pad {
            p.at(-pad, -y).update(from: p.at(-pad, 0), count: w + 2 * pad)
            p.at(-pad, h - 1 + y).update(from: p.at(-pad, h - 1), count: w + 2 * pad)
        }
    }
}

extension EncoderPicture {
    /// Replicates the edges of all three planes (see ``PaddedPlane/replicateEdges()``).
    public mutating func replicateEdges() {
        luma.replicateEdges(); cb.replicateEdges(); cr.replicateEdges()
    }
}

/// vtksoft's H.264 encoder engine: codes one picture as the request describes (slices, QP, lists,
/// headers) and rebuilds it exactly as a decoder would, deblocking included.
public struct H264PictureEncoder {
    private static let padding = EncoderPicture.defaultPadding
    /// Reference planes (full, b, h, j, Cb, Cr per slot) and the b1 scratch, reused.
    private var referenceStorage: [UInt8] = []
    /// Which reconstruction each slot of referenceStorage holds, prepared.
    private var referenceSlots = ReferenceSlots()
    private var halfPelScratch: [Int16] = []
    private var state: [MacroblockState] = []
    /// One syntax per macroblock of a band of rows for a slice coded as a wavefront (decided on several threads,
    /// written after; ``SliceEncoder/wavefrontBandRows``).
    private var wavefrontSyntaxes: [MacroblockSyntax] = []
    /// How many threads code one picture (at most 2). Several slices go in two groups of about equal
    /// macroblock counts, the second on a Dispatch worker; one slice has its macroblock rows shared as a
    /// wavefront (``MacroblockRowWavefront``), when the process may run on two processors at least. The
    /// output is the same for any value; 1 codes everything on the caller's thread.
    public var sliceConcurrency: Int
    /// Whether the stream has B pictures (VA: the sequence's ip_period > 1). P macroblocks refine both 16x8 and
    /// 8x16 then, for the vectors the B pictures predict from; without B pictures, only a shape whose whole-sample
    /// cost is within 1/64 of the lower one's.
    public var streamHasBPictures = true

    public init(sliceConcurrency: Int = 2) {
        self.sliceConcurrency = sliceConcurrency
    }

    /// The processors this process may run on (tests set 2 to run the wavefront on any machine).
    var usableProcessors = UsableProcessors.count

    /// Threads for a picture of one slice group: 2 for a wavefront, 1 for the serial loop.
    private var wavefrontThreads: Int { min(sliceConcurrency, usableProcessors, 2) }

    /// Codes one slice: its header (the client's packed bits verbatim, or written from the header), then its
    /// macroblocks with CABAC or CAVLC as the PPS says; the NAL unit, emulation prevention applied.
    /// With `wavefront` (threads and one syntax per macroblock of a band of rows), the slice's rows are decided on
    /// those threads (``SliceEncoder/encodeWavefront(_:header:coding:sliceIndex:macroblockCount:directSpatial:weights:context:threads:syntaxes:)``);
    /// nil when they could not have their scratch.
    private static func codeSlice(_ slice: SliceRequest, index i: Int, sps: SequenceParameterSet, pps: PictureParameterSet,
                                  weights: PredictionWeights, encoder: inout MacroblockEncoder, syntax mb: inout MacroblockSyntax,
                                  wavefront: (threads: Int, syntaxes: UnsafeMutablePointer<MacroblockSyntax>)? = nil) -> [UInt8]? {
        let w = sps.picWidthInMbs, h = sps.frameHeightInMbs
        let header = slice.header
        var bits = BitWriter()
        if let packed = slice.packedHeader {
            for k in 0..<(packed.bitLength / 8) { bits.u(8, UInt32(packed.bytes[k])) }
            let rest = packed.bitLength % 8
            if rest > 0 { bits.u(rest, UInt32(packed.bytes[packed.bitLength / 8] >> UInt8(8 - rest))) }
        } else {
            header.write(&bits, sps: sps, pps: pps)
        }
        let override = header.numRefIdxActiveOverrideFlag
        let coding = SliceCoding(
            sliceType: header.sliceType, widthInMbs: w, heightInMbs: h, firstMbInSlice: header.firstMbInSlice,
            sliceQP: 26 + pps.picInitQpMinus26 + header.sliceQpDelta, cabacInitIdc: header.cabacInitIdc,
            numRefIdxL0ActiveMinus1: override ? header.numRefIdxL0ActiveMinus1 : pps.numRefIdxL0DefaultActiveMinus1,
            numRefIdxL1ActiveMinus1: override ? header.numRefIdxL1ActiveMinus1 : pps.numRefIdxL1DefaultActiveMinus1,
            transform8x8Mode: pps.transform8x8ModeFlag, direct8x8Inference: sps.direct8x8InferenceFlag,
            constrainedIntraPred: pps.constrainedIntraPredFlag)
        encoder.weights = weights
        if let wavefront {
            let syntaxes = wavefront.syntaxes
            let rbsp = pps.entropyCodingModeFlag
                ? SliceEncoder.encodeWavefront(CABACSliceWriter.self, header: bits, coding: coding, sliceIndex: Int32(i),
                                               macroblockCount: slice.macroblockCount, directSpatial: header.directSpatialMvPredFlag,
                                               weights: weights, context: encoder.ctx, threads: wavefront.threads, syntaxes: syntaxes)
                : SliceEncoder.encodeWavefront(CAVLCSliceWriter.self, header: bits, coding: coding, sliceIndex: Int32(i),
                                               macroblockCount: slice.macroblockCount, directSpatial: header.directSpatialMvPredFlag,
                                               weights: weights, context: encoder.ctx, threads: wavefront.threads, syntaxes: syntaxes)
            return rbsp.map { [$0[0]] + EmulationPrevention.insert(Array($0[1...])) }
        }
        let rbsp = pps.entropyCodingModeFlag
            ? SliceEncoder.encode(CABACSliceWriter.self, header: bits, coding: coding, sliceIndex: Int32(i),
                                  macroblockCount: slice.macroblockCount, directSpatial: header.directSpatialMvPredFlag,
                                  encoder: &encoder, syntax: &mb)
            : SliceEncoder.encode(CAVLCSliceWriter.self, header: bits, coding: coding, sliceIndex: Int32(i),
                                  macroblockCount: slice.macroblockCount, directSpatial: header.directSpatialMvPredFlag,
                                  encoder: &encoder, syntax: &mb)
        return [rbsp[0]] + EmulationPrevention.insert(Array(rbsp[1...]))
    }

    public mutating func encode(_ request: EncodeRequest) throws(EncodingError) -> EncodedPicture {
        let sps = request.sps, pps = request.pps
        guard sps.frameMbsOnlyFlag else { throw .unsupported("interlaced coding (frame_mbs_only_flag 0)") }
        guard sps.chromaFormatIdc == 1, !sps.separateColourPlaneFlag else { throw .unsupported("chroma_format_idc \(sps.chromaFormatIdc)") }
        guard sps.bitDepthLuma == 8, sps.bitDepthChroma == 8 else { throw .unsupported("bit depth other than 8") }
        guard !sps.seqScalingMatrixPresentFlag, !pps.picScalingMatrixPresentFlag else { throw .unsupported("scaling matrices") }
        guard !sps.qpprimeYZeroTransformBypassFlag else { throw .unsupported("qpprime_y_zero_transform_bypass_flag") }
        // 7.4.2.2: chroma_qp_index_offset and second_chroma_qp_index_offset in -12...12.
        guard (-12...12).contains(pps.chromaQpIndexOffset), (-12...12).contains(pps.secondChromaQpIndexOffset) else {
            throw .inconsistent("chroma_qp_index_offset \(pps.chromaQpIndexOffset) / second_chroma_qp_index_offset \(pps.secondChromaQpIndexOffset) outside -12...12")
        }
        guard pps.numSliceGroupsMinus1 == 0 else { throw .unsupported("slice groups (FMO)") }
        let w = sps.picWidthInMbs, h = sps.frameHeightInMbs
        guard request.source.luma.width == 16 * w, request.source.luma.height == 16 * h,
              request.source.cb.width == 8 * w, request.source.cb.height == 8 * h, request.source.cr.width == 8 * w, request.source.cr.height == 8 * h else {
            throw .inconsistent("source is \(request.source.luma.width)x\(request.source.luma.height), the SPS codes \(16 * w)x\(16 * h)")
        }
        var covered = 0
        for (i, slice) in request.slices.enumerated() {
            let type = slice.header.sliceType
            guard type == .i || type == .p || type == .b else { throw .unsupported("slice type \(type)") }
            guard slice.header.firstMbInSlice == covered, slice.macroblockCount > 0 else {
                throw .inconsistent("slice \(i) starts at macroblock \(slice.header.firstMbInSlice), expected \(covered)")
            }
            covered += slice.macroblockCount
            // 7.4.3: SliceQPY in 0...51 (8-bit), whatever pic_init_qp and slice_qp_delta a client sent.
            let qp = 26 + pps.picInitQpMinus26 + slice.header.sliceQpDelta
            guard (0...51).contains(qp) else { throw .inconsistent("slice \(i): SliceQPY \(qp) outside 0...51") }
            if type != .i && request.refPicList0.isEmpty { throw .inconsistent("slice \(i) is \(type) but RefPicList0 is empty") }
            if type == .b && request.refPicList1.isEmpty { throw .inconsistent("slice \(i) is B but RefPicList1 is empty") }
            if let packed = slice.packedHeader, packed.bitLength > packed.bytes.count * 8 || packed.bitLength < 8 {
                throw .inconsistent("slice \(i): packed header bit length \(packed.bitLength) does not fit its \(packed.bytes.count) bytes")
            }
        }
        guard covered == w * h else { throw .inconsistent("the slices cover \(covered) macroblocks of \(w * h)") }
        // 8.4.2.3: each slice's weighted sample prediction, checked before anything is coded.
        var sliceWeights: [PredictionWeights] = []
        for slice in request.slices {
            sliceWeights.append(try PredictionWeights(pps: pps, header: slice.header, type: slice.header.sliceType, current: request.picOrderCnt,
                                                      list0: request.refPicList0, list1: request.refPicList1))
        }

        // The reconstruction's planes, apart while written (the picture's observers would make one access of all three).
        // Every macroblock rebuilds all its samples and replicateEdges fills the padding: no zero fill needed.
        var reconLuma = PaddedPlane(uninitializedWidth: 16 * w, height: 16 * h, padding: Self.padding)
        var reconCb = PaddedPlane(uninitializedWidth: 8 * w, height: 8 * h, padding: Self.padding / 2)
        var reconCr = PaddedPlane(uninitializedWidth: 8 * w, height: 8 * h, padding: Self.padding / 2)
        let source = request.source
        // Where (0, 0) is and the stride of each reconstruction plane, read inside the pointer scopes (a copy
        // of a plane there would share its samples, and writing them would then copy the whole plane).
        let reconLayout = (y: (reconLuma.index(0, 0), reconLuma.stride), cb: (reconCb.index(0, 0), reconCb.stride),
                           cr: (reconCr.index(0, 0), reconCr.stride))
        if state.count != w * h { state = [MacroblockState](repeating: MacroblockState(), count: w * h) } else {
            for i in state.indices { state[i] = MacroblockState() }
        }
        // Distinct reference pictures, by POC, each copied into padded planes with half samples.
        var distinct: [ReferencePicture] = []
        var l0Index: [Int] = [], l1Index: [Int] = []
        for (list, entries) in [(0, request.refPicList0), (1, request.refPicList1)] {
            for entry in entries {
                let found = distinct.firstIndex { $0.picOrderCnt == entry.picOrderCnt && $0.isLongTerm == entry.isLongTerm }
                let index = found ?? distinct.count
                if found == nil {
                    guard entry.picture.luma.width == 16 * w, entry.picture.luma.height == 16 * h, entry.picture.cb.width == 8 * w,
                          entry.picture.cb.height == 8 * h, entry.picture.cr.width == 8 * w, entry.picture.cr.height == 8 * h else {
                        throw .inconsistent("reference POC \(entry.picOrderCnt) is \(entry.picture.luma.width)x\(entry.picture.luma.height)")
                    }
                    distinct.append(entry)
                }
                if list == 0 { l0Index.append(index) } else { l1Index.append(index) }
            }
        }
        let lumaStride = 16 * w + 2 * Self.padding, lumaSize = lumaStride * (16 * h + 2 * Self.padding)
        let chromaPad = Self.padding / 2
        let chromaStride = 8 * w + 2 * chromaPad, chromaSize = chromaStride * (8 * h + 2 * chromaPad)
        let perReference = 4 * lumaSize + 2 * chromaSize
        if referenceSlots.slotBytes != perReference { referenceSlots.reset(slotBytes: perReference) }
        let slots = referenceSlots.assign(distinct.map(\.picture.reconstructionToken))
        let storageBytes = max(1, perReference * referenceSlots.count)
        if referenceStorage.count < storageBytes {  // growing keeps the slots prepared so far
            referenceStorage.append(contentsOf: repeatElement(0, count: storageBytes - referenceStorage.count))
        }
        if halfPelScratch.count < lumaSize { halfPelScratch = [Int16](repeating: 0, count: lumaSize) }
        var buffersMissing = false
        let colocated = request.refPicList1.first.map { $0.isLongTerm || $0.picture.colocatedZero.count != w * h ? [] : $0.picture.colocatedZero } ?? []

        var nalUnits: [[UInt8]] = []
        let controls = request.slices.map { s in
            Deblocking.SliceControl(disableIdc: pps.deblockingFilterControlPresentFlag ? s.header.disableDeblockingFilterIdc : 0,
                                    offsetA: pps.deblockingFilterControlPresentFlag ? 2 * s.header.sliceAlphaC0OffsetDiv2 : 0,
                                    offsetB: pps.deblockingFilterControlPresentFlag ? 2 * s.header.sliceBetaOffsetDiv2 : 0)
        }
        let pad = Self.padding
        // One slice on two processors (several slices go in two groups instead): its macroblock rows as a wavefront,
        // each macroblock of a band of rows into a syntax of its own (about 2 KB a macroblock, kept for the next band and picture).
        let groups = SliceGroups(request.slices.map(\.macroblockCount), concurrency: sliceConcurrency)
        let wavefrontThreads = groups.ranges.count < 2 && h > 1 ? self.wavefrontThreads : 1
        let deblockingThreads = self.wavefrontThreads
        if wavefrontThreads > 1 && wavefrontSyntaxes.count < w * min(h, SliceEncoder.wavefrontBandRows) {
            wavefrontSyntaxes = [MacroblockSyntax](repeating: MacroblockSyntax(), count: w * min(h, SliceEncoder.wavefrontBandRows))
        }
        wavefrontSyntaxes.withUnsafeMutableBufferPointer { syntaxBuf in
        referenceStorage.withUnsafeMutableBufferPointer { refBuf in
        halfPelScratch.withUnsafeMutableBufferPointer { scratchBuf in
        state.withUnsafeMutableBufferPointer { stateBuf in
        reconLuma.samples.withUnsafeMutableBufferPointer { ry in
        reconCb.samples.withUnsafeMutableBufferPointer { rcb in
        reconCr.samples.withUnsafeMutableBufferPointer { rcr in
        source.luma.samples.withUnsafeBufferPointer { sy in
        source.cb.samples.withUnsafeBufferPointer { scb in
        source.cr.samples.withUnsafeBufferPointer { scr in
            guard let refBase = refBuf.baseAddress, let scratchBase = scratchBuf.baseAddress, let stateBase = stateBuf.baseAddress,
                  let ryBase = ry.baseAddress, let rcbBase = rcb.baseAddress, let rcrBase = rcr.baseAddress,
                  let syBase = sy.baseAddress, let scbBase = scb.baseAddress, let scrBase = scr.baseAddress else {
                buffersMissing = true
                return
            }
            func view(_ b: UnsafeMutablePointer<UInt8>, _ layout: (origin: Int, stride: Int)) -> PlanePointer {
                PlanePointer(base: b + layout.origin, stride: layout.stride)
            }
            // The source is only read; PlanePointer is shared with the reconstruction, hence mutable.
            func view(_ b: UnsafePointer<UInt8>, _ plane: PaddedPlane) -> PlanePointer {
                PlanePointer(base: UnsafeMutablePointer(mutating: b) + plane.index(0, 0), stride: plane.stride)
            }
            // References
            var planes: [ReferencePlanes] = []
            for (i, ref) in distinct.enumerated() {
                let base = refBase + slots[i].slot * perReference
                func lumaPlane(_ k: Int) -> PlanePointer { PlanePointer(base: base + k * lumaSize + pad * lumaStride + pad, stride: lumaStride) }
                func chromaPlane(_ k: Int) -> PlanePointer {
                    PlanePointer(base: base + 4 * lumaSize + k * chromaSize + chromaPad * chromaStride + chromaPad, stride: chromaStride)
                }
                let r = ReferencePlanes(full: lumaPlane(0), halfH: lumaPlane(1), halfV: lumaPlane(2), halfHV: lumaPlane(3),
                                        cb: chromaPlane(0), cr: chromaPlane(1), width: 16 * w, height: 16 * h, padding: pad, identity: Int32(i))
                planes.append(r)
                if slots[i].prepared { continue }
                for (dst, plane, pw, ph, pp) in [(r.full, ref.picture.luma, 16 * w, 16 * h, pad), (r.cb, ref.picture.cb, 8 * w, 8 * h, chromaPad),
                                                 (r.cr, ref.picture.cr, 8 * w, 8 * h, chromaPad)] {
                    plane.samples.withUnsafeBufferPointer { src in
                        guard let s = src.baseAddress else { return }
                        for y in 0..<ph { dst.at(0, y).update(from: s + plane.index(0, y), count: pw) }
                    }
                    PaddedPlane.replicateEdges(dst, width: pw, height: ph, padding: pp)
                }
                InterPrediction.buildHalfPel(r, scratch: scratchBase)
            }
            let list0 = l0Index.map { planes[$0] }, list1 = l1Index.map { planes[$0] }
            list0.withUnsafeBufferPointer { l0 in
            list1.withUnsafeBufferPointer { l1 in
                let context = PictureContext(
                    sourceY: view(syBase, source.luma), sourceCb: view(scbBase, source.cb), sourceCr: view(scrBase, source.cr),
                    reconY: view(ryBase, reconLayout.y), reconCb: view(rcbBase, reconLayout.cb), reconCr: view(rcrBase, reconLayout.cr),
                    state: stateBase, widthInMbs: w, heightInMbs: h, list0: l0, list1: l1,
                    constrainedIntraPred: pps.constrainedIntraPredFlag,
                    cbQPOffset: pps.chromaQpIndexOffset, crQPOffset: pps.secondChromaQpIndexOffset,
                    colocatedZero: colocated, transform8x8Mode: pps.transform8x8ModeFlag,
                    direct8x8Inference: sps.direct8x8InferenceFlag, bPicturesFollow: streamHasBPictures)
                /// Codes the slices `range` with its own scratch and macroblock state; nil when the scratch is missing.
                func codeSlices(_ range: Range<Int>, state: UnsafeMutablePointer<MacroblockState>,
                                wavefront: (threads: Int, syntaxes: UnsafeMutablePointer<MacroblockSyntax>)? = nil) -> [[UInt8]]? {
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: MacroblockScratch.byteCount) { bytesBuffer in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: MacroblockScratch.wordCount) { wordsBuffer in
                        guard let bytes = bytesBuffer.baseAddress, let words = wordsBuffer.baseAddress else { return nil }
                        var sliceContext = context
                        sliceContext.state = state
                        var encoder = MacroblockEncoder(context: sliceContext, scratch: MacroblockScratch(bytes: bytes, words: words))
                        var mb = MacroblockSyntax()
                        var units: [[UInt8]] = []
                        for i in range {
                            guard let unit = Self.codeSlice(request.slices[i], index: i, sps: sps, pps: pps, weights: sliceWeights[i],
                                                            encoder: &encoder, syntax: &mb, wavefront: wavefront) else { return nil }
                            units.append(unit)
                        }
                        return units
                    }
                    }
                }
                if groups.ranges.count < 2 {
                    let wavefront = wavefrontThreads > 1 ? syntaxBuf.baseAddress.map { (threads: wavefrontThreads, syntaxes: $0) } : nil
                    guard let units = codeSlices(0..<request.slices.count, state: stateBase, wavefront: wavefront) else {
                        buffersMissing = true
                        return
                    }
                    nalUnits = units
                } else {
                    // The second group on another thread, with a state array of its own: its macroblocks read
                    // their neighbours' state only within their slice (6.4.x availability), so the first group's
                    // macroblocks, unwritten there, read as unavailable exactly as they do in serial coding.
                    // Each group writes only its own macroblocks' reconstruction; deblocking waits for both.
                    let second = groups.ranges[1]
                    let secondMbs = request.slices[second.lowerBound].header.firstMbInSlice..<(w * h)
                    var secondState = [MacroblockState](repeating: MacroblockState(), count: w * h)
                    let results = Locked<[[[UInt8]]?]>([nil, nil])
                    secondState.withUnsafeMutableBufferPointer { own in
                        guard let ownBase = own.baseAddress else { return }
                        // Unchecked for Sendable: the two calls share no mutable memory (above), and concurrentPerform
                        // returns only when both have.
                        nonisolated(unsafe) let code = codeSlices, states = (stateBase, ownBase)
                        DispatchQueue.concurrentPerform(iterations: 2) { g in
                            let units = code(groups.ranges[g], g == 0 ? states.0 : states.1, nil)
                            results.withLock { $0[g] = units }
                        }
                        (stateBase + secondMbs.lowerBound).update(from: ownBase + secondMbs.lowerBound, count: secondMbs.count)
                    }
                    guard let first = results.withLock({ $0[0] }), let rest = results.withLock({ $0[1] }) else { buffersMissing = true; return }
                    nalUnits = first + rest
                }
                Deblocking.filterPicture(y: context.reconY, cb: context.reconCb, cr: context.reconCr, state: stateBase,
                                         widthInMbs: w, heightInMbs: h, slices: controls,
                                         cbQPOffset: pps.chromaQpIndexOffset, crQPOffset: pps.secondChromaQpIndexOffset,
                                         threads: deblockingThreads)
            }
            }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        if buffersMissing {
            referenceSlots.reset(slotBytes: 0)  // slots assigned but not prepared
            throw .inconsistent("the engine could not obtain its working buffers")
        }
        var recon = EncoderPicture(luma: consume reconLuma, cb: consume reconCb, cr: consume reconCr)
        recon.replicateEdges()
        // One pass over the macroblocks' state, in plain loops: key paths used as functions cost a runtime key-path
        // projection (and a generic metadata lookup) per macroblock.
        var colocatedZero = [UInt8](repeating: 0, count: state.count)
        var maxRefIdxL0: Int8 = -1
        var partitionedCount = 0, transform8x8Count = 0
        for (i, mb) in state.enumerated() {
            colocatedZero[i] = mb.colocatedZero
            maxRefIdxL0 = max(maxRefIdxL0, mb.refIdx[0], mb.refIdx[2], mb.refIdx[4], mb.refIdx[6])
            if mb.partitioned { partitionedCount += 1 }
            if mb.transform8x8 { transform8x8Count += 1 }
        }
        recon.colocatedZero = colocatedZero
        recon.reconstructionToken = ReconstructionToken()
        var encoded = EncodedPicture(sliceNALUnits: nalUnits, reconstruction: recon)
        encoded.maxRefIdxL0 = Int(maxRefIdxL0)
        encoded.partitionedCount = partitionedCount
        encoded.transform8x8Count = transform8x8Count
        return encoded
    }
}
