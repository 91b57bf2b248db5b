import H264Bitstream
import VTKMedia

/// What happened to a frame, or to the timeline, during ``DisplayLayer/service(frameBudget:)``.
public enum DisplayEvent: Sendable {
    /// The frame went to the presenter at `hostTime`.
    case presented(DisplayFrame, hostTime: Double)
    /// The frame was too late to be shown (counted in ``DisplayLayer/Statistics/dropped``); its image is released
    /// (``FrameImage/released``: size and time only).
    case dropped(DisplayFrame, hostTime: Double)
    /// The timeline reached a marker and the frame due at it is on the presenter (a screenshot may be taken).
    case reachedMarker(Double)
    /// Decoding fell behind and a picture was skipped to catch up, undecoded or held in the decoder (counted in
    /// ``DisplayLayer/Statistics/dropped``); its time when known.
    case skipped(presentationTime: MediaTime?, hostTime: Double)
}

/// Shows decoded pictures at their presentation times on a ``Timebase``, like AVSampleBufferDisplayLayer.
///
/// Feeding: push with ``enqueue(_:)-(SampleBuffer)`` (or decoded frames with ``enqueue(_:)-(DisplayFrame)``) as
/// media arrives; or pull, with ``requestMediaDataWhenReady(_:)``, whose block the layer calls whenever fewer than
/// `lowWaterMark` samples and frames wait, and which enqueues while ``isReadyForMoreMediaData``.
/// Driving: the owner calls ``service(frameBudget:)`` at ``nextWakeHostTime()`` (and when input arrives); the layer decodes
/// ahead, presents the frame due now, and drops a frame that is superseded or later than `lateTolerance` of its
/// duration past its time, so nothing is shown late. Used from one thread (the owner's render loop).
public final class DisplayLayer {
    public struct Statistics: Sendable, Equatable {
        public var presented = 0
        /// Frames too late to show.
        public var dropped = 0
        /// Frames decoded only to reach a seek target (not drops).
        public var skippedForSeek = 0
    }

    public let timebase: Timebase
    public let lowWaterMark: Int
    /// Frames decoded ahead of the timeline.
    public let decodeAhead: Int
    /// The fraction of a frame's duration it may be late and still be shown.
    public let lateTolerance: Double
    public private(set) var statistics = Statistics()
    /// The frame on the presenter.
    public private(set) var current: DisplayFrame?

    private let decoder: (any SampleDecoding)?
    private let presenter: any FramePresenter
    private var samples: [PlaybackSample] = []
    private var frames: [DisplayFrame] = []
    private var request: (() -> Void)?
    private var endOfStream = false
    private var decoderFlushed = false
    private var markers: [Double] = []
    private var seekTarget: Double?
    /// Decoding fell behind and no sync sample to skip to is queued yet: pull further ahead.
    private var catchingUp = false
    /// Frames ``service(frameBudget:)`` may still show, drop or skip in this call.
    private var budget = Int.max
    /// How late the next sample was when last looked at (nil when on time): skipping starts only when
    /// decoding loses ground, not after one slow decode it makes up for.
    private var lastLateness: Double?
    /// How long the last decode took (host seconds): a sync sample to skip to must be due after that.
    private var decodeSeconds = 0.0
    /// Samples given to the decoder since its last reset, less the frames it returned: what a reset discards.
    private var heldInDecoder = 0
    /// How far ahead the layer pulls while looking for a sync sample to catch up at.
    public static let catchUpWindow = 600

    public init(timebase: Timebase, decoder: (any SampleDecoding)?, presenter: any FramePresenter,
                lowWaterMark: Int = 8, decodeAhead: Int = 3, lateTolerance: Double = 0.5) {
        self.timebase = timebase
        self.decoder = decoder
        self.presenter = presenter
        self.lowWaterMark = max(1, lowWaterMark)
        self.decodeAhead = max(1, decodeAhead)
        self.lateTolerance = lateTolerance
    }

    // MARK: Feeding

    /// Push: a compressed sample, in decoding order.
    public func enqueue(_ sample: SampleBuffer) { enqueue(PlaybackSample(sample)) }

    /// Push: a compressed sample or an access unit already assembled, in decoding order.
    public func enqueue(_ sample: PlaybackSample) {
        samples.append(sample)
        endOfStream = false
        decoderFlushed = false
    }

    /// Push: a decoded frame, in display order.
    public func enqueue(_ frame: DisplayFrame) {
        // While seeking, a frame at or before the target supersedes the frames before it.
        if let target = seekTarget, frame.presentationTime.seconds <= target + 1e-9 {
            statistics.skippedForSeek += frames.count
            frames.removeAll()
        }
        frames.append(frame)
    }

    /// No more samples until the next enqueue: the decoder gives up the frames it holds.
    public func markEndOfStream() { endOfStream = true }

