import H265Bitstream
import NALStream

/// H.265 headers written by H265Bitstream's writers: complete NAL units (2-byte header and escaped RBSP, no
/// start code), and slice segment headers (NAL unit header, slice_segment_header(), byte_alignment(); unescaped).
enum H265HeaderBytes {
    static func nalUnit(_ vps: VideoParameterSet) -> [UInt8] { vps.nalUnit() }
    static func nalUnit(_ sps: H265SequenceParameterSet) -> [UInt8] { sps.nalUnit() }
    static func nalUnit(_ pps: H265PictureParameterSet) -> [UInt8] { pps.nalUnit() }
    static func sliceHeader(_ header: H265SliceSegmentHeader, sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> [UInt8] {
        var w = BitWriter()
        header.write(&w, sps: sps, pps: pps)
        return w.bytes
    }
}
