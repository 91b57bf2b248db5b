import H265Bitstream
import NALStream

/// A slice segment coded up to its sao() syntax: sao() comes first in each CTB but is decided on the deblocked
/// picture, so the CTBs' bins wait here until the SAO decision, then follow each CTB's sao() (7.3.8.2).
struct H265DeferredSlice {
    let index: Int
    /// NAL unit header + slice_segment_header() + byte_alignment(), unescaped.
    let headerBytes: [UInt8]
    let initType: Int
    let sliceQP: Int
    /// CTB addresses (raster).
    let ctbs: Range<Int>
    /// slice_sao_luma_flag, slice_sao_chroma_flag as the decoder reads them.
    let luma: Bool, chroma: Bool
    /// The recorded bins of the slice's CTBs (H265SyntaxWriter's ``H265SyntaxWriter/recorded``), and where each CTB's begin.
    let bins: [UInt64]
    let ctbBins: [Int]

    /// slice_sao_luma_flag and slice_sao_chroma_flag: 0 when absent (7.4.7.1).
    static func saoFlags(_ h: H265SliceSegmentHeader, sps: H265SequenceParameterSet) -> (luma: Bool, chroma: Bool) {
        guard sps.sampleAdaptiveOffsetEnabledFlag else { return (false, false) }
        return (h.saoLumaFlag, h.saoChromaFlag && sps.chromaArrayType != 0)
    }

    /// slice_loop_filter_across_slices_enabled_flag: pps_loop_filter_across_slices_enabled_flag when absent (7.4.7.1).
    static func acrossSlices(_ h: H265SliceSegmentHeader, pps: H265PictureParameterSet, sao: Bool) -> Bool {
        let present = pps.loopFilterAcrossSlicesEnabledFlag && (sao || !h.deblockingFilterDisabledFlag)
        return present ? h.loopFilterAcrossSlicesEnabledFlag : pps.loopFilterAcrossSlicesEnabledFlag
    }
}

extension H265PictureCoder {
    /// After deblocking (8.7.3): decides each CTB's SAO in the slices that code it, applies it to the
    /// reconstruction, and writes those slices' NAL units into `units` (by slice index).
    mutating func sampleAdaptiveOffset(into units: inout [[UInt8]]) {
        guard !deferredSlices.isEmpty else { return }
        let filter = H265SampleAdaptiveOffset(log2Ctb: log2Ctb, widthInCtbs: ctbWidth, heightInCtbs: sps.picHeightInCtbs,
                                              sliceOfCtb: sliceOfCtb, acrossSlices: deblockControls.map(\.acrossSlices))
        let decision = H265SAODecision(bitDepth: bitDepth, log2Ctb: log2Ctb)
        var parameters = [H265SAOParameters](repeating: .off, count: sps.picSizeInCtbs)
        var syntax = [H265SAOSyntax](repeating: .new(.off), count: sps.picSizeInCtbs)
        let deblocked = recon
        let planes: [(source: [UInt16], deblocked: [UInt16], width: Int, height: Int, shift: Int)] = [
            (source.luma, deblocked.luma, width, height, 0),
            (source.cb, deblocked.cb, width >> 1, height >> 1, 1),
            (source.cr, deblocked.cr, width >> 1, height >> 1, 1),
        ]
        for slice in deferredSlices {
            let lambda = decision.lambda(sliceQP: slice.sliceQP) * saoLambdaScale
            for addr in slice.ctbs {
                let rx = addr % ctbWidth, ry = addr / ctbWidth
                let mask = filter.neighbourMask(rx, ry)
                var statistics = [H265SAODecision.Statistics](repeating: .init(), count: 3)
                for cIdx in 0..<3 where cIdx == 0 ? slice.luma : slice.chroma {
                    let p = planes[cIdx]
                    let region = filter.region(rx, ry, shift: p.shift, planeWidth: p.width, planeHeight: p.height)
                    statistics[cIdx] = p.source.withUnsafeBufferPointer { s in
                        p.deblocked.withUnsafeBufferPointer { d in
                            H265SAODecision.statistics(source: s, deblocked: d, region: region, mask: mask, bitDepth: bitDepth)
                        }
                    }
                }
                let left = rx > 0 && sliceOfCtb[addr - 1] == slice.index ? parameters[addr - 1] : nil
                let up = ry > 0 && sliceOfCtb[addr - ctbWidth] == slice.index ? parameters[addr - ctbWidth] : nil
                let choice = decision.decide(statistics, luma: slice.luma, chroma: slice.chroma, left: left, up: up, lambda: lambda)
                parameters[addr] = choice.parameters
                syntax[addr] = choice.syntax
                record(choice.syntax, choice.parameters)
            }
        }
        filter.apply(to: &recon, parameters: parameters)
        for slice in deferredSlices {
            var writer = H265SyntaxWriter()
            writer.initialiseContexts(initType: slice.initType, sliceQP: slice.sliceQP)
            for (i, addr) in slice.ctbs.enumerated() {
                let rx = addr % ctbWidth, ry = addr / ctbWidth
                writer.sao(syntax[addr], mergeLeftPossible: rx > 0 && sliceOfCtb[addr - 1] == slice.index,
                           mergeUpPossible: ry > 0 && sliceOfCtb[addr - ctbWidth] == slice.index,
                           luma: slice.luma, chroma: slice.chroma, bitDepth: bitDepth)
                let end = i + 1 < slice.ctbBins.count ? slice.ctbBins[i + 1] : slice.bins.count
                writer.replay(slice.bins[slice.ctbBins[i]..<end])
            }
            let h = slice.headerBytes
            units[slice.index] = Array(h.prefix(2)) + EmulationPrevention.insert(Array(h.dropFirst(2)) + writer.engine.bytes)
        }
        deferredSlices = []
    }

    /// Counts a CTB's SAO in the statistics.
    private mutating func record(_ syntax: H265SAOSyntax, _ p: H265SAOParameters) {
        switch syntax {
        case .mergeLeft, .mergeUp: statistics.saoMergedCTBs += 1
        case .new:
            for c in p.components {
                if c.kind == .band { statistics.saoBandComponents += 1 }
                if c.kind == .edge { statistics.saoEdgeComponents += 1 }
            }
        }
    }
}
