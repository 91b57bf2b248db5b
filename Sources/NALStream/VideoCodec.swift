/// What vtk needs to know of one codec to frame, describe, store and send its streams, so that callers
/// ask this value instead of switching on the codec. Each codec module defines its value
/// (`VideoCodec.h264` in H264Bitstream, `VideoCodec.h265` in H265Bitstream); the next codec adds one more.
///
/// The VA profiles and the decoding process stay with the VA and decoding layers, which know their types.
public struct VideoCodec: Sendable, Equatable, CustomStringConvertible {
    /// "H.264", "H.265".
    public let name: String
    /// Bytes of the NAL unit header: 1 for H.264 (7.3.1), 2 for H.265 (7.3.1.2).
    public let nalUnitHeaderSize: Int
    /// nal_unit_type of each parameter set, in the order they go in front of a sync sample.
    public let parameterSetTypes: [UInt8]
    /// MP4 sample-entry names (ISO/IEC 14496-15): parameter sets in the record only, then also in band.
    public let sampleEntryNames: [String]
    /// The box of the decoder configuration record: "avcC" (5.3.3), "hvcC" (8.3.3).
    public let configurationRecordType: String
    /// The encoding name of the SDP rtpmap line (RFC 6184 8.1, RFC 7798 7.1).
    public let rtpEncodingName: String
    /// The fmtp parameters that carry the parameter sets (RFC 6184 8.1, RFC 7798 7.1).
    public let sdpParameterSetKeys: [String]
    /// nal_unit_type of a NAL unit (its first header byte(s) read by the codec's rule).
    public let nalUnitType: @Sendable (NALUnit) -> UInt8
    /// The access units of a whole Annex B stream, each as its NAL units (7.4.1.2.3 of H.264, 7.4.2.4.4 of H.265).
    public let accessUnits: @Sendable ([UInt8]) -> [[NALUnit]]
    /// The format description made of parameter sets (in any order; other NAL units are ignored).
    public let formatFromParameterSets: @Sendable ([NALUnit], Int) throws(BitstreamError) -> FormatDescription
    /// The format description read from a configuration record's payload (avcC, hvcC).
    public let formatFromConfigurationRecord: @Sendable ([UInt8]) throws(BitstreamError) -> FormatDescription
    /// The configuration record's payload for a description of this codec; nil for another codec's.
    public let configurationRecord: @Sendable (FormatDescription) -> [UInt8]?

    public init(name: String, nalUnitHeaderSize: Int, parameterSetTypes: [UInt8], sampleEntryNames: [String],
                configurationRecordType: String, rtpEncodingName: String, sdpParameterSetKeys: [String],
                nalUnitType: @escaping @Sendable (NALUnit) -> UInt8,
                accessUnits: @escaping @Sendable ([UInt8]) -> [[NALUnit]],
                formatFromParameterSets: @escaping @Sendable ([NALUnit], Int) throws(BitstreamError) -> FormatDescription,
                formatFromConfigurationRecord: @escaping @Sendable ([UInt8]) throws(BitstreamError) -> FormatDescription,
                configurationRecord: @escaping @Sendable (FormatDescription) -> [UInt8]?) {
        self.name = name
        self.nalUnitHeaderSize = nalUnitHeaderSize
        self.parameterSetTypes = parameterSetTypes
        self.sampleEntryNames = sampleEntryNames
        self.configurationRecordType = configurationRecordType
        self.rtpEncodingName = rtpEncodingName
        self.sdpParameterSetKeys = sdpParameterSetKeys
        self.nalUnitType = nalUnitType
        self.accessUnits = accessUnits
        self.formatFromParameterSets = formatFromParameterSets
        self.formatFromConfigurationRecord = formatFromConfigurationRecord
        self.configurationRecord = configurationRecord
    }

    /// True for a VPS, SPS or PPS of this codec.
    public func isParameterSet(_ unit: NALUnit) -> Bool { parameterSetTypes.contains(nalUnitType(unit)) }

    /// The format description made of the parameter sets among `units`.
    public func formatDescription(parameterSets units: [NALUnit], nalUnitLengthSize: Int = 4) throws(BitstreamError) -> FormatDescription {
        try formatFromParameterSets(units.filter(isParameterSet), nalUnitLengthSize)
    }

    /// The format description a configuration record's payload holds.
    public func formatDescription(configurationRecord bytes: [UInt8]) throws(BitstreamError) -> FormatDescription {
        try formatFromConfigurationRecord(bytes)
    }

    public var description: String { name }

    /// One value per codec: two are the same codec when their names are.
    public static func == (a: VideoCodec, b: VideoCodec) -> Bool { a.name == b.name }
}
