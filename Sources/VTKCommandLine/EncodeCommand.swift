/// `vtk encode`: raw NV12/I420 frames -> H.264. The encoder session lands with issue 5.
enum EncodeCommand {
    static let name = "encode"
    static let summary = "NV12/I420 frames -> H.264 (Annex B)"
    static let usage = "vtk encode INPUT -o OUTPUT [--size WxH] [--pix-fmt nv12|i420] [--fps N] [--qp N | --bitrate BPS [--rc cbr|vbr]] [--keyint N] [--profile constrained-baseline|main|high] [--device auto|soft|PATH]"
    static let options: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "the H.264 Annex B stream to write; - for standard output"),
        .value("--size", valueName: "WxH", help: "frame size of raw input (required for raw input)"),
        .value("--pix-fmt", valueName: "nv12|i420", help: "layout of raw input (default: i420)"),
        .value("--fps", valueName: "N", help: "frame rate (default 30, or the Y4M header's)"),
        .value("--qp", valueName: "N", help: "constant QP (0-51); the default is --qp 26"),
        .value("--bitrate", valueName: "BPS", help: "target bit rate in bits per second (k and M suffixes allowed)"),
        .value("--rc", valueName: "cbr|vbr", help: "rate control with --bitrate (default cbr)"),
        .value("--keyint", valueName: "N", help: "frames from one IDR to the next (default 60)"),
        .value("--profile", valueName: "NAME", help: "constrained-baseline, main or high (default high where the driver has it)"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("-q", "--quiet", help: "no progress line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = "INPUT is raw frames (--size required), a .y4m file, or - for standard input."

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        throw CommandFailure(.internalError, "vtk encode: not implemented yet")
    }
}

/// `vtk roundtrip`: encode, decode back, compare. Lands with issues 5 and 6.
enum RoundtripCommand {
    static let name = "roundtrip"
    static let summary = "encode, decode back, measure PSNR/SSIM, fail below a threshold"
    static let usage = "vtk roundtrip [INPUT] --psnr [--ssim] [--min-psnr DB] [--min-ssim S] [--json] [--plot FILE.svg] [encode options]"
    static let options: [OptionSpec] = EncodeCommand.options.filter { $0.key != "output" } + [
        .flag("--psnr", help: "measure PSNR"),
        .flag("--ssim", help: "measure SSIM"),
        .value("--min-psnr", valueName: "DB", help: "exit 1 when the mean PSNR is below DB"),
        .value("--min-ssim", valueName: "S", help: "exit 1 when the mean SSIM is below S"),
        .flag("--json", help: "print the report as one JSON object"),
        .value("--plot", valueName: "FILE.svg", help: "write an SVG of per-frame PSNR and bits per frame"),
    ]
    static let details = "With no INPUT a built-in moving test pattern is used."

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        throw CommandFailure(.internalError, "vtk roundtrip: not implemented yet")
    }
}
