import H264Bitstream
import Testing
import VideoDisplay
import VTKMedia

/// Records what the layer shows and when.
final class RecordingPresenter: FramePresenter {
    let clock: ManualClock
    private(set) var shown: [(pts: Double, host: Double)] = []
    init(clock: ManualClock) { self.clock = clock }
    func present(_ frame: DisplayFrame) throws(DisplayError) { shown.append((frame.presentationTime.seconds, clock.now())) }
}

/// A decoder whose decodes take `cost` seconds of the manual clock, every `slowEvery`th one `slowCost`;
/// sample i is frame i, due at its presentation time (no reordering: the tests are about time, not the codec).
final class ScriptedDecoder: SampleDecoding {
    let clock: ManualClock
    let cost: Double
    let slowEvery: Int
    let slowCost: Double
    private var decodes = 0
    private(set) var resets = 0
    init(clock: ManualClock, cost: Double, slowEvery: Int = 0, slowCost: Double = 0) {
        self.clock = clock
        self.cost = cost
        self.slowEvery = slowEvery
        self.slowCost = slowCost
    }
    func decode(_ sample: SampleBuffer) throws(DisplayError) -> [DisplayFrame] {
        decodes += 1
        clock.advance(by: slowEvery > 0 && decodes % slowEvery == 0 ? slowCost : cost)
        return [DisplayFrame(pixelBuffer: PixelBuffer(format: .i420, width: 2, height: 2), presentationTime: sample.presentationTime,
                             duration: sample.duration)]
    }
    func finish() throws(DisplayError) -> [DisplayFrame] { [] }
    func reset() throws(DisplayError) { resets += 1 }
}

/// A 30 fps stream of `count` samples, a sync sample every `gop`.
struct ScriptedStream {
    let count: Int
    var gop = 30
    let period = MediaTime(value: 1, timescale: 30)
    func sample(_ i: Int) -> SampleBuffer {
        SampleBuffer(data: [], presentationTime: period * Int64(i), decodeTime: period * Int64(i), duration: period, isSync: i % gop == 0)
    }
}

/// The command's render loop, on the manual clock: wakes at the layer's wake time plus a deterministic
/// scheduling jitter of up to `jitter` seconds (a loaded machine); push mode enqueues each sample
/// `lead` seconds before its frame is due.
struct Harness {
    let clock = ManualClock(1000)
    let stream: ScriptedStream
    let rate: Double
    var push = false
    var decodeCost = 0.003
    var slowEvery = 0
    var slowCost = 0.0
    var jitter = 0.004
    var lead = 0.1

    struct Outcome {
        var shown: [(pts: Double, host: Double)]
        var statistics: DisplayLayer.Statistics
        var origin: Double
        var droppedEvents: Int
    }

    func run(configure: (DisplayLayer) -> Void = { _ in }) throws -> Outcome {
        let timebase = Timebase(clock: clock, time: 0, rate: rate)
        let decoder = ScriptedDecoder(clock: clock, cost: decodeCost, slowEvery: slowEvery, slowCost: slowCost)
        let presenter = RecordingPresenter(clock: clock)
        let layer = DisplayLayer(timebase: timebase, decoder: decoder, presenter: presenter)
        configure(layer)
        var next = 0
        var origin = clock.now()
        if push {
            origin = clock.now() + lead
            timebase.start(atHost: origin)
        } else {
            // unowned: the layer keeps the block until told to stop (as the player's does), so a strong capture
            // would be a cycle that outlives the test (LeakSanitizer reported it).
            layer.requestMediaDataWhenReady { [unowned layer] in
                while layer.isReadyForMoreMediaData {
                    guard next < stream.count else { layer.markEndOfStream(); return }
                    layer.enqueue(stream.sample(next))
                    next += 1
                }
            }
            try layer.preroll(through: 0)
            origin = clock.now()
            timebase.start(atHost: origin)
        }
        var random = SplitMix(seed: 7)
        var dropped = 0
        for _ in 0..<100_000 where !layer.isFinished {
            if push {
                // Sample i arrives `lead` before its frame is due.
                while next < stream.count, origin + stream.period.seconds * Double(next) / rate - lead <= clock.now() {
                    layer.enqueue(stream.sample(next))
                    next += 1
                }
                if next == stream.count { layer.markEndOfStream() }
            }
            for event in try layer.service() {
                if case .dropped = event { dropped += 1 }
                if case .skipped = event { dropped += 1 }
            }
            var wake = layer.nextWakeHostTime() ?? clock.now() + 0.05
            if push, next < stream.count { wake = min(wake, origin + stream.period.seconds * Double(next) / rate - lead) }
            clock.sleep(until: wake + jitter * random.unit())
        }
        #expect(layer.isFinished)
        return Outcome(shown: presenter.shown, statistics: layer.statistics, origin: origin, droppedEvents: dropped)
    }
}

