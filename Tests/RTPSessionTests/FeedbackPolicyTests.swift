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
        let step1 = policy.takeReportDue()
        #expect(!step1)
        clock.time += 0.999
        let step2 = policy.takeReportDue()
        #expect(!step2)
        clock.time += 0.001
        let step3 = policy.takeReportDue()
        #expect(step3)
        let step4 = policy.takeReportDue()
        #expect(!step4, "one report per interval")
        #expect(policy.nextReport == clock.time + 1)
        clock.time += 5
        let step5 = policy.takeReportDue()
        #expect(step5)
        let step6 = policy.takeReportDue()
        #expect(!step6, "a late report does not make up for the ones missed")
    }

    @Test("One PLI per loss while waiting; again only after a second; a damaged keyframe lets the next loss ask at once")
    func pliThrottling() {
        let clock = FakeClock()
        var policy = FeedbackPolicy(clock: clock)
        let step7 = policy.shouldRequestKeyframe(framesReceived: 3)
        #expect(step7)
        #expect(policy.waitingForKeyframe)
        clock.time += 0.5
        let step8 = policy.shouldRequestKeyframe(framesReceived: 5)
        #expect(!step8, "a PLI is pending: no second one within the second")
        clock.time += 0.5
        let step9 = policy.shouldRequestKeyframe(framesReceived: 6)
        #expect(!step9, "exactly one second is not more than one")
        clock.time += 0.01
        let step10 = policy.shouldRequestKeyframe(framesReceived: 7)
        #expect(step10, "unanswered for over a second: ask again")
        #expect(policy.unanswered == 2)
        policy.keyframeDamaged()
        #expect(!policy.waitingForKeyframe)
        clock.time += 0.1
        let step11 = policy.shouldRequestKeyframe(framesReceived: 8)
        #expect(step11, "the keyframe came damaged: ask again at once")
        #expect(policy.unanswered == 3)
    }

    @Test("An intact keyframe answers every pending PLI: frames and seconds from each, and when its loss was seen")
    func keyframeAnswers() {
        let clock = FakeClock(100)
        var policy = FeedbackPolicy(clock: clock)
        let step12 = policy.keyframeArrived(framesReceived: 1)
        #expect(step12.isEmpty, "no PLI waiting: nothing answered")
        policy.noteGap()  // loss seen at 100
        clock.time = 100.25
        let step13 = policy.shouldRequestKeyframe(framesReceived: 10)
        #expect(step13)  // PLI at 100.25 for the loss at 100
        clock.time = 101.5
        let step14 = policy.shouldRequestKeyframe(framesReceived: 14)
        #expect(step14)  // repeated at 101.5, no new gap: loss seen = sent
        clock.time = 102
        let answers = policy.keyframeArrived(framesReceived: 20)
        #expect(answers == [FeedbackPolicy.Answer(frames: 10, seconds: 1.75, lossSeen: 100),
                            FeedbackPolicy.Answer(frames: 6, seconds: 0.5, lossSeen: 101.5)])
        #expect(policy.unanswered == 0)
        #expect(!policy.waitingForKeyframe)
        let step15 = policy.keyframeArrived(framesReceived: 21)
        #expect(step15.isEmpty, "answered once")
        // After the answer the next loss asks at once, even within the second.
        clock.time = 102.1
        let step16 = policy.shouldRequestKeyframe(framesReceived: 21)
        #expect(step16)
    }

    @Test("PLIs still pending after a damaged keyframe are answered by the next intact one only if a PLI waits for it")
    func pendingAfterDamagedKeyframe() {
        let clock = FakeClock()
        var policy = FeedbackPolicy(clock: clock)
        let step17 = policy.shouldRequestKeyframe(framesReceived: 0)
        #expect(step17)
        policy.keyframeDamaged()
        let step18 = policy.keyframeArrived(framesReceived: 4)
        #expect(step18.isEmpty, "no PLI waits: the intact keyframe answers none")
        #expect(policy.unanswered == 1, "the first PLI stays unanswered, as the report says")
        let step19 = policy.shouldRequestKeyframe(framesReceived: 5)
        #expect(step19)
        #expect(policy.keyframeArrived(framesReceived: 9).map(\.frames) == [9, 4])
    }
}
