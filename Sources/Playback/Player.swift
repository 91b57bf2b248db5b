import JSONText
import VTKMedia
import VideoDisplay
import X11Display

/// What a ``Player`` shows: a file's samples, which the layer decodes, or a live stream's frames, decoded as
/// they arrive.
public enum PlayerInput {
    case file(any PlaybackSource)
    case live(any LiveFrameFeed)
}

/// The render loop of a player (`vtk play`'s): feeds the layer (pull: when it asks; push: each sample at its
/// own time; live: each frame as it is decoded), services it at its wake times, writes the timing log, takes
/// screenshots at their times, and answers the window's keys (space pauses, Left and Right seek ``seekStep``
/// seconds, q quits). Used from one thread.
public final class Player {
    /// Where a player reports what it does. All optional but `screenshot`.
    public struct Hooks {
        /// One timing-log line (JSON, with its newline) per frame played.
        public var timingLog: ((String) throws -> Void)?
        /// A line for standard error (the window line, key effects, the summary); nil: quiet.
        public var say: ((String) -> Void)?
        /// Saves the window as a PNG at `path` (asked when the timeline reaches the screenshot's time).
        public var screenshot: (String) throws -> Void
        /// True when the player should stop now (an interruption).
        public var shouldStop: () -> Bool

        public init(timingLog: ((String) throws -> Void)? = nil, say: ((String) -> Void)? = nil, screenshot: @escaping (String) throws -> Void,
                    shouldStop: @escaping () -> Bool = { false }) {
            self.timingLog = timingLog
            self.say = say
            self.screenshot = screenshot
            self.shouldStop = shouldStop
        }
    }

    /// Seconds a push source leads the timeline by, as a receiver's jitter buffer does.
    public static func pushLatency(frameDuration: Double, rate: Double) -> Double { 0.1 + 4 * frameDuration / max(rate, 0.25) }
    /// Seconds a Left or Right key seeks by.
    public static let seekStep = 5.0

    public let layer: DisplayLayer
    public let input: PlayerInput
    public let window: X11Window
    let push: Bool
    var screenshots: [(time: Double, path: String)]
    let frameLimit: Int?
    let codecName: String
    let hooks: Hooks
    var timebase: Timebase { layer.timebase }
    var clock: any HostClock { layer.timebase.clock }

    /// Host time of the timeline's first start: zero of the timing log's "presented".
    var hostOrigin: Double?
    /// Frames played (shown or dropped, up to the frame limit), and of them shown and dropped.
    public private(set) var framesHandled = 0
    public private(set) var shown = 0
    public private(set) var dropped = 0
    var userPaused = false
    /// Push: the next sample, the host time the feed started and the media time it started from.
    var pending: PlaybackSample?
    var pushOrigin = 0.0
    var pushTarget = 0.0
    var announced = false
    /// Live: the timeline was set to the first frame.
    var liveStarted = false
    var liveStopped = false
    var announcement: (what: String, time: Double)?
    /// A failure reading the file inside the layer's pull request, thrown from the loop.
    var sourceFailure: PlaybackError?

    public init(layer: DisplayLayer, input: PlayerInput, window: X11Window, push: Bool, screenshots: [(time: Double, path: String)],
                frameLimit: Int?, codecName: String, hooks: Hooks) {
        self.layer = layer
        self.input = input
        self.window = window
        self.push = push
        self.screenshots = screenshots
        self.frameLimit = frameLimit
        self.codecName = codecName
        self.hooks = hooks
        for shot in screenshots { layer.addMarker(shot.time) }
        if case .file(let source) = input, !push {
            layer.requestMediaDataWhenReady { [unowned self] in
                while self.layer.isReadyForMoreMediaData {
                    let sample: PlaybackSample?
                    do throws(PlaybackError) { sample = try source.next() } catch {
                        self.sourceFailure = error
                        self.layer.markEndOfStream()
                        return
                    }
                    guard let sample else { self.layer.markEndOfStream(); return }
                    self.layer.enqueue(sample)
                }
            }
        }
    }

    /// Plays from media time `start` (a file; a live stream starts with its first frame) until the end, the
    /// frame limit, q, or ``Hooks/shouldStop``.
    public func run(from start: Double) throws {
        if case .file = input { try seek(to: start) }
        while true {
            if hooks.shouldStop() { return finish() }
            try feed()
            for event in try layer.service(frameBudget: frameLimit.map { $0 - framesHandled } ?? .max) {
                try handle(event)
                if let frameLimit, framesHandled >= frameLimit { return finish() }
            }
            if let sourceFailure { throw sourceFailure }
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
                        if let frame = layer.current, !Self.covers(frame, timebase.time) { timebase.seek(to: frame.presentationTime.seconds) }
                    } else {
                        timebase.resume()
                    }
                    announcement = userPaused ? ("paused at", timebase.time) : ("resumed at", timeBefore)
                case .seekBackward, .seekForward:
                    guard case .file(let source) = input else {
                        hooks.say?("vtk play: a live stream cannot be sought\n")
                        continue
                    }
                    let target = key == .seekForward ? timebase.time + Self.seekStep : max(source.firstTime, timebase.time - Self.seekStep)
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
        try source.seek(to: target)
        try layer.flush(seekingTo: target)
        if push {
            pending = nil
            pushOrigin = clock.now()
            pushTarget = target
            timebase.seek(to: target)
            if !userPaused { startTimebase(atHost: pushOrigin + Self.pushLatency(frameDuration: source.frameDuration.seconds, rate: timebase.rate), time: target) }
        } else {
            try layer.preroll(through: target)
            if let sourceFailure { throw sourceFailure }
            timebase.seek(to: target)
            if !userPaused { startTimebase(atHost: clock.now(), time: target) }
        }
    }

