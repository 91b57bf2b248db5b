import VideoAcceleration
import VTKMedia

/// What `vtk decode` was asked for, read from its arguments before the input is opened.
struct DecodeOptions {
    let parsed: ParsedArguments
    /// --pix-fmt, when given (the default depends on the bit depth).
    let pixelFormat: PixelFormat?
    let json: Bool
    let quiet: Bool
    let pngDirectory: String?
    let frameLimit: Int?
    let output: String?
    /// -o FILE.y4m: "-" for standard output; opened once the frame size is known.
    let y4mOutput: String?
    let md5: Bool
    let frameMD5: Bool
    let device: VADeviceChoice

    init(_ parsed: ParsedArguments, values: OptionValues) throws(CommandFailure) {
        let name = DecodeCommand.name
        self.parsed = parsed
        pixelFormat = try values.choice("pix-fmt", ["nv12", "i420", "p010", "yuv420p10le"]).flatMap { PixelFormat(rawValue: $0 == "yuv420p10le" ? "yuv420p10" : $0) }
        json = parsed.has("json")
        quiet = parsed.has("quiet") || json
        md5 = parsed.has("md5")
        frameMD5 = parsed.has("framemd5")
        // --frames DIR was the PNG folder before --png-dir; a value that is not a number still means that.
        var pngDirectory = parsed["png-dir"]
        var frameLimit: Int?
        if let text = parsed["frames"] {
            if Int(text) == nil && pngDirectory == nil && !text.hasPrefix("-") {
                pngDirectory = text
            } else {
                frameLimit = try values.int("frames", range: 1...Int(Int32.max))
            }
        }
        self.pngDirectory = pngDirectory
        self.frameLimit = frameLimit
        output = parsed["output"]
        device = VADeviceChoice(parsed["device"] ?? "auto")
        if let output, let input = parsed.positionals.first { try OutputFile.refuseOverwriting(input: input, output: output, command: name) }
        var y4mOutput: String?
        if frameMD5 && json { throw CommandFailure(.usage, "vtk decode: --framemd5 and --json would both write to standard output") }
        if let output {
            let toStandardOutput = output == "-" || output.lowercased() == "-.y4m"
            if md5 && !json || frameMD5 || json, toStandardOutput {
                throw CommandFailure(.usage, "vtk decode: -o \(output) and --md5/--framemd5/--json would all write to standard output")
            }
            if output.lowercased().hasSuffix(".y4m") {
                if pixelFormat == .nv12 { throw CommandFailure(.usage, "vtk decode: Y4M output is I420; --pix-fmt nv12 cannot go with a .y4m OUTPUT") }
                y4mOutput = toStandardOutput ? "-" : output
            } else if let ext = output.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased(),
                      ["mp4", "mov", "mkv", "h264", "264", "h265", "265", "png", "jpg", "avi", "webm"].contains(ext) {
                throw CommandFailure(.usage, "vtk \(name): -o writes raw frames (.yuv) or Y4M (.y4m), not .\(ext)"
                                     + (ext == "png" ? "; for pictures use --png-dir DIR" : ""))
            }
        }
        self.y4mOutput = y4mOutput
    }

    /// The sinks for `tenBit` frames: checksums, raw frames (in --pix-fmt, else I420 or yuv420p10le), PNG pictures.
    /// Y4M is opened at the first frame. Returns the whole-output MD5 sink too, when asked for.
    func makeSinks(tenBit: Bool) throws(CommandFailure) -> (sinks: [FrameSink], md5: WholeMD5Sink?) {
        var sinks: [FrameSink] = []
        let md5Sink = md5 ? WholeMD5Sink(print: !json) : nil
        if let md5Sink { sinks.append(md5Sink) }
        if frameMD5 { sinks.append(FrameMD5Sink()) }
        if let output, y4mOutput == nil {
            sinks.append(RawFrameSink(file: try OutputFile(output, command: DecodeCommand.name), format: pixelFormat ?? (tenBit ? .yuv420p10 : .i420)))
        }
        if let pngDirectory { sinks.append(try PNGFrameSink(directory: pngDirectory, command: DecodeCommand.name)) }
        return (sinks, md5Sink)
    }

    /// True when the frames are best read back as the surface's own NV12: raw NV12 output, or no output at all.
    var wantsNV12: Bool {
        !md5 && !frameMD5 && output == nil && pngDirectory == nil || (pixelFormat == .nv12 && output != nil && y4mOutput == nil)
    }
}
