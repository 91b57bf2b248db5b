import H264Bitstream

/// PLACEHOLDER until the engine (branch i14e) is merged: codes every macroblock as I_PCM through the
/// slice data writers (CAVLC or CABAC), so that the VA side can be tested end to end (the reconstruction
/// is the source, exactly; I_PCM's QP 0 leaves deblocking nothing to do).
public struct H264PictureEncoder {
    public init() {}

    public mutating func encode(_ request: EncodeRequest) throws(EncodingError) -> EncodedPicture {
        let sps = request.sps, pps = request.pps
        var units: [[UInt8]] = []
        var mb = MacroblockSyntax()
        for slice in request.slices {
            var w = BitWriter()
            if let packed = slice.packedHeader {
                for i in 0..<packed.bitLength { w.u(1, Int(packed.bytes[i / 8] >> (7 - UInt8(i % 8))) & 1) }
            } else {
                slice.header.write(&w, sps: sps, pps: pps)
            }
            let h = slice.header
            let coding = SliceCoding(sliceType: h.sliceType, widthInMbs: sps.picWidthInMbs, heightInMbs: sps.frameHeightInMbs,
                                     firstMbInSlice: h.firstMbInSlice, sliceQP: 26 + pps.picInitQpMinus26 + h.sliceQpDelta,
                                     cabacInitIdc: h.cabacInitIdc, numRefIdxL0ActiveMinus1: h.numRefIdxL0ActiveMinus1,
                                     numRefIdxL1ActiveMinus1: h.numRefIdxL1ActiveMinus1, transform8x8Mode: pps.transform8x8ModeFlag,
                                     direct8x8Inference: sps.direct8x8InferenceFlag, constrainedIntraPred: pps.constrainedIntraPredFlag)
            func code<Writer: SliceDataWriter>(_: Writer.Type) -> [UInt8] {
                var writer = Writer(header: w, slice: coding)
                for address in h.firstMbInSlice..<(h.firstMbInSlice + slice.macroblockCount) {
                    mb.reset(kind: .pcm)
                    let x = address % sps.picWidthInMbs, y = address / sps.picWidthInMbs
                    var i = 0
                    for row in 0..<16 { for col in 0..<16 { mb.pcmSamples[i] = request.source.luma.samples[request.source.luma.index(x * 16 + col, y * 16 + row)]; i += 1 } }
                    for plane in [request.source.cb, request.source.cr] {
                        for row in 0..<8 { for col in 0..<8 { mb.pcmSamples[i] = plane.samples[plane.index(x * 8 + col, y * 8 + row)]; i += 1 } }
                    }
                    writer.write(mb)
                }
                return writer.finish()
            }
            let rbsp = pps.entropyCodingModeFlag ? code(CABACSliceWriter.self) : code(CAVLCSliceWriter.self)
            units.append([rbsp[0]] + EmulationPrevention.insert(Array(rbsp.dropFirst())))
        }
        return EncodedPicture(sliceNALUnits: units, reconstruction: request.source)
    }
}