    /// A key's effect, said once the frame due at its media time is on the window (so that whoever pressed
    /// it, a test's xdotool included, knows what the window shows).
    func announceIfShown() {
        guard let (what, time) = announcement, let frame = layer.current, Self.covers(frame, time) else { return }
        announcement = nil
        hooks.say?("vtk play: \(what) \(Self.seconds(time)) s, showing the frame at \(Self.seconds(frame.presentationTime.seconds)) s\n")
    }

    /// Media seconds as said: to the millisecond ("1.157", not 1.1571883209999214).
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(abs(thousandths % 1000))
        return "\(thousandths < 0 ? "-" : "")\(abs(thousandths) / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// `frame` is the one due at media time `time`.
    static func covers(_ frame: DisplayFrame, _ time: Double) -> Bool {
        let start = frame.presentationTime.seconds
        return start <= time + 1e-9 && time < start + frame.duration.seconds - 1e-9
    }

    func startTimebase(atHost host: Double, time: Double) {
        timebase.start(atHost: host, time: time)
        if hostOrigin == nil { hostOrigin = host }
    }

    /// Push: when a sample arrives, as if sent live at the pace of its decode time (samples before the
    /// start arrive at once).
    func arrival(_ sample: PlaybackSample) -> Double {
        let time = sample.decodeTime.isNumeric ? sample.decodeTime.seconds : sample.presentationTime.seconds
        let ahead = time - pushTarget
        guard ahead > 0 else { return pushOrigin }
        return timebase.rate > 0 ? pushOrigin + ahead / timebase.rate : .infinity
    }

    func feed() throws {
        switch input {
        case .file(let source):
            guard push else { return }
            let now = clock.now()
            while true {
                if pending == nil {
                    pending = try source.next()
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
                let start = first.presentationTime.seconds
                timebase.seek(to: start)
                if !userPaused { startTimebase(atHost: clock.now() + Self.pushLatency(frameDuration: first.duration.seconds, rate: 1), time: start) }
            }
            for frame in frames { layer.enqueue(frame) }
            if feed.isFinished { layer.markEndOfStream() }
        }
    }

    /// Live: ends the reception; nothing for a file.
    public func stopLiveInput() {
        guard case .live(let feed) = input, !liveStopped else { return }
        liveStopped = true
        feed.stopReceiving()
    }

    func handle(_ event: DisplayEvent) throws {
        switch event {
        case .presented(let frame, let host):
            shown += 1
            try record(frame.presentationTime.seconds, presented: host)
            if !announced {
                announced = true
                hooks.say?("vtk play: window 0x\(String(window.windowID, radix: 16)) on \(window.displayName) (\(window.method)), "
                           + "\(frame.width)x\(frame.height), \(codecName)\n")
            }
        case .dropped(let frame, _):
            dropped += 1
            try record(frame.presentationTime.seconds, presented: nil)
        case .skipped(let time, _):
            dropped += 1
            try record(time?.seconds, presented: nil)
        case .reachedMarker(let time):
            for shot in screenshots where shot.time == time { try save(shot) }
        }
    }

    /// A frame played: shown at `presented`, or dropped (nil); `pts` nil for a picture skipped inside the decoder.
    func record(_ pts: Double?, presented: Double?) throws {
        defer { framesHandled += 1 }
        guard let log = hooks.timingLog else { return }
        let host = presented.map { JSONValue.number($0 - (hostOrigin ?? 0)) } ?? .null
        let line = JSONValue.object([("frame", .int(framesHandled)), ("pts", pts.map(JSONValue.number) ?? .null), ("presented", host)])
        try log(line.text + "\n")
    }

    func save(_ shot: (time: Double, path: String)) throws {
        screenshots.removeAll { $0.time == shot.time && $0.path == shot.path }
        try hooks.screenshot(shot.path)
    }

    func finish() {
        stopLiveInput()
        guard let say = hooks.say else { return }
        let s = layer.statistics
        // The frames played: the layer shows none past the frame limit.
        var line = "vtk play: \(shown) frames shown, \(dropped) dropped (late)"
        if s.skippedForSeek > 0 { line += ", \(s.skippedForSeek) decoded only to reach a seek target" }
        if case .live(let feed) = input, let summary = feed.summary { line += "; " + summary }
        say(line + "\n")
    }
}
