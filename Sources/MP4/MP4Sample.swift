import H264Bitstream
import NALStream
import VTKMedia

/// One stored sample of the video track, as the file holds it: length-prefixed NAL units (the framing of
/// the reader's `nalUnitLengthSize`) with its times. Hand it to a decoder as
/// `sample.sampleBuffer(nalUnitLengthSize: reader.nalUnitLengthSize)` (with `formatDescription: reader.format`
/// to carry the track's parameter sets).
public struct MP4Sample: Sendable {
    public var data: [UInt8]
    /// Composition time with the edit list applied, in the media timescale.
    public var presentationTime: MediaTime
    /// Decode time with the same shift as the presentation time (negative before the first displayed
    /// frame when there are B-frames, as ffprobe shows it).
    public var decodeTime: MediaTime
    public var duration: MediaTime
    /// A sync sample (from `stss`, or the fragment sample flags).
    public var isSync: Bool
    /// Position in decoding order, from 0.
    public var index: Int
    /// Where its bytes are in the file.
    public var fileOffset: UInt64
}

extension MP4Sample {
    /// The sample as a decoder takes it: its NAL units framed with the track's length size, with its times and,
    /// when given, the track's format description.
    public func sampleBuffer(nalUnitLengthSize: Int, formatDescription: FormatDescription? = nil) -> SampleBuffer {
        SampleBuffer(data: data, framing: .lengthPrefixed(nalUnitLengthSize), formatDescription: formatDescription, presentationTime: presentationTime,
                     decodeTime: decodeTime, duration: duration, isSync: isSync)
    }
}
