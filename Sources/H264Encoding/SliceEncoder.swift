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

    /// The same RBSP, the slice's macroblock rows decided on `threads` threads at once (a
    /// ``MacroblockRowWavefront``), each macroblock into its own syntax of `syntaxes` (one per macroblock of
    /// the slice, in decoding order); the entropy coder then writes them in decoding order on this thread.
    /// nil when a thread's scratch could not be had and rows were left undone.
    static func encodeWavefront<Writer: SliceDataWriter>(_: Writer.Type, header: BitWriter, coding: SliceCoding, sliceIndex: Int32,
                                                         macroblockCount: Int, directSpatial: Bool, weights: PredictionWeights,
                                                         context: PictureContext, threads: Int,
                                                         syntaxes: UnsafeMutablePointer<MacroblockSyntax>) -> [UInt8]? {
        let first = coding.firstMbInSlice
        let wavefront = MacroblockRowWavefront(firstMb: first, macroblockCount: macroblockCount, widthInMbs: coding.widthInMbs)
        // Unchecked for Sendable: each thread writes only the syntaxes of the rows it took, and concurrentPerform
        // returns only when every thread has.
        nonisolated(unsafe) let out = syntaxes, shared = context
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
        var writer = Writer(header: header, slice: coding)
        var mb = MacroblockSyntax()
        for i in 0..<macroblockCount {
            swap(&mb, &syntaxes[i])
            writer.write(mb)
            swap(&mb, &syntaxes[i])
        }
        return writer.finish()
    }
}
