extension SliceHeader {
    /// The coded slice NAL unit `unit` (whose header is `original`, parsed from it) with this header in
    /// place of the original and the same slice_data() (7.3.4): CABAC data, which starts byte-aligned after
    /// cabac_alignment_one_bit, is copied by bytes; CAVLC data bit by bit up to the rbsp_stop_one_bit.
    /// `sps` and `pps` are the sets this header is written for.
    public func replacing(in unit: NALUnit, original: SliceHeader, sps: SequenceParameterSet,
                          pps: PictureParameterSet) throws(BitstreamError) -> NALUnit {
        let rbsp = unit.rbsp
        var w = BitWriter()
        writeHeaderRBSP(&w, sps: sps, pps: pps)
        if pps.entropyCodingModeFlag {
            while !w.isByteAligned { w.u(1, 1) }  // cabac_alignment_one_bit
            let dataStart = (original.headerBitLengthInRBSP + 7) / 8
            w.append(bytes: Array(rbsp[min(dataStart, rbsp.count)...]))
        } else {
            guard let last = rbsp.lastIndex(where: { $0 != 0 }) else {
                throw .malformedNALUnit(byteOffset: unit.offset, reason: "a slice without rbsp_stop_one_bit")
            }
            let stopBit = last * 8 + 7 - rbsp[last].trailingZeroBitCount
            var r = BitReader(rbsp)
            try r.skip(original.headerBitLengthInRBSP)
            while r.bitPosition < stopBit {
                let n = min(32, stopBit - r.bitPosition)
                w.u(n, Int(try r.u(n)))
            }
            w.rbspTrailingBits()
        }
        return NALUnit([unit.bytes.first ?? 0] + EmulationPrevention.insert(w.bytes), offset: unit.offset)
    }
}
