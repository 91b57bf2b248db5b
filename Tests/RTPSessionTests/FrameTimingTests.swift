import RTPSession
import VTKMedia
import Testing

/// Frame numbers, latencies and recovery from RTP times and arrival times given by the test (90 kHz).
@Suite("Frame timing and reception statistics")
struct FrameTimingTests {
    @Test("RTP times from the first frame across the 32-bit wrap; frame numbers by the smallest step leave gaps for lost frames")
    func displayIndices() {
        var timing = FrameTiming()
        let first: UInt32 = 0xFFFF_F000
        #expect(timing.noteFrame(timestamp: first, arrival: 10) == 0)
        #expect(timing.displayIndex(ticks: 0) == 0)
        #expect(timing.frameStep == nil, "one frame: no pacing known")
        #expect(timing.noteFrame(timestamp: first &+ 3600, arrival: 10.04) == 3600)
        #expect(timing.noteFrame(timestamp: first &+ 3 * 3600, arrival: 10.12) == 3 * 3600, "wraps past 2^32")
        #expect(timing.frameStep == MediaTime(value: 3600, timescale: 90000) && timing.frameStep?.seconds == 0.04)
        #expect(timing.displayIndex(ticks: 3 * 3600) == 3, "frame 2 was lost whole: frame 3 keeps its number")
        // A B-frame arrives with an earlier time: the step is the smallest difference, not the last.
        #expect(timing.noteFrame(timestamp: first &+ 2 * 3600, arrival: 10.13) == 2 * 3600)
        #expect(timing.displayIndex(ticks: 2 * 3600) == 2)
    }

    @Test("Latency from arrival always; from capture once an SR maps RTP time to the sender's clock; each frame measured once")
    func latencies() {
        var timing = FrameTiming()
        _ = timing.noteFrame(timestamp: 1000, arrival: 50.0)
        var latency = timing.latencies(ofFrameAt: 0, decodedAt: 50.03)
        #expect(abs((latency.fromArrival ?? -1) - 0.03) < 1e-9)
        #expect(latency.fromCapture == nil, "no sender report yet")
        latency = timing.latencies(ofFrameAt: 0, decodedAt: 50.05)
        #expect(latency.fromArrival == nil, "the arrival was used once")
        // The SR says RTP time 1000 + 9000 was captured at unix 49.9 (0.1 s after 1000).
        timing.noteSenderReport(unixSeconds: 49.9, rtpTimestamp: 10000)
        _ = timing.noteFrame(timestamp: 1000 + 4500, arrival: 50.0)
        latency = timing.latencies(ofFrameAt: 4500, decodedAt: 50.0)
        // Frame at 4500 ticks from the first is 4500 ticks (0.05 s) before the SR's time: captured at 49.85.
        #expect(abs((latency.fromCapture ?? -1) - 0.15) < 1e-9)
        #expect(abs((timing.captureTime(ticks: 0) ?? -1) - 49.8) < 1e-9)
    }

    @Test("Frame intervals from a loss to a keyframe's capture need the SRs and the pacing")
    func intervalsFromLoss() {
        var timing = FrameTiming()
        _ = timing.noteFrame(timestamp: 0, arrival: 0)
        #expect(timing.intervalsFromLoss(0, toFrameAt: 0) == nil)
        _ = timing.noteFrame(timestamp: 3000, arrival: 0.04)
        #expect(timing.intervalsFromLoss(0, toFrameAt: 0) == nil, "no SR")
        timing.noteSenderReport(unixSeconds: 20, rtpTimestamp: 0)
        // Keyframe at 9000 ticks (0.1 s after time 0, captured at 20.1); loss seen at 20.0; step 3000 ticks.
        #expect(abs((timing.intervalsFromLoss(20.0, toFrameAt: 9000) ?? -1) - 3) < 1e-9)
    }

    @Test("Recovery: from the first loss not recovered to the next intact frame, once")
    func recovery() {
        var timing = FrameTiming()
        #expect(timing.recovered(at: 5) == nil)
        timing.noteLoss(at: 1)
        timing.noteLoss(at: 2)
        #expect(timing.recovered(at: 3.5) == 2.5, "from the first loss")
        #expect(timing.recovered(at: 4) == nil)
    }

    @Test("The report: a true median, latency by the SRs only when they give capture times and never go negative")
    func report() {
        #expect(ReceptionReport.percentile([], 50) == nil)
        #expect(ReceptionReport.percentile([4, 1, 3, 2], 50) == 2.5)
        #expect(ReceptionReport.percentile([1, 2, 3, 4, 5], 100) == 5)
        var report = ReceptionReport()
        report.latenciesFromArrival = [0.02]
        report.latenciesFromSenderReports = [0.05]
        #expect(report.latencies == [0.02], "an unknown sender's SRs are not capture times")
        report.senderReportsGiveCaptureTime = true
        #expect(report.latencies == [0.05])
        report.latenciesFromSenderReports = [0.05, -0.01]
        #expect(report.latencies == [0.02], "clocks that disagree")
        #expect(report.latencyClocks.contains("not comparable"))
        for index in 0..<150 { report.note("problem \(index)") }
        #expect(report.problemCount == 150)
        #expect(report.problems.count == 100)
    }
}
