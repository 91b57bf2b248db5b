/// What a decoder needs to know about a video stream before the first picture, like Core Media's
/// CMVideoFormatDescription: codec, sizes, aspect ratio, profile and level, the parameter sets, and how
/// samples frame their NAL units.
///
/// Two descriptions are `==` when their parameter sets and NAL length size are the same bytes.
/// ``requiresNewDecoder(comparedTo:)`` tells whether a change needs a new decoder (size, profile,
/// chroma format, bit depth or reference count differ) or only new parameter sets.
public struct H264FormatDescription: CodecFormatDescription, Hashable {
    public var videoCodec: VideoCodec { .h264 }
    public enum Codec: String, Hashable, Sendable { case h264 = "avc1" }

    public let codec: Codec
    /// SPS NAL units (header byte included, emulation prevention in), the first one governs the fields below.
    public let sequenceParameterSets: [NALUnit]
    public let pictureParameterSets: [NALUnit]
    /// Byte size of the length before each NAL unit in a sample: 1, 2 or 4.
    public let nalUnitLengthSize: Int
    /// The parsed first SPS.
    public let sps: SequenceParameterSet

    public init(sequenceParameterSets: [NALUnit], pictureParameterSets: [NALUnit], nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        guard let first = sequenceParameterSets.first else { throw .missingParameterSet(kind: "SPS", id: 0) }
        guard !pictureParameterSets.isEmpty else { throw .missingParameterSet(kind: "PPS", id: 0) }
        try LengthPrefixedSample.checkLengthSize(nalUnitLengthSize)
        func normalized(_ unit: NALUnit) -> NALUnit { unit.withoutTrailingZeroBytes(headerSize: 1) }
        // The SPS is parsed as it is kept (normalized, as the Annex B scanner also delivers it): a damaged
        // SPS that only parsed thanks to trailing zero bytes is rejected here, not when `avcC` re-reads it.
        sps = try SequenceParameterSet(nalUnit: normalized(first))
        // Every PPS must parse against the SPS it names.
        var sets = ParameterSets()
        for unit in sequenceParameterSets { try sets.store(normalized(unit)) }
        for unit in pictureParameterSets { try sets.store(normalized(unit)) }
        codec = .h264
        self.sequenceParameterSets = sequenceParameterSets.map(normalized)
        self.pictureParameterSets = pictureParameterSets.map(normalized)
        self.nalUnitLengthSize = nalUnitLengthSize
    }

    /// From an avcC record.
    public init(avcC record: AVCDecoderConfigurationRecord) throws(BitstreamError) {
        try self.init(sequenceParameterSets: record.sequenceParameterSets.map { NALUnit($0) },
                      pictureParameterSets: record.pictureParameterSets.map { NALUnit($0) },
                      nalUnitLengthSize: record.nalUnitLengthSize)
    }

    /// From the parameter sets an Annex B stream carried in band.
    public init(parameterSets: ParameterSets, nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        try self.init(sequenceParameterSets: parameterSets.spsNALUnits.sorted { $0.key < $1.key }.map(\.value),
                      pictureParameterSets: parameterSets.ppsNALUnits.sorted { $0.key < $1.key }.map(\.value),
                      nalUnitLengthSize: nalUnitLengthSize)
    }

    public var avcC: AVCDecoderConfigurationRecord {
        // init parsed these very NAL units and checked the length size, so this does not fail; were it to,
        // the record is built from the parsed SPS without re-reading it rather than trapping.
        (try? AVCDecoderConfigurationRecord(sps: sequenceParameterSets, pps: pictureParameterSets, nalUnitLengthSize: nalUnitLengthSize))
            ?? AVCDecoderConfigurationRecord(parsedSPS: sps, sps: sequenceParameterSets, pps: pictureParameterSets,
                                             nalUnitLengthSize: nalUnitLengthSize)
    }

    /// The SPS, then the PPS: what goes in front of a sync sample.
    public var parameterSetNALUnits: [NALUnit] { sequenceParameterSets + pictureParameterSets }

