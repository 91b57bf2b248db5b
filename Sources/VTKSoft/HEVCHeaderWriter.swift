import H265Bitstream
import NALStream

/// The one place vtksoft writes H.265 headers, through H265Bitstream's writers: complete NAL units (2-byte
/// header and escaped RBSP, no start code), and packed slice headers (NAL header, slice_segment_header()
/// and byte_alignment(), unescaped, every bit counted).
enum HEVCHeaderWriter {
    static func nalUnit(_ vps: VideoParameterSet) -> [UInt8] { vps.nalUnit() }
    static func nalUnit(_ sps: H265SequenceParameterSet) -> [UInt8] { sps.nalUnit() }
    static func nalUnit(_ pps: H265PictureParameterSet) -> [UInt8] { pps.nalUnit() }
    static func sliceHeader(_ header: H265SliceSegmentHeader, sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> (bytes: [UInt8], bitLength: Int) {
        var w = BitWriter()
        header.write(&w, sps: sps, pps: pps)
        return (w.bytes, w.bitCount)
    }
}
