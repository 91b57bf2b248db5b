import Dispatch
import H264Bitstream

/// The macroblock loop of one slice (7.3.4): each macroblock decided and rebuilt by the
/// ``MacroblockEncoder``, then written by the slice's entropy coder.
enum SliceEncoder {
    /// Codes the slice's macroblocks after `header` (NAL header byte + slice_header() bits) and returns
    /// the complete RBSP (header included, not escaped).
    static func encode<Writer: SliceDataWriter>(_: Writer.Type, header: BitWriter, coding: SliceCoding, sliceIndex: Int32,
                                                macroblockCount: Int, directSpatial: Bool, encoder: inout MacroblockEncoder,
                                                syntax mb: inout MacroblockSyntax) -> [UInt8] {
        var writer = Writer(header: header, slice: coding)
        encoder.directSpatial = directSpatial
        for mbAddr in coding.firstMbInSlice..<(coding.firstMbInSlice + macroblockCount) {
            encoder.encode(mbAddr: mbAddr, slice: sliceIndex, sliceType: coding.sliceType, qp: coding.sliceQP, into: &mb)
            writer.write(mb)
        }
        return writer.finish()
    }

    /// Macroblock rows a wavefront decides before the entropy coder writes them, in bands: the syntaxes it keeps
    /// (about 2 KB a macroblock) are those of this many rows, not of the picture (0.6 MB at 720p, 3.7 MB at 2160p,
    /// instead of 7 MB and 60 MB).
    static let wavefrontBandRows = 8

    /// The same RBSP, the slice's macroblock rows decided on `threads` threads at once (a
    /// ``MacroblockRowWavefront``), band by band of ``wavefrontBandRows`` rows, each macroblock of a band into its
    /// own syntax of `syntaxes` (in decoding order, from the band's first macroblock; `wavefrontBandRows` times the
    /// picture's width of them); the entropy coder then writes the band in decoding order on this thread, and the
    /// next band starts (its first row's neighbours above are finished). nil when a thread's scratch could not be
    /// had and rows were left undone.
    static func encodeWavefront<Writer: SliceDataWriter>(_: Writer.Type, header: BitWriter, coding: SliceCoding, sliceIndex: Int32,
                                                         macroblockCount: Int, directSpatial: Bool, weights: PredictionWeights,
                                                         context: PictureContext, threads: Int,
                                                         syntaxes: UnsafeMutablePointer<MacroblockSyntax>) -> [UInt8]? {
        let end = coding.firstMbInSlice + macroblockCount, w = coding.widthInMbs
        var writer = Writer(header: header, slice: coding)
        // Unchecked for Sendable: each thread writes only the syntaxes of the rows it took, and concurrentPerform
        // returns only when every thread has.
        nonisolated(unsafe) let out = syntaxes, shared = context
        var bandStart = coding.firstMbInSlice
        while bandStart < end {
            let first = bandStart, bandEnd = min(end, (bandStart / w + wavefrontBandRows) * w)
            let wavefront = MacroblockRowWavefront(firstMb: first, macroblockCount: bandEnd - first, widthInMbs: w)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: MacroblockScratch.byteCount) { bytesBuffer in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: MacroblockScratch.wordCount) { wordsBuffer in
                    guard let bytes = bytesBuffer.baseAddress, let words = wordsBuffer.baseAddress else { return }
                    var encoder = MacroblockEncoder(context: shared, scratch: MacroblockScratch(bytes: bytes, words: words))
                    encoder.directSpatial = directSpatial
                    encoder.weights = weights
                    // Each macroblock is decided in a local syntax swapped with its slot (no copy, no reference counting).
                    var mb = MacroblockSyntax()
                    wavefront.forEachMacroblock { mbAddr in
                        swap(&mb, &out[mbAddr - first])
                        encoder.encode(mbAddr: mbAddr, slice: sliceIndex, sliceType: coding.sliceType, qp: coding.sliceQP, into: &mb)
                        swap(&mb, &out[mbAddr - first])
                    }
                }
                }
            }
            guard wavefront.isComplete else { return nil }
            var mb = MacroblockSyntax()
            for i in 0..<(bandEnd - first) {
                swap(&mb, &syntaxes[i])
                writer.write(mb)
                swap(&mb, &syntaxes[i])
            }
            bandStart = bandEnd
        }
        return writer.finish()
    }
}
