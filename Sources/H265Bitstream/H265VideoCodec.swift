import NALStream

extension VideoCodec {
    /// H.265 (ITU-T H.265), as MP4 stores it (hvcC) and RTP carries it (RFC 7798).
    public static let h265 = VideoCodec(
        name: "H.265", nalUnitHeaderSize: 2,
        parameterSetTypes: [H265NALUnitType.vps.rawValue, H265NALUnitType.sps.rawValue, H265NALUnitType.pps.rawValue],
        sampleEntryNames: ["hvc1", "hev1"], configurationRecordType: "hvcC",
        rtpEncodingName: "H265", sdpParameterSetKeys: ["sprop-vps", "sprop-sps", "sprop-pps"],
        nalUnitType: { $0.h265Header.type.rawValue },
        accessUnits: { H265AccessUnitAssembler.accessUnits(in: $0).map(\.nalUnits) },
        formatFromParameterSets: { (units, lengthSize) throws(BitstreamError) in
            func of(_ type: H265NALUnitType) -> [NALUnit] { units.filter { $0.h265Header.type == type } }
            return .h265(try H265FormatDescription(videoParameterSets: of(.vps), sequenceParameterSets: of(.sps),
                                                   pictureParameterSets: of(.pps), nalUnitLengthSize: lengthSize))
        },
        formatFromConfigurationRecord: { bytes throws(BitstreamError) in
            .h265(try H265FormatDescription(hvcC: HEVCDecoderConfigurationRecord(bytes: bytes)))
        },
        configurationRecord: { $0.hevc?.hvcC?.bytes })
}