    public var codedWidth: Int { sps.codedWidth }
    public var codedHeight: Int { sps.codedHeight }
    /// Width after frame cropping.
    public var displayWidth: Int { sps.displayWidth }
    /// Height after frame cropping.
    public var displayHeight: Int { sps.displayHeight }
    /// The cropping rectangle in the coded picture.
    public var cleanAperture: (x: Int, y: Int, width: Int, height: Int) { sps.cropRectangle }
    /// Sample (pixel) aspect ratio; 1:1 when the stream does not say.
    public var sampleAspectRatio: (width: Int, height: Int) { sps.vui.sampleAspectRatio ?? (1, 1) }
    public var profileIdc: UInt8 { sps.profileIdc }
    public var levelIdc: UInt8 { sps.levelIdc }
    /// Frames per second from VUI timing (time_scale / (2 * num_units_in_tick)), when present.
    public var frameRate: (numerator: Int, denominator: Int)? {
        let vui = sps.vui
        guard sps.vuiParametersPresentFlag, vui.timingInfoPresentFlag, vui.numUnitsInTick > 0, vui.timeScale > 0 else { return nil }
        return (Int(vui.timeScale), 2 * Int(vui.numUnitsInTick))
    }

    /// The profile's name (A.2), from profile_idc and the constraint flags.
    public var profileName: String { H264Profile(sps: sps).name }

    /// True when a decoder made for `other` cannot decode this stream: the picture size, profile, chroma
    /// format, bit depth, frame/field coding or reference count differ.
    public func requiresNewDecoder(comparedTo other: H264FormatDescription) -> Bool {
        let a = sps, b = other.sps
        return a.codedWidth != b.codedWidth || a.codedHeight != b.codedHeight || a.profileIdc != b.profileIdc
            || a.chromaFormatIdc != b.chromaFormatIdc || a.bitDepthLuma != b.bitDepthLuma || a.bitDepthChroma != b.bitDepthChroma
            || a.frameMbsOnlyFlag != b.frameMbsOnlyFlag || a.maxNumRefFrames != b.maxNumRefFrames
            || a.vui.maxDecFrameBuffering != b.vui.maxDecFrameBuffering || a.cropRectangle != b.cropRectangle
    }

    public var description: String {
        "H.264 \(profileName) level \(Double(levelIdc) / 10), \(displayWidth)x\(displayHeight)"
            + (displayWidth != codedWidth || displayHeight != codedHeight ? " (coded \(codedWidth)x\(codedHeight))" : "")
            + ", SAR \(sampleAspectRatio.width):\(sampleAspectRatio.height)"
    }

    public static func == (a: H264FormatDescription, b: H264FormatDescription) -> Bool {
        a.codec == b.codec && a.nalUnitLengthSize == b.nalUnitLengthSize
            && a.sequenceParameterSets.map(\.bytes).elementsEqual(b.sequenceParameterSets.map(\.bytes))
            && a.pictureParameterSets.map(\.bytes).elementsEqual(b.pictureParameterSets.map(\.bytes))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nalUnitLengthSize)
        for unit in sequenceParameterSets + pictureParameterSets { hasher.combine(Array(unit.bytes)) }
    }
}

extension FormatDescription {
    /// The H.264 description, when this is one.
    public var avc: H264FormatDescription? {
        if case .h264(let description) = self { description as? H264FormatDescription } else { nil }
    }
}

/// The H.264 profiles (A.2) that vtk names.
public enum H264Profile: String, Sendable, CaseIterable {
    case constrainedBaseline = "Constrained Baseline"
    case baseline = "Baseline"
    case main = "Main"
    case extended = "Extended"
    case high = "High"
    case high10 = "High 10"
    case high422 = "High 4:2:2"
    case high444 = "High 4:4:4 Predictive"
    case other = "Other"

    public init(sps: SequenceParameterSet) {
        switch sps.profileIdc {
        case 66: self = sps.constraintSet1Flag ? .constrainedBaseline : .baseline
        case 77: self = .main
        case 88: self = .extended
        case 100: self = .high
        case 110: self = .high10
        case 122: self = .high422
        case 244: self = .high444
        default: self = .other
        }
    }

    public var name: String { rawValue }
}
