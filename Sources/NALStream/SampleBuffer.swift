import VTKMedia

/// One compressed sample (one access unit), like CMSampleBuffer: its bytes, how NAL units are framed in
/// them, the format description in force, its timing and its attachments. The encoder hands these out and
/// the decoder takes them as they are.
public struct SampleBuffer: Sendable {
    public enum Framing: Hashable, Sendable {
        /// Each NAL unit preceded by its big-endian length of 1, 2 or 4 bytes (MP4, avcC).
        case lengthPrefixed(Int)
        /// Start codes (an Annex B byte stream fragment).
        case annexB
    }

    public var data: [UInt8]
    public var framing: Framing
    /// The parameter sets in force (CMSampleBufferGetFormatDescription); nil when they come in band.
    public var formatDescription: FormatDescription?
    public var presentationTime: MediaTime
    public var decodeTime: MediaTime
    public var duration: MediaTime
    public var attachments: SampleAttachments

    /// A sync sample (IDR or recovery point): kCMSampleAttachmentKey_NotSync absent or false.
    public var isSync: Bool {
        get { !attachments.notSync }
        set { attachments.notSync = !newValue }
    }

    public init(data: [UInt8], framing: Framing = .lengthPrefixed(4), formatDescription: FormatDescription? = nil,
                presentationTime: MediaTime = .invalid, decodeTime: MediaTime = .invalid, duration: MediaTime = .invalid,
                isSync: Bool = false, attachments: SampleAttachments? = nil) {
        self.data = data
        self.framing = framing
        self.formatDescription = formatDescription
        self.presentationTime = presentationTime
        self.decodeTime = decodeTime
        self.duration = duration
        self.attachments = attachments ?? SampleAttachments(notSync: !isSync)
    }

    /// The sample's NAL units. Offsets are within the sample.
    public func nalUnits() throws(BitstreamError) -> [NALUnit] {
        switch framing {
        case .lengthPrefixed(let size): return try LengthPrefixedSample.nalUnits(in: data, lengthSize: size)
        case .annexB: return AnnexBScanner.nalUnits(in: data)
        }
    }

    /// The access unit's NAL units as a byte stream or RTP carries them: the format description's parameter sets
    /// in front of a sync sample, then the sample's own.
    public func accessUnitNALUnits() throws(BitstreamError) -> [NALUnit] {
        let units = try nalUnits()
        guard isSync, let format = formatDescription else { return units }
        return format.parameterSetNALUnits + units
    }

    /// The sample as an Annex B access unit: the format description's parameter sets in front of a sync sample.
    public func annexB() throws(BitstreamError) -> [UInt8] {
        AnnexBScanner.byteStream(try accessUnitNALUnits())
    }
}

/// The per-sample attachments VideoToolbox sets on encoded samples (kCMSampleAttachmentKey_*).
public struct SampleAttachments: Hashable, Sendable {
    /// Not a sync sample: a decoder cannot start here (NotSync).
    public var notSync: Bool
    /// Predicted from other samples (DependsOnOthers); nil when unknown.
    public var dependsOnOthers: Bool?
    /// Other samples are predicted from this one, i.e. a reference picture (IsDependedOnByOthers); nil when unknown.
    public var isDependedOnByOthers: Bool?
    /// The encoder was asked to make this a key frame (kVTEncodeFrameOptionKey_ForceKeyFrame).
    public var forcedKeyFrame: Bool

    public init(notSync: Bool = false, dependsOnOthers: Bool? = nil, isDependedOnByOthers: Bool? = nil, forcedKeyFrame: Bool = false) {
        self.notSync = notSync
        self.dependsOnOthers = dependsOnOthers
        self.isDependedOnByOthers = isDependedOnByOthers
        self.forcedKeyFrame = forcedKeyFrame
    }
}

extension Sequence where Element == SampleBuffer {
    /// The samples as one Annex B elementary stream (a .264 file), in the order given (decoding order).
    public func annexBStream() throws(BitstreamError) -> [UInt8] {
        var out: [UInt8] = []
        for sample in self { out += try sample.annexB() }
        return out
    }
}
