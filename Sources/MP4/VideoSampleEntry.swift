import NALStream

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

    /// The codec's first sample entry, whose parameter sets are only in its record (`avc1`; `hvc1`, 14496-15
    /// 8.4.1), with the configuration record (avcC, hvcC) of `format`.
    public init(_ format: FormatDescription) throws(MP4Error) {
        let codec = format.videoCodec
        guard let record = codec.configurationRecord(format), let name = codec.sampleEntryNames.first else {
            throw .invalidWriterInput("no \(codec.configurationRecordType) record for \(format)")
        }
        self.format = FourCC(name)
        configurationType = FourCC(codec.configurationRecordType)
        configuration = record
        width = format.displayWidth
        height = format.displayHeight
        sampleAspectRatio = format.sampleAspectRatio
        compressorName = "vtk \(codec.name)"
    }
}
