import H264Bitstream

/// PLACEHOLDER until the engine (branch i14e) is merged: codes every macroblock as I_PCM with CAVLC, so
/// that the VA side can be tested end to end (the reconstruction is the source, exactly).
public struct H264PictureEncoder {
    public init() {}

    public mutating func encode(_ request: EncodeRequest) throws(EncodingError) -> EncodedPicture {
        guard !request.pps.entropyCodingModeFlag else { throw .unsupported("CABAC (placeholder engine)") }
        let widthInMbs = request.sps.picWidthInMbs
        var units: [[UInt8]] = []
        for slice in request.slices {
            var w = BitWriter()
            if let packed = slice.packedHeader {
                for i in 0..<packed.bitLength { w.u(1, Int(packed.bytes[i / 8] >> (7 - UInt8(i % 8))) & 1) }
            } else {
                slice.header.write(&w, sps: request.sps, pps: request.pps)
            }
            let type = slice.header.sliceType
            let pcm = type == .i ? 25 : (type == .p ? 30 : 48)  // Tables 7-11, 7-13, 7-14
            for mb in slice.header.firstMbInSlice..<(slice.header.firstMbInSlice + slice.macroblockCount) {
                if type != .i { w.ue(0) }  // mb_skip_run
                w.ue(pcm)
                w.alignWithZeros()
                let x = mb % widthInMbs, y = mb / widthInMbs
                for row in 0..<16 { for col in 0..<16 { w.u(8, Int(request.source.luma.samples[request.source.luma.index(x * 16 + col, y * 16 + row)])) } }
                for plane in [request.source.cb, request.source.cr] {
                    for row in 0..<8 { for col in 0..<8 { w.u(8, Int(plane.samples[plane.index(x * 8 + col, y * 8 + row)])) } }
                }
            }
            w.rbspTrailingBits()
            units.append([w.bytes[0]] + EmulationPrevention.insert(Array(w.bytes.dropFirst())))
        }
        return EncodedPicture(sliceNALUnits: units, reconstruction: request.source)
    }
}
