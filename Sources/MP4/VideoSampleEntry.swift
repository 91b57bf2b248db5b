import H264Bitstream
import H265Bitstream

/// What the writer puts in `stsd` (8.5.2.2): the sample entry's format (`avc1`, `hvc1`), its decoder
/// configuration box (`avcC`, ISO/IEC 14496-15 5.3.3; `hvcC`, 8.3.3), size and pixel aspect ratio.
public struct VideoSampleEntry: Sendable {
    public let format: FourCC
    public let configurationType: FourCC
    public let configuration: [UInt8]
    /// Display size (after cropping).
    public let width: Int
    public let height: Int
    public let sampleAspectRatio: (width: Int, height: Int)
    /// compressorname (at most 31 bytes).
    public let compressorName: String

    /// `avc1` with the avcC of an H.264 format description.
    public init(_ format: H264FormatDescription) {
        self.format = "avc1"
        configurationType = "avcC"
        configuration = format.avcC.bytes
        width = format.displayWidth
        height = format.displayHeight
        sampleAspectRatio = format.sampleAspectRatio
        compressorName = "vtk H.264"
    }

    /// `hvc1` (parameter sets only in the hvcC, 14496-15 8.4.1) with the hvcC of an H.265 format description.
    public init(_ format: H265FormatDescription) throws(MP4Error) {
        guard let record = format.hvcC else { throw .invalidWriterInput("no hvcC record for \(format)") }
        self.format = "hvc1"
        configurationType = "hvcC"
        configuration = record.bytes
        width = format.displayWidth
        height = format.displayHeight
        sampleAspectRatio = format.sampleAspectRatio
        compressorName = "vtk H.265"
    }
}
