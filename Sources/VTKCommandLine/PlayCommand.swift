import DecompressionSession
import H264Bitstream
import NALStream
import Playback
import VideoAcceleration
import VideoDisplay
import VTKMedia
import X11Display

/// `vtk play`: a file decoded and shown in an X11 window at its presentation times, on a timebase.
enum PlayCommand {
    static let name = "play"
    static let summary = "show H.264/H.265 video in an X11 window at its presentation times (push or pull feeding)"
    static let usage = "vtk play INPUT [--rate R] [--start T] [--loop] [--mode push|pull] [--fps F] [--timing-log FILE] "
        + "[--screenshot T:FILE.png] [--frames N]\n       vtk play rtp://@:PORT|FILE.sdp [--codec h264|h265] [--latency MS] [--timeout S] [--timing-log FILE] "
        + "[--screenshot T:FILE.png] [--frames N]"
    static let examples = [
        "vtk play in.mp4",
        "vtk play in.264 --fps 30 --rate 2 --timing-log timing.jsonl",
        "vtk play in.264 --start 1.5 --screenshot 2:at-2s.png --frames 60",
        "vtk play stream.sdp --timing-log live.jsonl          # live, from `vtk send ... --sdp stream.sdp` or ffmpeg -sdp_file",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .input, .device, .output]
    static let options: [OptionSpec] = [
        .value("--rate", valueName: "R", help: "playback rate: 1 real time, 2 twice as fast, 0 a still picture at --start (default 1)"),
        .value("--start", valueName: "T", help: "start at media time T seconds (decoding from the sync sample before it)"),
        .flag("--loop", help: "play the input again and again"),
        .value("--mode", valueName: "push|pull", help: "pull: read samples when the display asks for more (default); push: samples arrive at their own pace, as from a live source"),
        .value("--fps", valueName: "F", help: "frame rate, overriding the stream's (default: an MP4's sample durations, an Annex B stream's VUI timing, else 25)"),
        .value("--timing-log", valueName: "FILE", help: "one JSON line per frame: {\"frame\": N, \"pts\": seconds, \"presented\": host seconds or null when dropped}"),
        .list("--screenshot", valueName: "T:FILE.png", help: "save the window as PNG when the timebase reaches T (may be given several times)"),
        .value("--frames", valueName: "N", help: "stop after N frames (shown or dropped)"),
        .value("--deinterlace", valueName: "off|bob", help: "interlaced H.264: bob (default) shows each field, lines doubled, at its own time (twice the frame rate); off shows woven frames"),
        RTPSource.codecOption,
        RTPSource.latencyOption,
        RTPSource.timeoutOption,
        .value("--decode-delay", valueName: "MS", help: "sleep MS milliseconds after each decode (tests: late frames are dropped)"),
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .value("--present", valueName: "auto|va|x11", help: "va: VA's vaPutSurface on a VA display opened on the X server; x11: RGB by libyuv, put with XShm or XPutImage; auto (default): va when the device can present, else x11"),
        .flag("-q", "--quiet", help: "no window line and no summary on standard error"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = """
        INPUT is an H.264 or H.265 Annex B stream or an MP4 file. The window opens on DISPLAY; without one
        (DISPLAY unset, or the server cannot be reached) vtk exits with 4. When the VA device can present
        (vaPutSurface on a VA display opened on the same X server), the driver draws each picture into the
        window; otherwise pictures are converted to RGB by libyuv and put with XShm (XPutImage when shared
        memory is unavailable). The window line on standard error names the path. A frame later than half its
        duration is dropped, not shown late, and counted. Keys: space pauses and resumes, Left and Right seek
        5 seconds (decoding from the IDR or recovery point before the target), q quits. Each key's effect is
        said on standard error once the window shows it: 'paused at T s, showing the frame at P s' (also
        'resumed at', 'sought to').
        INPUT may also be live: rtp://@:PORT or an SDP file, received as `vtk receive` does (jitter buffer,
        loss counting, RTCP receiver reports and PLI) and shown as frames arrive (push), a fixed latency after
        the first; media time 0 is the first frame received. Once listening, vtk prints 'vtk play: listening on
        rtp://@:PORT'. It ends at an RTCP BYE, after --frames, after --timeout without packets, or on q; it
        exits 3 when packets were lost or frames flagged. A live stream cannot be sought, looped or played at
        another rate.
        Timing-log "presented" times are seconds on the host clock from the moment the timebase started at
        --start; at rate R a frame is due at (pts - start) / R.
        """

    /// Surface-backed frames the player may hold at once: those decoded ahead (3), the one shown, and a margin.
    static let surfaceFramesHeld = 8

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        let values = OptionValues(parsed: parsed, command: name)
        guard parsed.positionals.count == 1 else {
            throw CommandFailure(.usage, parsed.positionals.isEmpty ? "vtk play: no INPUT given\nusage: \(usage)"
                                 : "vtk play: one INPUT expected, got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
        }
        let inputName = parsed.positionals[0]
        let live = RTPSource.isLive(inputName)
        for option in live ? fileOnlyOptions : liveOnlyOptions where parsed.has(option) {
            throw CommandFailure(.usage, live ? "vtk play: --\(option) goes with a file INPUT; a live stream plays as it arrives"
                                 : "vtk play: --\(option) goes with live input (rtp://@:PORT or FILE.sdp)")
        }
        let rate = try values.double("rate", range: 0...64) ?? 1
        let startOption = try values.double("start", range: 0...1e9)
        let mode = try values.choice("mode", ["push", "pull"])
        let push = live || mode == "push"
        let frameLimit = try values.int("frames", range: 1...Int(Int32.max))
        let delay = (try values.double("decode-delay", range: 0...10_000) ?? 0) / 1000
        var frameRate: (Int, Int)?
        if let text = parsed["fps"] {
            guard let parsedRate = FrameRate.parse(text) else {
                throw CommandFailure(.usage, "vtk play: --fps must be a rate like 30, 29.97 or 30000/1001, not '\(text)'")
            }
            frameRate = parsedRate
        }
        let settings = try RTPSource.settings(values)
        let screenshots = try parsed.list("screenshot").map { text throws(CommandFailure) -> (time: Double, path: String) in
            guard let colon = text.firstIndex(of: ":"), let time = Double(text[..<colon]), time >= 0, time.isFinite,
                  !text[text.index(after: colon)...].isEmpty else {
                throw CommandFailure(.usage, "vtk play: --screenshot must be T:FILE.png with T in seconds, not '\(text)'")
            }
            return (time, String(text[text.index(after: colon)...]))
        }
        let deinterlaceMode = parsed["deinterlace"] ?? "bob"
        guard ["off", "bob"].contains(deinterlaceMode) else {
            throw CommandFailure(.usage, "vtk play: --deinterlace takes off or bob, not '\(deinterlaceMode)'")
        }
        let deinterlace = deinterlaceMode == "bob"
        let presentation = parsed["present"] ?? "auto"
        // va-copy (not in the help: for the bench's comparison) is va with every picture read back to the CPU
        // and written into a surface of the presenter's, as before frames held their surfaces.
        guard ["auto", "va", "x11", "va-copy"].contains(presentation) else {
            throw CommandFailure(.usage, "vtk play: --present takes auto, va or x11, not '\(presentation)'")
        }

        let window: X11Window
        do { window = try X11Window(title: "vtk play \(inputName)") } catch {
            throw CommandFailure(.device, "vtk play: \(error)")
        }
        let rtpSource = live ? try RTPSource(inputName, values: values, command: name) : nil
        let file = live ? nil : try PlayFile(inputName, frameRate: frameRate, loops: parsed.has("loop"), command: name)
        let log = try parsed["timing-log"].map { path throws(CommandFailure) in try OutputFile(path, command: name) }

        let device = VADeviceChoice(parsed["device"] ?? "auto")
        // VA's own path needs a VA display on the X server the window is on (a named DRM node has none).
        var presenting: VADisplayConnection?
        var presenter: any FramePresenter = window
        var vaRefusal = ""
        if presentation != "x11" {
            if case .path(let path) = device {
                vaRefusal = "\(path) is a DRM node; vaPutSurface needs a VA display opened on the X server"
            } else {
                do {
                    let x11 = try VADisplayConnection.openX11(device, displayName: window.displayName, for: .decode(nil))
                    presenter = try VAWindowPresenter(window: window, connection: x11)
                    presenting = x11
                } catch { vaRefusal = "\(error)" }
            }
            if presentation.hasPrefix("va"), presenting == nil { throw CommandFailure(.device, "vtk play: --present va: \(vaRefusal)") }
        }
        let vaPresents = presenter is VAWindowPresenter
        let clock = MonotonicClock()

        let input: PlayerInput
        let codec: VideoCodec
        var liveFeed: LivePlayerFeed?
        var decoder: SessionSampleDecoder?
        if let rtpSource {
            // H.265 frames come as NV12 on both paths, as from a file; H.264 as I420 unless VA draws them.
            let feed = LiveRTPFeed(source: rtpSource, settings: settings, device: device, outputFormat: vaPresents || rtpSource.codec == .h265 ? .nv12 : .i420,
                                   command: name)
            guard let port = feed.port else { throw feed.stop().failure ?? CommandFailure(.internalError, "vtk play: the receiver did not start") }
            if !parsed.has("quiet") { StandardStreams.error("vtk play: listening on rtp://@:\(port) (RTCP on \(port + 1))\n") }
            let wrapped = LivePlayerFeed(feed)
            liveFeed = wrapped
            input = .live(wrapped)
            codec = feed.codec
        } else if let file {
            // Decoding runs on the presenting display when there is one, else on a display of its own.
            let connection: VADisplayConnection
            if let presenting { connection = presenting } else {
                do { connection = try VADisplayConnection.open(device, for: .decode(nil)) } catch {
                    throw CommandFailure(.device, "vtk play: cannot open VA device '\(device)': \(error)")
                }
            }
            // VA draws each picture from the surface it was decoded into: frames hold their surfaces (those the
            // layer decodes ahead, the one on the window, and a margin) and are never read back.
            let lent = vaPresents && presentation != "va-copy" ? surfaceFramesHeld : 0
            let makeSession = { () throws -> any VideoDecompressionSession in
                let session: any VideoDecompressionSession = file.codec == .h265
                    ? try H265DecompressionSession(formatDescription: file.formatDescription?.hevc, connection: connection, outputFormat: .nv12)
                    : try H264DecompressionSession(formatDescription: file.formatDescription?.avc, connection: connection, outputFormat: vaPresents ? .nv12 : .i420)
                session.surfaceFrameLimit = lent
                return session
            }
            // An Annex B stream's frames are timed by the decoder's output order, at exact multiples of the frame duration.
            decoder = SessionSampleDecoder(frameDuration: file.source.frameDuration, delay: delay, deinterlace: deinterlace, clock: clock,
                                           makeSession: makeSession)
            input = .file(file.source)
            codec = file.codec
        } else {
            throw CommandFailure(.internalError, "vtk play: no input")
        }
        let start = startOption ?? file?.source.firstTime ?? 0
        let timebase = Timebase(clock: clock, time: start, rate: rate)
        let layer = DisplayLayer(timebase: timebase, decoder: decoder, presenter: presenter)
        let screenshotWriter = ScreenshotWriter(command: name)
        let quiet = parsed.has("quiet")
        let hooks = Player.Hooks(
            timingLog: log.map { log in { line throws(CommandFailure) in try log.write(Array(line.utf8)) } },
            say: quiet ? nil : { StandardStreams.error($0) },
            screenshot: { path throws(DisplayError) in
                let picture = try window.screenshot()
                screenshotWriter.write(rgb: picture.rgb, width: picture.width, height: picture.height, to: path)
            },
            shouldStop: { Interruption.requested })
        let player = Player(layer: layer, input: input, window: window, push: push, screenshots: screenshots, frameLimit: frameLimit,
                            codecName: CodecDetection.option(codec), hooks: hooks)
        defer { player.stopLiveInput() }
        do {
            try player.run(from: start)
            try screenshotWriter.finish()
        } catch let failure as CommandFailure { throw failure } catch let error as DisplayError {
            switch error {
            case .decode(let why): throw CommandFailure(.input, "vtk play: \(inputName): \(why)")
            case .noDisplay(let why), .presentation(let why): throw CommandFailure(.device, "vtk play: \(why)")
            }
        } catch let error as PlaybackError {
            throw CommandFailure(.input, "vtk play: \(inputName): \(error)")
        } catch {
            throw CommandFailure(.internalError, "vtk play: \(error)")
        }
        player.stopLiveInput()
        if let outcome = liveFeed?.outcome, let failure = outcome.failure ?? outcome.report.damage(outcome.statistics, command: name) { throw failure }
        if layer.current == nil, layer.isFinished {
            throw CommandFailure(.input, "vtk play: \(inputName): no picture was shown" + (screenshots.isEmpty ? "" : ", so no screenshot was taken"))
        }
        return Interruption.requested ? Interruption.report(name, "the window was closed") : .success
    }

    /// Options that make sense only for a file, or only for live input.
    static let fileOnlyOptions = ["rate", "start", "loop", "mode", "fps", "decode-delay"]
    static let liveOnlyOptions = ["codec", "latency", "timeout"]
}

/// A file for `vtk play`: an MP4 (by its `ftyp`, not its name) or an H.264/H.265 Annex B stream, played
/// from the Playback module's sources, which read it as it plays.
struct PlayFile {
    let source: any PlaybackSource
    let codec: VideoCodec
    /// The MP4 track's parameter sets (avcC or hvcC), for the decoder.
    let formatDescription: FormatDescription?

    init(_ name: String, frameRate: (Int, Int)?, loops: Bool, command: String) throws(CommandFailure) {
        let input = try InputFile(name, command: command)
        guard name != "-" else { throw CommandFailure(.usage, "vtk \(command): INPUT must be a file, not standard input (it is read as it plays, and sought)") }
        let head = input.signature == .mp4 ? [] : try input.peek(1 << 16)
        do throws(PlaybackError) {
            if input.signature == .mp4 {
                let mp4 = try MP4PlaybackSource(path: input.path, frameRate: frameRate, loops: loops)
                (source, codec, formatDescription) = (mp4, mp4.codec, mp4.formatDescription)
                return
            }
            formatDescription = nil
            codec = CodecDetection.detect(annexB: head)
            let type = DecodableCodecs.type(of: codec, as: (any AnnexBPlaybackCodec.Type).self) ?? H264Codec.self
            source = try Self.annexBSource(type, path: input.path, frameRate: frameRate, loops: loops)
        } catch {
            throw CommandFailure(.input, "vtk \(command): \(error)")
        }
    }

    private static func annexBSource<Codec: AnnexBPlaybackCodec>(_: Codec.Type, path: String, frameRate: (Int, Int)?,
                                                                  loops: Bool) throws(PlaybackError) -> any PlaybackSource {
        try AnnexBPlaybackSource<Codec>(path: path, frameRate: frameRate, loops: loops)
    }
}

/// A live RTP reception as the player's feed; keeps how the reception went once it is stopped.
final class LivePlayerFeed: LiveFrameFeed {
    let feed: LiveRTPFeed
    private(set) var outcome: LiveRTPFeed.Outcome?

    init(_ feed: LiveRTPFeed) { self.feed = feed }

    func takeFrames() -> [DisplayFrame] { feed.takeFrames() }
    var isFinished: Bool { feed.isFinished }
    func stopReceiving() { if outcome == nil { outcome = feed.stop() } }
    var summary: String? {
        outcome.map { "\($0.report.packets) RTP packets, \($0.report.lost) lost, \($0.report.framesFlagged) frames flagged" }
    }
}
