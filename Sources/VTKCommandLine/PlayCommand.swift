import DecompressionSession
import H264Bitstream
import JSONText
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

    /// Seconds a push source leads the timeline by, as a receiver's jitter buffer does.
    static func pushLatency(frameDuration: Double, rate: Double) -> Double { 0.1 + 4 * frameDuration / max(rate, 0.25) }
    static let seekStep = 5.0

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
        guard ["auto", "va", "x11"].contains(presentation) else {
            throw CommandFailure(.usage, "vtk play: --present takes auto, va or x11, not '\(presentation)'")
        }

        let window: X11Window
        do { window = try X11Window(title: "vtk play \(inputName)") } catch {
            throw CommandFailure(.device, "vtk play: \(error)")
        }
        let rtpSource = live ? try RTPSource(inputName, values: values, command: name) : nil
        let file = live ? nil : try PlaybackSource(input: try InputFile(inputName, command: name), frameRate: frameRate, loops: parsed.has("loop"), command: name)
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
            if presentation == "va", presenting == nil { throw CommandFailure(.device, "vtk play: --present va: \(vaRefusal)") }
        }
        let vaPresents = presenter is VAWindowPresenter
        let clock = MonotonicClock()

        let input: PlaybackInput
        var decoder: SessionSampleDecoder?
        if let rtpSource {
            // H.265 frames come as NV12 on both paths, as from a file; H.264 as I420 unless VA draws them.
            let feed = LiveRTPFeed(source: rtpSource, settings: settings, device: device, outputFormat: vaPresents || rtpSource.codec == .h265 ? .nv12 : .i420,
                                   command: name)
            guard let port = feed.port else { throw feed.stop().failure ?? CommandFailure(.internalError, "vtk play: the receiver did not start") }
            if !parsed.has("quiet") { StandardStreams.error("vtk play: listening on rtp://@:\(port) (RTCP on \(port + 1))\n") }
            input = .live(feed)
        } else if let file {
            // Decoding runs on the presenting display when there is one, else on a display of its own.
            let connection: VADisplayConnection
            if let presenting { connection = presenting } else {
                do { connection = try VADisplayConnection.open(device, for: .decode(nil)) } catch {
                    throw CommandFailure(.device, "vtk play: cannot open VA device '\(device)': \(error)")
                }
            }
            decoder = SessionSampleDecoder(frameDuration: file.frameDuration, delay: delay, deinterlace: deinterlace, clock: clock) { () throws -> any VideoDecompressionSession in
                switch file.codec {
                case .h264: return try H264DecompressionSession(formatDescription: file.formatDescription?.avc, connection: connection, outputFormat: vaPresents ? .nv12 : .i420)
                default: return try H265DecompressionSession(formatDescription: file.formatDescription?.hevc, connection: connection, outputFormat: .nv12)
                }
            }
            input = .file(file)
        } else {
            throw CommandFailure(.internalError, "vtk play: no input")
        }
        let start = startOption ?? file?.firstTime ?? 0
        let timebase = Timebase(clock: clock, time: start, rate: rate)
        let layer = DisplayLayer(timebase: timebase, decoder: decoder, presenter: presenter)
        for shot in screenshots { layer.addMarker(shot.time) }
        let player = Player(layer: layer, input: input, window: window, push: push, log: log, screenshots: screenshots, frameLimit: frameLimit,
                            quiet: parsed.has("quiet"))
        defer { player.stopLiveInput() }
        do {
            try player.run(from: start)
            try player.screenshotWriter.finish()
        } catch let failure as CommandFailure { throw failure } catch let error as DisplayError {
            switch error {
            case .decode(let why): throw CommandFailure(.input, "vtk play: \(inputName): \(why)")
            case .noDisplay(let why), .presentation(let why): throw CommandFailure(.device, "vtk play: \(why)")
            }
        } catch {
            throw CommandFailure(.internalError, "vtk play: \(error)")
        }
        if let outcome = player.liveOutcome, let failure = outcome.failure ?? outcome.report.damage(outcome.statistics, command: name) { throw failure }
        if layer.current == nil, layer.isFinished {
            throw CommandFailure(.input, "vtk play: \(inputName): no picture was shown" + (screenshots.isEmpty ? "" : ", so no screenshot was taken"))
        }
        return Interruption.requested ? Interruption.report(name, "the window was closed") : .success
    }

    /// Options that make sense only for a file, or only for live input.
    static let fileOnlyOptions = ["rate", "start", "loop", "mode", "fps", "decode-delay"]
    static let liveOnlyOptions = ["codec", "latency", "timeout"]
}

/// What `vtk play` shows: a file's samples, which the layer decodes, or a live stream's frames, decoded as they arrive.
enum PlaybackInput {
    case file(PlaybackSource)
    case live(LiveRTPFeed)

    var codec: VideoCodec {
        switch self {
        case .file(let source): source.codec
        case .live(let feed): feed.codec
        }
    }
}

