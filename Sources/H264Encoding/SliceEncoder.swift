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
}