/// Pull feeding for the tests: hands the layer the stream's samples from `next` on whenever it asks.
final class PullFeed {
    var next = 0

    init(_ layer: DisplayLayer, _ stream: ScriptedStream) {
        layer.requestMediaDataWhenReady { [unowned layer] in
            while layer.isReadyForMoreMediaData {
                guard self.next < stream.count else { layer.markEndOfStream(); return }
                layer.enqueue(stream.sample(self.next))
                self.next += 1
            }
        }
    }
}

extension DisplayLayer {
    /// Services the layer on the manual clock while `condition` holds, sleeping to each wake time.
    func serviceLoop(_ clock: ManualClock, while condition: () -> Bool, onEvent: (DisplayEvent) -> Void = { _ in }) throws {
        for _ in 0..<100_000 where condition() {
            for event in try service() { onEvent(event) }
            clock.sleep(until: nextWakeHostTime() ?? clock.now() + 0.01)
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func unit() -> Double {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

@Suite("Timebase")
struct TimebaseTests {
    @Test("time runs at the rate from its anchor, stands still when paused, and changes of rate do not make it jump")
    func anchoredTime() {
        let clock = ManualClock(50)
        let timebase = Timebase(clock: clock, time: 2, rate: 1)
        #expect(timebase.isPaused)
        clock.advance(by: 3)
        #expect(timebase.time == 2)
        timebase.start(atHost: clock.now())
        clock.advance(by: 1.5)
        #expect(timebase.time == 3.5)
        timebase.rate = 2
        #expect(timebase.time == 3.5)
        clock.advance(by: 1)
        #expect(timebase.time == 5.5)
        #expect(timebase.hostTime(for: 6.5) == clock.now() + 0.5)
        timebase.pause()
        clock.advance(by: 10)
        #expect(timebase.time == 5.5)
        #expect(timebase.hostTime(for: 6) == nil)
        timebase.resume()
        clock.advance(by: 0.25)
        #expect(timebase.time == 6)
        timebase.seek(to: 1)
        #expect(timebase.time == 1)
        timebase.rate = 0
        clock.advance(by: 4)
        #expect(timebase.time == 1)
    }
}

@Suite("Display layer")
struct DisplayLayerTests {
    /// Presentation time minus the time due, PTS / rate after the timebase's start, in host seconds.
    static func deviations(_ outcome: Harness.Outcome, rate: Double) -> [Double] {
        outcome.shown.map { $0.host - (outcome.origin + $0.pts / rate) }
    }

    @Test("300 frames at 30 fps are shown within half a frame period of PTS/rate, pull and push, rate 1 and 2",
          arguments: [(1.0, false), (2.0, false), (1.0, true), (2.0, true)])
    func timing(rate: Double, push: Bool) throws {
        var harness = Harness(stream: ScriptedStream(count: 300), rate: rate)
        harness.push = push
        let outcome = try harness.run()
        #expect(outcome.statistics.presented == 300)
        #expect(outcome.statistics.dropped == 0)
        #expect(outcome.shown.map(\.pts) == (0..<300).map { Double($0) / 30 })
        let deviations = Self.deviations(outcome, rate: rate)
        let halfPeriod = 0.5 / 30 / rate
        print("display layer, rate \(rate), \(push ? "push" : "pull"): 300 frames, 0 dropped; lateness \(Int((deviations.min() ?? 0) * 1e6))"
              + "...\(Int((deviations.max() ?? 0) * 1e6)) µs, limit \(Int(halfPeriod * 1e6)) µs")
        #expect(deviations.allSatisfy { $0 >= 0 && $0 <= halfPeriod }, "worst \(deviations.max() ?? 0) s, limit \(halfPeriod) s")
        // The jitter is real: frames are not all on time to the microsecond.
        #expect((deviations.max() ?? 0) > 0.001)
    }

    @Test("decodes slowed on purpose (every 30th takes 6 frame periods) make the layer drop the late frames and count them, never show one late",
          arguments: [false, true])
    func slowDecodeDrops(push: Bool) throws {
        var harness = Harness(stream: ScriptedStream(count: 300), rate: 1)
        harness.push = push
        harness.slowEvery = 30
        harness.slowCost = 6.0 / 30
        let outcome = try harness.run()
        let stats = outcome.statistics
        print("display layer, slowed decodes, \(push ? "push" : "pull"): \(stats.presented) shown, \(stats.dropped) dropped, "
              + "worst lateness \(Int((Self.deviations(outcome, rate: 1).max() ?? 0) * 1e6)) µs")
        #expect(stats.dropped >= 9 * 3, "dropped \(stats.dropped)")
        #expect(stats.presented >= 150)
        #expect(stats.presented + stats.dropped == 300)
        #expect(stats.dropped == outcome.droppedEvents)
        let deviations = Self.deviations(outcome, rate: 1)
        #expect(deviations.allSatisfy { $0 <= 0.5 / 30 }, "worst \(deviations.max() ?? 0) s")
        #expect(zip(outcome.shown, outcome.shown.dropFirst()).allSatisfy { $0.pts < $1.pts && $0.host <= $1.host })
    }

    @Test("decoding slower than the timeline (1.5 frame periods a frame) catches up by skipping to the next sync sample it can show in time: the picture keeps moving, and shown + dropped = frames played",
          arguments: [false, true])
    func slowDecoderCatchesUp(push: Bool) throws {
        var harness = Harness(stream: ScriptedStream(count: 300), rate: 1)
        harness.push = push
        harness.decodeCost = 1.5 / 30
        let outcome = try harness.run()
        let stats = outcome.statistics
        print("display layer, decoder too slow, \(push ? "push" : "pull"): \(stats.presented) shown, \(stats.dropped) dropped")
        // Before: every frame decoded was later than the one before, all dropped, the first picture frozen.
        #expect(stats.presented >= 10, "shown \(stats.presented)")
        #expect((outcome.shown.last?.pts ?? 0) >= 9, "the picture froze at \(outcome.shown.last?.pts ?? 0) s")
        #expect(stats.presented + stats.dropped == 300)
        #expect(stats.dropped == outcome.droppedEvents)
        let deviations = Self.deviations(outcome, rate: 1)
        #expect(deviations.allSatisfy { $0 <= 0.5 / 30 }, "nothing shown late: worst \(deviations.max() ?? 0) s")
    }

    @Test("the frame due at a marker is shown even when late, and the marker is reached with it on the presenter")
    func markers() throws {
        var reached: [(Double, Double?)] = []
        let clock = ManualClock()
        let timebase = Timebase(clock: clock, rate: 1)
        let decoder = ScriptedDecoder(clock: clock, cost: 0.003, slowEvery: 10, slowCost: 0.5)
        let presenter = RecordingPresenter(clock: clock)
        let layer = DisplayLayer(timebase: timebase, decoder: decoder, presenter: presenter)
        layer.addMarker(1.0)
        layer.addMarker(2.5)
        let feed = PullFeed(layer, ScriptedStream(count: 90))
        try layer.preroll(through: 0)
        timebase.start(atHost: clock.now())
        try layer.serviceLoop(clock, while: { !layer.isFinished }) { event in
            if case .reachedMarker(let time) = event { reached.append((time, layer.current?.presentationTime.seconds)) }
        }
        _ = feed
        #expect(reached.map(\.0) == [1.0, 2.5])
        #expect(reached.map(\.1) == [1.0, 2.5])
        #expect(presenter.shown.contains { $0.pts == 1.0 } && presenter.shown.contains { $0.pts == 2.5 })
        #expect(layer.statistics.dropped > 0)
    }

    /// A layer holding a whole 30 fps stream of `frames` frames (decodes cost nothing), prerolled, its
    /// timebase started at rate 1.
    static func startedLayer(frames: Int) throws -> (ManualClock, Timebase, RecordingPresenter, DisplayLayer) {
        let clock = ManualClock()
        let timebase = Timebase(clock: clock, rate: 1)
        let presenter = RecordingPresenter(clock: clock)
        let layer = DisplayLayer(timebase: timebase, decoder: ScriptedDecoder(clock: clock, cost: 0), presenter: presenter)
        let stream = ScriptedStream(count: frames)
        for i in 0..<frames { layer.enqueue(stream.sample(i)) }
        layer.markEndOfStream()
        try layer.preroll(through: 0)
        timebase.start(atHost: clock.now())
        return (clock, timebase, presenter, layer)
    }

    @Test("a frame budget (the player's --frames limit) stops a service after that many frames shown or dropped: nothing is presented past it, and the next service goes on where it stopped")
    func frameBudget() throws {
        let (clock, _, presenter, layer) = try Self.startedLayer(frames: 20)
        clock.advance(by: 0.2)  // frames 0-5 are superseded, frame 6 (0.2 s) is due
        let first = try layer.service(frameBudget: 2)
        #expect(first.count == 2, "\(first)")
        #expect(presenter.shown.isEmpty)
        var rest: [DisplayEvent] = []
        for _ in 0..<10 where presenter.shown.isEmpty { rest += try layer.service() }
        #expect(rest.count == 5, "\(rest)")
        #expect(presenter.shown.map(\.pts) == [0.2])
        #expect(layer.statistics.dropped == 6)
        clock.advance(by: 1 / 30.0)
        #expect(try layer.service(frameBudget: 0).isEmpty)
        #expect(presenter.shown.count == 1)
    }

    @Test("pause stops time: nothing is shown or dropped while paused, and the next frame comes when it is due after resuming")
    func pause() throws {
        let (clock, timebase, presenter, layer) = try Self.startedLayer(frames: 60)
        let start = clock.now()
        try layer.serviceLoop(clock, while: { clock.now() < start + 0.5 })
        timebase.pause()
        _ = try layer.service()  // the frame due at the moment of pausing, if any
        let pausedAt = timebase.time
        let shownBefore = presenter.shown.count
        #expect(layer.nextWakeHostTime() == nil || layer.nextWakeHostTime() ?? 0 <= clock.now())
        for _ in 0..<100 {
            clock.advance(by: 0.1)
            #expect(try layer.service().isEmpty)
        }
        #expect(timebase.time == pausedAt)
        #expect(presenter.shown.count == shownBefore)
        #expect(layer.statistics.dropped == 0)
        timebase.resume()
        let resumed = clock.now()
        try layer.serviceLoop(clock, while: { !layer.isFinished })
        #expect(layer.statistics.dropped == 0)
        #expect(layer.statistics.presented == 60)
        let firstAfter = presenter.shown[shownBefore]
        #expect(abs(firstAfter.host - (resumed + (firstAfter.pts - pausedAt))) < 1e-9)
    }

    @Test("a seek decodes from the sync sample before the target, skips the frames before it without counting drops, and shows the frame due at the target first",
          arguments: [5.0, 5.01, 7.99])
    func seek(target: Double) throws {
        let clock = ManualClock()
        let timebase = Timebase(clock: clock, rate: 1)
        let decoder = ScriptedDecoder(clock: clock, cost: 0.004)
        let presenter = RecordingPresenter(clock: clock)
        let layer = DisplayLayer(timebase: timebase, decoder: decoder, presenter: presenter)
        let stream = ScriptedStream(count: 300, gop: 60)
        // Play the first second, then seek.
        let feed = PullFeed(layer, stream)
        try layer.preroll(through: 0)
        timebase.start(atHost: clock.now())
        try layer.serviceLoop(clock, while: { timebase.time < 1 })
        #expect(timebase.time >= 1, "the first second never played")
        let shownBefore = presenter.shown.count
        let due = Int((target * 30).rounded(.down))
        let sync = due / 60 * 60  // the sync sample before the target
        feed.next = sync
        try layer.flush(seekingTo: target)
        #expect(decoder.resets == 1)
        try layer.preroll(through: target)
        timebase.seek(to: target)
        try layer.serviceLoop(clock, while: { !layer.isFinished })
        #expect(presenter.shown[shownBefore].pts == Double(due) / 30)
        #expect(presenter.shown[shownBefore...].map(\.pts) == (due..<300).map { Double($0) / 30 })
        #expect(layer.statistics.dropped == 0)
        #expect(layer.statistics.skippedForSeek >= due - sync)
    }
}