/// The render loop of `vtk play`: feeds the layer (pull: when it asks; push: each sample at its own time; live:
/// each frame as it is decoded), services it at its wake times, writes the timing log and screenshots, and answers keys.
private final class Player {
    let layer: DisplayLayer
    let input: PlaybackInput
    let window: X11Window
    let push: Bool
    let log: OutputFile?
    var screenshots: [(time: Double, path: String)]
    let frameLimit: Int?
    let quiet: Bool
    var timebase: Timebase { layer.timebase }
    var clock: any HostClock { layer.timebase.clock }

    /// Host time of the timeline's first start: zero of the timing log's "presented".
    var hostOrigin: Double?
    /// Frames played (shown or dropped, up to --frames), and of them shown and dropped.
    var framesHandled = 0
    var shown = 0
    var dropped = 0
    var userPaused = false
    /// Push: the next sample, the host time the feed started and the media time it started from.
    var pending: SampleBuffer?
    var pushOrigin = 0.0
    var pushTarget = 0.0
    var announced = false
    let screenshotWriter = ScreenshotWriter(command: PlayCommand.name)
    /// Live: the timeline was set to the first frame; how the reception ended, once it did.
    var liveStarted = false
    var announcement: (what: String, time: Double)?
    private(set) var liveOutcome: LiveRTPFeed.Outcome?

    init(layer: DisplayLayer, input: PlaybackInput, window: X11Window, push: Bool, log: OutputFile?,
         screenshots: [(time: Double, path: String)], frameLimit: Int?, quiet: Bool) {
        self.layer = layer
        self.input = input
        self.window = window
        self.push = push
        self.log = log
        self.screenshots = screenshots
        self.frameLimit = frameLimit
        self.quiet = quiet
        if case .file(let source) = input, !push {
            layer.requestMediaDataWhenReady { [unowned self] in
                while self.layer.isReadyForMoreMediaData {
                    guard let sample = source.next() else { self.layer.markEndOfStream(); return }
                    self.layer.enqueue(sample)
                }
            }
        }
    }

    func run(from start: Double) throws -> Void {
        if case .file = input { try seek(to: start) }  // live: the timeline starts with the first frame
        while true {
            if Interruption.requested { return finish() }
            feed()
            for event in try layer.service() {
                try handle(event)
                if let frameLimit, framesHandled >= frameLimit { return finish() }
            }
            announceIfShown()
            if layer.isFinished {
                // Screenshots past the end show the last picture, which stays on the window.
                if layer.current != nil { for shot in screenshots { try save(shot) } }
                return finish()
            }
            var wake = layer.nextWakeHostTime()
            switch input {
            case .file: if push, let pending { wake = min(wake ?? .infinity, arrival(pending)) }
            // The receiving thread hands frames over as they are decoded: look every 5 ms.
            case .live(let feed): if !feed.isFinished { wake = min(wake ?? .infinity, clock.now() + 0.005) }
            }
            let keys = window.waitForKeys(seconds: wake.map { max(0, $0 - clock.now()) } ?? 0.25)
            for key in keys {
                switch key {
                case .quit: return finish()
                case .togglePause:
                    userPaused.toggle()
                    let timeBefore = timebase.time
                    if userPaused {
                        timebase.pause()
                        // Paused on the picture the window shows: when the frame due now was not shown yet (or
                        // was dropped late), the timeline steps back to the one on the window.
                        if let frame = layer.current, !Self.covers(frame, timebase.time) { timebase.seek(to: frame.presentationTime) }
                    } else {
                        timebase.resume()
                    }
                    announcement = userPaused ? ("paused at", timebase.time) : ("resumed at", timeBefore)
                case .seekBackward, .seekForward:
                    guard case .file(let source) = input else {
                        if !quiet { StandardStreams.error("vtk play: a live stream cannot be sought\n") }
                        continue
                    }
                    let target = key == .seekForward ? timebase.time + PlayCommand.seekStep : max(source.firstTime, timebase.time - PlayCommand.seekStep)
                    try seek(to: target)
                    announcement = ("sought to", target)
                }
            }
        }
    }

    /// Decoding restarts at the sync sample before `target`; the timeline restarts at `target` once the
    /// frame due there is decoded (pull) or after the push latency.
    func seek(to target: Double) throws {
        guard case .file(let source) = input else { return }
        source.seek(to: target)
        try layer.flush(seekingTo: target)
        if push {
            pending = nil
            pushOrigin = clock.now()
            pushTarget = target
            timebase.seek(to: target)
            if !userPaused { startTimebase(atHost: pushOrigin + PlayCommand.pushLatency(frameDuration: source.frameDuration, rate: timebase.rate), time: target) }
        } else {
            try layer.preroll(through: target)
            timebase.seek(to: target)
            if !userPaused { startTimebase(atHost: clock.now(), time: target) }
        }
    }

