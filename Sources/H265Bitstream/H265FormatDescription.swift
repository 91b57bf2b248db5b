import NALStream

/// What a decoder needs to know about an H.265 stream before its first picture (CMVideoFormatDescription
/// made with CMVideoFormatDescriptionCreateFromHEVCParameterSets): sizes, profile, level, the VPS/SPS/PPS
/// and how samples frame their NAL units.
public struct H265FormatDescription: CodecFormatDescription, Hashable {
    public var videoCodec: VideoCodec { .h265 }
    public let videoParameterSets: [NALUnit]
    public let sequenceParameterSets: [NALUnit]
    public let pictureParameterSets: [NALUnit]
    public let nalUnitLengthSize: Int
    /// The parsed first SPS.
    public let sps: H265SequenceParameterSet

    public init(videoParameterSets: [NALUnit], sequenceParameterSets: [NALUnit], pictureParameterSets: [NALUnit],
                nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        guard !videoParameterSets.isEmpty else { throw .missingParameterSet(kind: "VPS", id: 0) }
        guard let first = sequenceParameterSets.first else { throw .missingParameterSet(kind: "SPS", id: 0) }
        guard !pictureParameterSets.isEmpty else { throw .missingParameterSet(kind: "PPS", id: 0) }
        try LengthPrefixedSample.checkLengthSize(nalUnitLengthSize)
        func normalized(_ unit: NALUnit) -> NALUnit { unit.withoutTrailingZeroBytes(headerSize: 2) }
        var sets = H265ParameterSets()
        for unit in videoParameterSets + sequenceParameterSets + pictureParameterSets { try sets.store(normalized(unit)) }
        sps = try H265SequenceParameterSet(nalUnit: normalized(first))
        for pps in sets.pps.values where sets.sps[pps.seqParameterSetId] == nil {
            throw .missingParameterSet(kind: "SPS", id: pps.seqParameterSetId)
        }
        self.videoParameterSets = videoParameterSets.map(normalized)
        self.sequenceParameterSets = sequenceParameterSets.map(normalized)
        self.pictureParameterSets = pictureParameterSets.map(normalized)
        self.nalUnitLengthSize = nalUnitLengthSize
    }

    /// From an hvcC record.
    public init(hvcC record: HEVCDecoderConfigurationRecord) throws(BitstreamError) {
        try self.init(videoParameterSets: record.nalUnits(ofType: .vps).map { NALUnit($0) },
                      sequenceParameterSets: record.nalUnits(ofType: .sps).map { NALUnit($0) },
                      pictureParameterSets: record.nalUnits(ofType: .pps).map { NALUnit($0) },
                      nalUnitLengthSize: record.nalUnitLengthSize)
    }

    /// From the parameter sets an Annex B stream carried in band.
    public init(parameterSets: H265ParameterSets, nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        func sorted(_ d: [Int: NALUnit]) -> [NALUnit] { d.sorted { $0.key < $1.key }.map(\.value) }
        try self.init(videoParameterSets: sorted(parameterSets.vpsNALUnits), sequenceParameterSets: sorted(parameterSets.spsNALUnits),
                      pictureParameterSets: sorted(parameterSets.ppsNALUnits), nalUnitLengthSize: nalUnitLengthSize)
    }

    public var hvcC: HEVCDecoderConfigurationRecord? {
        try? HEVCDecoderConfigurationRecord(vps: videoParameterSets, sps: sequenceParameterSets, pps: pictureParameterSets,
                                            nalUnitLengthSize: nalUnitLengthSize)
    }

    /// The VPS, SPS and PPS: what goes in front of a sync sample.
    public var parameterSetNALUnits: [NALUnit] { videoParameterSets + sequenceParameterSets + pictureParameterSets }

    public var codedWidth: Int { sps.picWidthInLumaSamples }
    public var codedHeight: Int { sps.picHeightInLumaSamples }
    public var displayWidth: Int { sps.displayWidth }
    public var displayHeight: Int { sps.displayHeight }
    public var cleanAperture: (x: Int, y: Int, width: Int, height: Int) { sps.cropRectangle }
    public var sampleAspectRatio: (width: Int, height: Int) { sps.vuiParametersPresentFlag ? sps.vui.sampleAspectRatio ?? (1, 1) : (1, 1) }
    public var bitDepth: Int { sps.bitDepthLuma }
    public var profileName: String { sps.profileTierLevel.profileName }
    /// general_level_idc / 30 is the level number (A.4).
    public var levelIdc: Int { sps.profileTierLevel.generalLevelIdc }
    public var frameRate: (numerator: Int, denominator: Int)? {
        let vui = sps.vui
        guard sps.vuiParametersPresentFlag, vui.timingInfoPresentFlag, vui.numUnitsInTick > 0, vui.timeScale > 0 else { return nil }
        return (vui.timeScale, vui.numUnitsInTick)
    }

    /// True when a decoder made for `other` cannot decode this stream.
    public func requiresNewDecoder(comparedTo other: H265FormatDescription) -> Bool {
        let a = sps, b = other.sps
        return a.picWidthInLumaSamples != b.picWidthInLumaSamples || a.picHeightInLumaSamples != b.picHeightInLumaSamples
            || a.profileTierLevel.profile != b.profileTierLevel.profile || a.chromaFormatIdc != b.chromaFormatIdc
            || a.bitDepthLuma != b.bitDepthLuma || a.bitDepthChroma != b.bitDepthChroma || a.maxDecPicBuffering != b.maxDecPicBuffering
            || a.cropRectangle != b.cropRectangle
    }

    public var description: String {
        "H.265 \(profileName) level \(Double(levelIdc) / 30), \(displayWidth)x\(displayHeight)"
            + (displayWidth != codedWidth || displayHeight != codedHeight ? " (coded \(codedWidth)x\(codedHeight))" : "")
            + ", \(bitDepth)-bit, SAR \(sampleAspectRatio.width):\(sampleAspectRatio.height)"
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.nalUnitLengthSize == b.nalUnitLengthSize
            && (a.videoParameterSets + a.sequenceParameterSets + a.pictureParameterSets).map { Array($0.bytes) }
                == (b.videoParameterSets + b.sequenceParameterSets + b.pictureParameterSets).map { Array($0.bytes) }
    }

    public func hash(into hasher: inout Hasher) {
        for unit in sequenceParameterSets + pictureParameterSets { hasher.combine(Array(unit.bytes)) }
    }
}

extension FormatDescription {
    /// The H.265 description, when this is one.
    public var hevc: H265FormatDescription? {
        if case .h265(let description) = self { description as? H265FormatDescription } else { nil }
    }
}
