import H264Bitstream
import H265Bitstream

/// `vtk probe`: what is in an H.264 or H.265 stream, without decoding pixels (``StreamProbe`` with the codec's
/// ``ProbeReport``).
enum ProbeCommand {
    static let name = "probe"
    static let summary = "H.264/H.265: profile, level, size, cropping, SAR, frame rate, GOP, slice types and POC per frame"
    static let usage = "vtk probe INPUT [--json] [-n N]"
    static let examples = [
        "vtk probe in.h264",
        "vtk probe in.mp4 --json -n 50",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input]
    static let options: [OptionSpec] = [
        .flag("--json", help: "print one JSON object with a per-frame array"),
        .value("-n", "--frames", valueName: "N", help: "read at most N pictures"),
        .value("--codec", valueName: "h264|h265", help: "the codec of an Annex B INPUT (default: told from its NAL unit headers)"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = "INPUT is an H.264 or H.265 Annex B byte stream, an MP4 or MOV file (avc1/avc3, hvc1/hev1, fragmented too), or - for standard input (Annex B). Needs no VA device."

    /// Problems kept for the report; the rest are counted.
    static let problemLimit = 20

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk probe: no INPUT given\nusage: \(usage)" : "vtk probe: one INPUT expected")
        }
        let values = OptionValues(parsed: parsed, command: name)
        let limit = try values.int("frames", range: 1...Int(Int32.max)) ?? Int.max
        let input = try InputFile(parsed.positionals[0], command: name)
        let codec = try CodecDetection.codec(of: input, parsed, command: name)
        let probes: [(VideoCodec, (ParsedArguments, InputFile, Int) throws(CommandFailure) -> ExitCode)] = [
            (.h264, StreamProbe<H264ProbeReport>.run), (.h265, StreamProbe<H265ProbeReport>.run),
        ]
        guard let probe = probes.first(where: { $0.0 == codec })?.1 else {
            throw CommandFailure(.input, "vtk probe: \(input.displayName): vtk does not read \(codec.name)")
        }
        return try probe(parsed, input, limit)
    }
}