    /// A key's effect, said on standard error once the frame due at its media time is on the window (so that
    /// whoever pressed it, a test's xdotool included, knows what the window shows).
    func announceIfShown() {
        guard let (what, time) = announcement, let frame = layer.current, Self.covers(frame, time) else { return }
        announcement = nil
        if !quiet { StandardStreams.error("vtk play: \(what) \(Self.seconds(time)) s, showing the frame at \(Self.seconds(frame.presentationTime)) s\n") }
    }

    /// Media seconds as said on standard error: to the millisecond ("1.157", not 1.1571883209999214).
    static func seconds(_ value: Double) -> String { String(format3: value) }

    /// `frame` is the one due at media time `time`.
    static func covers(_ frame: DisplayFrame, _ time: Double) -> Bool {
        frame.presentationTime <= time + 1e-9 && time < frame.presentationTime + frame.duration - 1e-9
    }

    func startTimebase(atHost host: Double, time: Double) {
        timebase.start(atHost: host, time: time)
        if hostOrigin == nil { hostOrigin = host }
    }

    /// Push: when a sample arrives, as if sent live at the pace of its decode time (samples before the
    /// start arrive at once).
    func arrival(_ sample: SampleBuffer) -> Double {
        let time = sample.decodeTime.isNumeric ? sample.decodeTime.seconds : sample.presentationTime.seconds
        let ahead = time - pushTarget
        guard ahead > 0 else { return pushOrigin }
        return timebase.rate > 0 ? pushOrigin + ahead / timebase.rate : .infinity
    }

    func feed() {
        switch input {
        case .file(let source):
            guard push else { return }
            let now = clock.now()
            while true {
                if pending == nil {
                    pending = source.next()
                    if pending == nil { layer.markEndOfStream(); return }
                }
                guard let sample = pending, arrival(sample) <= now else { return }
                layer.enqueue(sample)
                pending = nil
            }
        case .live(let feed):
            let frames = feed.takeFrames()
            // The first frame sets the timeline: it is due the push latency after it came, as are the rest.
            if let first = frames.first, !liveStarted {
                liveStarted = true
                timebase.seek(to: first.presentationTime)
                if !userPaused { startTimebase(atHost: clock.now() + PlayCommand.pushLatency(frameDuration: first.duration, rate: 1), time: first.presentationTime) }
            }
            for frame in frames { layer.enqueue(frame) }
            if feed.isFinished { layer.markEndOfStream() }
        }
    }

    /// Live: ends the reception and keeps how it went (packets, losses); nothing for a file.
    func stopLiveInput() {
        if case .live(let feed) = input, liveOutcome == nil { liveOutcome = feed.stop() }
    }

    func handle(_ event: DisplayEvent) throws {
        switch event {
        case .presented(let frame, let host):
            shown += 1
            try record(frame.presentationTime, presented: host)
            if !announced && !quiet {
                announced = true
                StandardStreams.error("vtk play: window 0x\(String(window.windowID, radix: 16)) on \(window.displayName) (\(window.method)), "
                                      + "\(frame.pixelBuffer.width)x\(frame.pixelBuffer.height), \(CodecDetection.option(input.codec))\n")
            }
        case .dropped(let frame, _):
            dropped += 1
            try record(frame.presentationTime, presented: nil)
        case .skipped(let time, _):
            dropped += 1
            try record(time, presented: nil)
        case .reachedMarker(let time):
            for shot in screenshots where shot.time == time { try save(shot) }
        }
    }

    /// A frame played: shown at `presented`, or dropped (nil); `pts` nil for a picture skipped inside the decoder.
    func record(_ pts: Double?, presented: Double?) throws(CommandFailure) {
        defer { framesHandled += 1 }
        guard let log else { return }
        let host = presented.map { JSONValue.number($0 - (hostOrigin ?? 0)) } ?? .null
        let line = JSONValue.object([("frame", .int(framesHandled)), ("pts", pts.map(JSONValue.number) ?? .null), ("presented", host)])
        try log.write(Array((line.text + "\n").utf8))
    }

    func save(_ shot: (time: Double, path: String)) throws {
        screenshots.removeAll { $0.time == shot.time && $0.path == shot.path }
        let picture = try window.screenshot()
        screenshotWriter.write(rgb: picture.rgb, width: picture.width, height: picture.height, to: shot.path)
    }

    func finish() {
        stopLiveInput()
        guard !quiet else { return }
        let s = layer.statistics
        // The frames played (--frames counts them), not what the layer went on to do in the same turn.
        var line = "vtk play: \(shown) frames shown, \(dropped) dropped (late)"
        if s.skippedForSeek > 0 { line += ", \(s.skippedForSeek) decoded only to reach a seek target" }
        if let report = liveOutcome?.report { line += "; \(report.packets) RTP packets, \(report.lost) lost, \(report.framesFlagged) frames flagged" }
        StandardStreams.error(line + "\n")
    }
}
