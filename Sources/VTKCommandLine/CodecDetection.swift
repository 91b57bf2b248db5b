import H264Bitstream
import H265Bitstream

/// Which codec an input is, as NALStream's ``VideoCodec``: an MP4 says it in its sample entry, `--codec`
/// forces it for Annex B, and otherwise the NAL unit headers tell.
enum CodecDetection {
    /// The codecs `--codec` names, by their option value.
    static let choices: [(option: String, codec: VideoCodec)] = [("h264", .h264), ("h265", .h265)]

    /// `--codec h264|h265`, or nil when not given.
    static func forced(_ values: OptionValues) throws(CommandFailure) -> VideoCodec? {
        try values.choice("codec", choices.map(\.option)).flatMap { option in choices.first { $0.option == option }?.codec }
    }

    /// The `--codec` value that names `codec`.
    static func option(_ codec: VideoCodec) -> String { choices.first { $0.codec == codec }?.option ?? codec.name }

    /// The `--codec` value ("h264") of the codec a name ("H.264", as test suites give it) names; nil for a codec vtk
    /// does not decode.
    static func option(named name: String) -> String? { choices.first { $0.codec.name == name }?.option }

    /// The codec of `input`: an MP4's track decides (`--codec` must not contradict it), else `--codec`, else
    /// the NAL unit headers of the first bytes.
    static func codec(of input: InputFile, _ parsed: ParsedArguments, command: String) throws(CommandFailure) -> VideoCodec {
        let forced = try forced(OptionValues(parsed: parsed, command: command))
        if let mp4 = try MP4Input.open(input, command: command) {
            if let forced, forced != mp4.codec {
                throw CommandFailure(.usage, "vtk \(command): --codec \(option(forced)) contradicts \(input.displayName), whose MP4 track is "
                                     + "\(mp4.reader.track.sampleDescription.format) (\(mp4.codec.name)); --codec is for Annex B input, an MP4 says its codec itself")
            }
            return mp4.codec
        }
        if let forced { return forced }
        return detect(annexB: try input.peek(1 << 16))
    }

    /// Tells H.264 from H.265 in the first bytes of an Annex B stream by the NAL unit headers: each NAL
    /// unit is scored as a one-byte H.264 header (7.3.1 of H.264) and as a two-byte H.265 one (7.3.1.2 of
    /// H.265), and the codec under which fewer headers are impossible wins (H.264 on a tie).
    static func detect(annexB bytes: [UInt8]) -> VideoCodec {
        var h264Bad = 0, h265Bad = 0
        for unit in AnnexBScanner.nalUnits(in: bytes).prefix(64) {
            guard let b0 = unit.bytes.first else { continue }
            let b1 = unit.bytes.count > 1 ? unit.bytes[unit.bytes.startIndex + 1] : 0
            if !plausibleH264(b0) { h264Bad += 1 }
            if !plausibleH265(b0, b1) { h265Bad += 1 }
        }
        return h265Bad < h264Bad ? .h265 : .h264
    }

    /// A header byte an H.264 stream can have: types 1...12 (19, 20 for extensions), with nal_ref_idc
    /// 0 where the type requires it and non-zero for IDR, SPS and PPS.
    private static func plausibleH264(_ byte: UInt8) -> Bool {
        let header = NALUnitHeader(byte: byte)
        let type = header.nalUnitType.rawValue
        guard !header.forbiddenZeroBit, (1...12).contains(type) || (14...20).contains(type) else { return false }
        if [6, 9, 10, 11, 12].contains(type) { return header.nalRefIdc == 0 }
        if [5, 7, 8].contains(type) { return header.nalRefIdc != 0 }
        return true
    }

    /// A two-byte header an H.265 base-layer stream can have: a known type, nuh_layer_id 0 and
    /// nuh_temporal_id_plus1 not 0 (IRAP pictures and parameter sets at temporal id 0).
    private static func plausibleH265(_ b0: UInt8, _ b1: UInt8) -> Bool {
        let header = H265NALUnitHeader(b0, b1)
        let type = header.type
        guard !header.forbiddenZeroBit, header.layerID == 0, header.temporalID >= 0 else { return false }
        guard type.isKnownSlice || (32...40).contains(type.rawValue) else { return false }
        if type.isIRAP || (32...34).contains(type.rawValue) { return header.temporalID == 0 }
        return true
    }
}
