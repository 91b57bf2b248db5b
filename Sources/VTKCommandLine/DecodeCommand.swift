import DecompressionSession
import H264Bitstream
import H265Bitstream
import VideoAcceleration
import VTKMedia

/// `vtk decode`: H.264 or H.265 -> frames, MD5s, pictures (``StreamDecode`` does the work, once for every codec).
enum DecodeCommand {
    static let name = "decode"
    static let summary = "H.264/H.265 -> NV12/I420 (P010/yuv420p10le) frames, MD5s, PNG pictures"
    static let usage = "vtk decode INPUT [-o OUTPUT] [--pix-fmt nv12|i420|p010|yuv420p10le] [--codec h264|h265] [--md5] [--framemd5] [--png-dir DIR] [-n N] [--json] [--device auto|soft|PATH]"
    static let examples = [
        "vtk decode in.h264 --md5",
        "vtk decode in.mp4 -o frames.y4m -n 100",
        "vtk decode in.264 --png-dir pictures --json",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output, .internalError]
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "write the frames: FILE.y4m as Y4M (-.y4m: Y4M on standard output), anything else as raw video; - for standard output (raw)"),
        .value("--pix-fmt", valueName: "nv12|i420|p010|yuv420p10le", help: "layout of the written frames (default: i420; yuv420p10le for 10-bit H.265)"),
        .value("--codec", valueName: "h264|h265", help: "the codec of an Annex B INPUT (default: told from its NAL unit headers)"),
        .flag("--md5", help: "print MD5=<hex> of the whole output as planar I420, cropped, display order"),
        .flag("--framemd5", help: "print one line per frame: display index, tab, MD5 of its I420 bytes"),
        .value("--png-dir", valueName: "DIR", help: "write each frame as DIR/frame-NNNNNN.png (DIR and its parents are created)"),
        .value("-n", "--frames", valueName: "N", help: "stop after N frames (display order)"),
        .flag("--json", help: "print the summary as one JSON object on standard output"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        INPUT is an H.264 or H.265 Annex B byte stream (.h264 .264 .jsv .26l .265 ...), an MP4 or MOV file
        (avc1/avc3, hvc1/hev1), or - for standard input (Annex B). The codec of an Annex B stream is told from
        its NAL unit headers (--codec forces it). Main 10 streams give 10-bit frames: Y4M C420p10, raw
        yuv420p10le (default) or p010, --md5/--framemd5 over yuv420p10le, PNG pictures as 8-bit. Without -o,
        --md5, --framemd5 or --png-dir the frames are decoded and discarded (a decode check).
        Damaged input is decoded as far as it can be: frames before the damage are kept, decoding resumes
        at the next IDR or recovery point, and vtk exits with 3 after naming each problem and its byte offset.
        """

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk decode: no INPUT given\nusage: \(usage)"
                                 : "vtk decode: one INPUT expected, got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
        }
        let options = try DecodeOptions(parsed, values: values)
        let input = try InputFile(parsed.positionals[0], command: name)
        let codec = try CodecDetection.codec(of: input, parsed, command: name)
        guard let type = DecodableCodecs.type(of: codec, as: (any StreamDecodingCodec.Type).self) else {
            throw CommandFailure(.input, "vtk decode: \(input.displayName): vtk does not decode \(codec.name)")
        }
        return try decode(type, options, input)
    }

    private static func decode<Codec: StreamDecodingCodec>(_: Codec.Type, _ options: DecodeOptions, _ input: InputFile) throws(CommandFailure) -> ExitCode {
        try StreamDecode<Codec>.run(options, input: input)
    }
}

/// The picture sizes of a decode in display order: each size and the frame it starts at.
struct FrameSizes {
    private(set) var runs: [(width: Int, height: Int, firstFrame: Int)] = []

    /// Notes frame `index`'s size; true when it differs from the frame before.
    mutating func take(_ picture: PixelBuffer, index: Int) -> Bool {
        take(width: picture.width, height: picture.height, index: index)
    }

    mutating func take(width: Int, height: Int, index: Int) -> Bool {
        if let last = runs.last, last.width == width, last.height == height { return false }
        runs.append((width, height, index))
        return runs.count > 1
    }

    /// "640x360", or "640x360, 320x180 from frame 30" when the size changes.
    var text: String {
        guard let first = runs.first else { return "?" }
        return (["\(first.width)x\(first.height)"] + runs.dropFirst().map { "\($0.width)x\($0.height) from frame \($0.firstFrame)" })
            .joined(separator: ", ")
    }
}

#if canImport(Glibc)
import Glibc
#endif
