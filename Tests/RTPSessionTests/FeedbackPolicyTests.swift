import RTPSession
import Testing

/// A clock that moves only when the test moves it.
final class FakeClock: ReceiverClock {
    var time: Double
    init(_ time: Double = 1000) { self.time = time }
    func now() -> Double { time }
}

/// The RTCP/PLI policy on a clock the test moves: no sleeping, no timing. The rules checked are RFC 3550 6.2
/// (a receiver report per interval) and RFC 4585 6.3.1 (a PLI per lost reference picture, repeated only after
/// an interval while no keyframe came).
@Suite("RTCP and PLI policy")
struct FeedbackPolicyTests {
    @Test("A receiver report is due once per second, counted from the start")
    func reportsEverySecond() {
        let clock = FakeClock()
        var policy = FeedbackPolicy(clock: clock)
        policy.start()
        #expect(!policy.takeReportDue())
        clock.time += 0.999
        #expect(!policy.takeReportDue())
        clock.time += 0.001
        #expect(policy.takeReportDue())
        #expect(!policy.takeReportDue(), "one report per interval")
        #expect(policy.nextReport == clock.time + 1)
        clock.time += 5
        #expect(policy.takeReportDue())
        #expect(!policy.takeReportDue(), "a late report does not make up for the ones missed")
    }

    @Test("One PLI per loss while waiting; again only after a second; a damaged keyframe lets the next loss ask at once")
    func pliThrottling() {
        let clock = FakeClock()
        var policy = FeedbackPolicy(clock: clock)
        #expect(policy.shouldRequestKeyframe(framesReceived: 3))
        #expect(policy.waitingForKeyframe)
        clock.time += 0.5
        #expect(!policy.shouldRequestKeyframe(framesReceived: 5), "a PLI is pending: no second one within the second")
        clock.time += 0.5
        #expect(!policy.shouldRequestKeyframe(framesReceived: 6), "exactly one second is not more than one")
        clock.time += 0.01
        #expect(policy.shouldRequestKeyframe(framesReceived: 7), "unanswered for over a second: ask again")
        #expect(policy.unanswered == 2)
        policy.keyframeDamaged()
        #expect(!policy.waitingForKeyframe)
        clock.time += 0.1
        #expect(policy.shouldRequestKeyframe(framesReceived: 8), "the keyframe came damaged: ask again at once")
        #expect(policy.unanswered == 3)
    }

    @Test("An intact keyframe answers every pending PLI: frames and seconds from each, and when its loss was seen")
    func keyframeAnswers() {
        let clock = FakeClock(100)
        var policy = FeedbackPolicy(clock: clock)
        #expect(policy.keyframeArrived(framesReceived: 1).isEmpty, "no PLI waiting: nothing answered")
        policy.noteGap()  // loss seen at 100
        clock.time = 100.25
        #expect(policy.shouldRequestKeyframe(framesReceived: 10))  // PLI at 100.25 for the loss at 100
        clock.time = 101.5
        #expect(policy.shouldRequestKeyframe(framesReceived: 14))  // repeated at 101.5, no new gap: loss seen = sent
        clock.time = 102
        let answers = policy.keyframeArrived(framesReceived: 20)
        #expect(answers == [FeedbackPolicy.Answer(frames: 10, seconds: 1.75, lossSeen: 100),
                            FeedbackPolicy.Answer(frames: 6, seconds: 0.5, lossSeen: 101.5)])
        #expect(policy.unanswered == 0)
        #expect(!policy.waitingForKeyframe)
        #expect(policy.keyframeArrived(framesReceived: 21).isEmpty, "answered once")
        // After the answer the next loss asks at once, even within the second.
        clock.time = 102.1
        #expect(policy.shouldRequestKeyframe(framesReceived: 21))
    }

    @Test("PLIs still pending after a damaged keyframe are answered by the next intact one only if a PLI waits for it")
    func pendingAfterDamagedKeyframe() {
        let clock = FakeClock()
        var policy = FeedbackPolicy(clock: clock)
        #expect(policy.shouldRequestKeyframe(framesReceived: 0))
        policy.keyframeDamaged()
        #expect(policy.keyframeArrived(framesReceived: 4).isEmpty, "no PLI waits: the intact keyframe answers none")
        #expect(policy.unanswered == 1, "the first PLI stays unanswered, as the report says")
        #expect(policy.shouldRequestKeyframe(framesReceived: 5))
        #expect(policy.keyframeArrived(framesReceived: 9).map(\.frames) == [9, 4])
    }
}
