import Testing
@testable import VTKCommandLine

/// `vtk roundtrip` times its encode stage, which has two pictures in flight, as the wall time during which a
/// picture was with the driver (issue 28). Pictures that overlap count once; the time between a last picture
/// coming back and the next submission does not count. Every assertion compares readings of one monotonic
/// clock: none depends on how fast the machine is.
@Suite("busy clock (issue 28)")
struct BusyClockTests {
    @Test("overlapping pictures count once: the time runs from the first submission until none is in flight")
    func overlapCountsOnce() {
        var speed = StageSpeed()
        var clock = BusyClock()
        let before = Clock.now()
        clock.willSubmit()
        let submitted = Clock.now()
        clock.collected(inFlight: 1, into: &speed)  // one still with the driver: nothing added yet
        #expect(speed.seconds == 0)
        clock.willSubmit()                           // a second picture joins: the clock keeps its start
        clock.collected(inFlight: 1, into: &speed)
        #expect(speed.seconds == 0)
        let lastBack = Clock.now()
        clock.collected(inFlight: 0, into: &speed)
        let after = Clock.now()
        #expect(speed.seconds > 0)
        // Started at the first submission (no later than `submitted`), stopped after `lastBack`.
        #expect(speed.seconds >= lastBack - submitted)
        #expect(speed.seconds <= after - before)
    }

    @Test("idle time between busy spells is not counted")
    func idleNotCounted() {
        var speed = StageSpeed()
        var clock = BusyClock()
        let start = Clock.now()
        clock.willSubmit()
        clock.collected(inFlight: 0, into: &speed)
        let firstSpell = speed.seconds
        let idleStart = Clock.now()
        while Clock.now() - idleStart < 0.002 {}     // idle: the clock is stopped
        let idleEnd = Clock.now()
        clock.willSubmit()
        clock.collected(inFlight: 0, into: &speed)
        let end = Clock.now()
        #expect(firstSpell > 0 && speed.seconds > firstSpell)
        #expect(speed.seconds <= (end - start) - (idleEnd - idleStart))
    }
}