    public var isReadyForMoreMediaData: Bool { samples.count + frames.count < (catchingUp ? Self.catchUpWindow : lowWaterMark) && !endOfStream }

    /// Pull: `block` is called from ``service(frameBudget:)`` whenever the layer is ready for more.
    public func requestMediaDataWhenReady(_ block: @escaping () -> Void) { request = block }
    public func stopRequestingMediaData() { request = nil }

    /// Everything decoded or waiting is forgotten (not counted as dropped) and the decoder reset; with
    /// `target`, frames before the one due at it are skipped, and that one is shown even if late.
    public func flush(seekingTo target: Double? = nil) throws(DisplayError) {
        statistics.skippedForSeek += frames.count
        samples.removeAll()
        frames.removeAll()
        endOfStream = false
        decoderFlushed = false
        seekTarget = target
        catchingUp = false
        heldInDecoder = 0
        try decoder?.reset()
    }

    /// Marks media time `time`: ``DisplayEvent/reachedMarker(_:)`` comes once the timeline passes it with the
    /// frame due at it on the presenter; that frame is never dropped.
    public func addMarker(_ time: Double) {
        markers.append(time)
        markers.sort()
    }

    /// True once the stream ended and every frame was presented or dropped.
    public var isFinished: Bool { endOfStream && decoderFlushed && samples.isEmpty && frames.isEmpty }

    // MARK: Driving

    /// Decodes (pulling as needed) until the frame due at `time` is known: one after it is decoded, or the
    /// stream ended. The caller starts the timebase afterwards, so that decoding up to a start or seek target
    /// does not make the first frames late.
    public func preroll(through time: Double) throws(DisplayError) {
        while !(frames.last.map { $0.presentationTime.seconds > time } ?? false) {
            if samples.isEmpty { pull() }
            if samples.isEmpty {
                if !endOfStream || decoderFlushed { return }
                try flushDecoder()
                continue
            }
            try decodeNext()
        }
    }

    /// Presents what is due and drops what is late, decoding ahead between presentations; returns what
    /// happened. It returns right after a marker is reached, before anything else is shown, and once it has
    /// shown or dropped `frameBudget` frames (a player's frame limit: no frame is shown past it).
    public func service(frameBudget: Int = .max) throws(DisplayError) -> [DisplayEvent] {
        var events: [DisplayEvent] = []
        budget = frameBudget
        guard try presentDue(into: &events) else { return events }
        var decoded = 0
        while frames.count < decodeAhead {
            if samples.isEmpty { pull() }
            if samples.isEmpty {
                if endOfStream && !decoderFlushed { try flushDecoder(); continue }
                break
            }
            switch try catchUp(into: &events) {
            case .skipped: continue
            // Pushed samples come between calls: while behind, one decode a call lets the sync sample to skip to in.
            case .behind where request == nil && decoded > 0: _ = reachMarker(into: &events); return events
            default: break
            }
            decoded += 1
            try decodeNext()
            guard try presentDue(into: &events) else { return events }
        }
        _ = reachMarker(into: &events)
        return events
    }

    /// When ``service(frameBudget:)`` next has work: the next frame's or marker's time, now while samples wait to be
    /// decoded, nil when only new input or a timebase change can bring work.
    public func nextWakeHostTime() -> Double? {
        var wake: [Double] = []
        if let next = frames.first, let host = timebase.hostTime(for: next.presentationTime.seconds) { wake.append(host) }
        if let marker = markers.first, let host = timebase.hostTime(for: marker) { wake.append(host) }
        if frames.count < decodeAhead && (!samples.isEmpty || endOfStream && !decoderFlushed || request != nil && !endOfStream) {
            wake.append(timebase.clock.now())
        }
        return wake.min()
    }

    // MARK: Inside

    private func pull() {
        guard let request, isReadyForMoreMediaData else { return }
        request()
    }

    private func decodeNext() throws(DisplayError) {
        let sample = samples.removeFirst()
        guard let decoder else { return }
        let started = timebase.clock.now()
        let made = try decoder.decode(sample)
        decodeSeconds = timebase.clock.now() - started
        heldInDecoder += 1 - made.count
        for frame in made { enqueue(frame) }
    }

    /// A sample's time on the timeline: its presentation time, else its decode time (never later).
    private static func mediaTime(of sample: PlaybackSample) -> MediaTime? {
        sample.presentationTime.isNumeric ? sample.presentationTime : sample.decodeTime.isNumeric ? sample.decodeTime : nil
    }

    /// ``mediaTime(of:)`` in seconds, for the clock.
    private static func time(of sample: PlaybackSample) -> Double? { mediaTime(of: sample)?.seconds }

    /// Decoding fell behind: the next sample's picture is already later than it may be shown, and later than
    /// the one before it was (decoding is slower than the timeline, it will not catch up by itself). As players do, the samples up to the next sync sample whose
    /// picture is not yet due are skipped undecoded (dropped, and said), the decoder restarts there, and what
    /// it held is dropped with it. Without a sync sample queued it pulls further ahead;
    /// it never skips past a marker or a seek target, or while the timeline stands still.
    private enum CatchUp { case onTime, behind, skipped }

