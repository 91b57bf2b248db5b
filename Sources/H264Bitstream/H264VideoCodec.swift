extension VideoCodec {
    /// H.264 (ISO/IEC 14496-10), as MP4 stores it (avcC) and RTP carries it (RFC 6184).
    public static let h264 = VideoCodec(
        name: "H.264", nalUnitHeaderSize: 1,
        parameterSetTypes: [NALUnitType.sequenceParameterSet.rawValue, NALUnitType.pictureParameterSet.rawValue],
        sampleEntryNames: ["avc1", "avc3"], configurationRecordType: "avcC",
        rtpEncodingName: "H264", sdpParameterSetKeys: ["sprop-parameter-sets"],
        nalUnitType: { $0.type.rawValue },
        accessUnits: { AccessUnitAssembler.accessUnits(in: $0).map(\.nalUnits) },
        formatFromParameterSets: { (units, lengthSize) throws(BitstreamError) in
            .h264(try H264FormatDescription(sequenceParameterSets: units.filter { $0.type == .sequenceParameterSet },
                                            pictureParameterSets: units.filter { $0.type == .pictureParameterSet },
                                            nalUnitLengthSize: lengthSize))
        },
        formatFromConfigurationRecord: { bytes throws(BitstreamError) in
            .h264(try H264FormatDescription(avcC: AVCDecoderConfigurationRecord(bytes: bytes)))
        },
        configurationRecord: { $0.avc?.avcC.bytes })
}
