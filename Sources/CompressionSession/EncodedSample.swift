import H264Bitstream
import VTKMedia

/// One coded frame, like the CMSampleBuffer a VTCompressionSession hands out: its NAL units with
/// 4-byte lengths (the SPS and PPS live in the format description, as in MP4), timing, and whether a
/// decoder can start here.
public struct EncodedSample: Sendable {
    /// Length-prefixed NAL units (slices, and any SEI the driver wrote).
    public var data: [UInt8]
    public var nalUnitLengthSize: Int { 4 }
    public var presentationTime: MediaTime
    /// The same as the presentation time: pictures are coded in display order.
    public var decodeTime: MediaTime
    public var duration: MediaTime
    /// An IDR picture.
    public var isSync: Bool
    /// Position in coding order, from 0.
    public var frameIndex: Int
    /// The parameter sets in force for this sample.
    public var formatDescription: FormatDescription

    /// The NAL units of ``data``.
    public func nalUnits() throws(BitstreamError) -> [NALUnit] {
        try LengthPrefixedSample.nalUnits(in: data, lengthSize: nalUnitLengthSize)
    }

    /// The sample as an Annex B access unit: SPS and PPS in front of a sync sample, 4-byte start codes.
    public func annexB() throws(BitstreamError) -> [UInt8] {
        var units = try nalUnits()
        if isSync { units = formatDescription.sequenceParameterSets + formatDescription.pictureParameterSets + units }
        return AnnexBScanner.byteStream(units)
    }
}

extension Sequence where Element == EncodedSample {
    /// The samples as one Annex B elementary stream (a .264 file).
    public func annexBStream() throws(BitstreamError) -> [UInt8] {
        var out: [UInt8] = []
        for sample in self { out += try sample.annexB() }
        return out
    }
}
