// H.264's syntax is read from NAL units framed by NALStream: modules that import H264Bitstream see
// NALUnit, the framings, BitReader/BitWriter and BitstreamError without importing NALStream as well.
@_exported import NALStream