    private func catchUp(into events: inout [DisplayEvent]) throws(DisplayError) -> CatchUp {
        guard let decoder, seekTarget == nil, timebase.rate > 0, let first = samples.first, let due = Self.time(of: first) else { return .onTime }
        let now = timebase.clock.now()
        let time = timebase.time(atHost: now)
        let duration = first.duration.isNumeric ? first.duration.seconds : frames.last?.duration.seconds ?? 0
        let lateness = time - due
        guard lateness > lateTolerance * duration else {
            catchingUp = false
            lastLateness = nil
            return .onTime
        }
        defer { lastLateness = lateness }
        guard let previous = lastLateness, lateness >= previous else { return .behind }
        // Decoded now, it is ready one decode later: it must not be due before then.
        let ready = time + decodeSeconds * timebase.rate
        func target() -> Int? {
            samples.indices.dropFirst().first { samples[$0].isSync && (Self.time(of: samples[$0]) ?? -.infinity) >= ready }
        }
        var index = target()
        if index == nil && !endOfStream {
            catchingUp = true
            pull()
            index = target()
        }
        guard let index, let landing = Self.time(of: samples[index]), !markers.contains(where: { $0 < landing }) else { return .behind }
        catchingUp = false
        for sample in samples[..<index] {
            statistics.dropped += 1
            events.append(.skipped(presentationTime: Self.mediaTime(of: sample), hostTime: now))
            budget -= 1
        }
        samples.removeFirst(index)
        for _ in 0..<max(0, heldInDecoder) {
            statistics.dropped += 1
            events.append(.skipped(presentationTime: nil, hostTime: now))
            budget -= 1
        }
        heldInDecoder = 0
        lastLateness = nil
        try decoder.reset()
        return .skipped
    }

    private func flushDecoder() throws(DisplayError) {
        decoderFlushed = true
        guard let decoder else { return }
        let made = try decoder.finish()
        heldInDecoder = 0
        for frame in made { enqueue(frame) }
    }

    /// The frame is due at a marker still ahead: the last frame at or before it.
    private func isDueAtMarker(_ frame: DisplayFrame, next: DisplayFrame?) -> Bool {
        let due = { (time: Double) in frame.presentationTime.seconds <= time + 1e-9 && (next.map { $0.presentationTime.seconds > time + 1e-9 } ?? true) }
        return markers.contains(where: due) || seekTarget.map(due) == true
    }

    /// Shows the frame due now, dropping late ones; false when it stopped at a marker.
    private func presentDue(into events: inout [DisplayEvent]) throws(DisplayError) -> Bool {
        while let frame = frames.first {
            guard budget > 0 else { return false }
            let now = timebase.clock.now()
            // A frame is due from its host time on: the nanosecond absorbs rounding between host and media time.
            let time = timebase.time(atHost: now) + 1e-9
            guard frame.presentationTime.seconds <= time else { return true }
            if reachMarker(into: &events) { return false }
            let next = frames.dropFirst().first
            frames.removeFirst()
            if let target = seekTarget, let next, next.presentationTime.seconds <= target + 1e-9 {
                statistics.skippedForSeek += 1
                continue
            }
            let superseded = next.map { $0.presentationTime.seconds <= time } ?? false
            let late = time - frame.presentationTime.seconds > lateTolerance * frame.duration.seconds
            if !isDueAtMarker(frame, next: next) && (superseded || late) {
                statistics.dropped += 1
                // Its surface (a surface-backed frame's) goes back to the decoder now, not when the events are read:
                // one service may drop many frames while decoding catches up.
                var gone = frame
                gone.image = frame.image.released
                events.append(.dropped(gone, hostTime: now))
                budget -= 1
                continue
            }
            if let target = seekTarget, next.map({ $0.presentationTime.seconds > target + 1e-9 }) ?? true { seekTarget = nil }
            let shown = timebase.clock.now()
            try presenter.present(frame)
            current = frame
            statistics.presented += 1
            events.append(.presented(frame, hostTime: shown))
            budget -= 1
        }
        return true
    }

    /// The first marker, when the timeline has passed it, a frame is shown, and the next frame is known to
    /// come after it (so the frame shown is the one due at the marker).
    private func reachMarker(into events: inout [DisplayEvent]) -> Bool {
        guard let marker = markers.first, current != nil, timebase.time + 1e-9 >= marker else { return false }
        let nextIsLater = frames.first.map { $0.presentationTime.seconds > marker + 1e-9 } ?? (endOfStream && decoderFlushed && samples.isEmpty)
        guard nextIsLater else { return false }
        markers.removeFirst()
        events.append(.reachedMarker(marker))
        return true
    }
}
