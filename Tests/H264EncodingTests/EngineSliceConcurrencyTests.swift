@testable import H264Encoding
import Testing
import VTKTestSupport

/// Slices of one picture coded on two threads (H264PictureEncoder.sliceConcurrency 2) against the same
/// pictures coded on one: the streams and the reconstructions must be identical byte for byte, and
/// FFmpeg's decode of the concurrent stream must equal its reconstruction (the oracle of
/// EncoderOracleTests). Slice counts that split evenly and unevenly, CAVLC and CABAC, I, P and B.
@Suite("Encoder engine: slices coded concurrently")
struct EngineSliceConcurrencyTests {
    @Test("Two threads code the same stream as one", arguments: [(2, true), (3, false), (5, true), (4, false)])
    func sameStream(slices: Int, cavlc: Bool) throws {
        let frames = EncoderOracleTests.ciscoAll
        var c = EngineHarness.Config()
        c.cavlc = cavlc
        c.transform8x8Mode = true
        c.slicesPerPicture = slices
        c.pattern = [(.i, 0), (.p, 2), (.b, 1), (.p, 4), (.b, 3)]
        c.sliceConcurrency = 2
        let concurrent = try EncoderOracleTests().check(frames, c)  // skips without ../shared or ffmpeg
        c.sliceConcurrency = 1
        let serial = try EngineHarness.encode(frames, c)
        #expect(concurrent.stream == serial.stream, "\(slices) slices, \(cavlc ? "CAVLC" : "CABAC"): streams differ")
        #expect(EngineHarness.firstMismatch(concurrent.reconstructions, serial.reconstructions) == nil)
    }

    @Test("Slice groups: consecutive runs of about equal macroblock counts")
    func groups() {
        #expect(SliceGroups([10], concurrency: 2).ranges == [0..<1])
        #expect(SliceGroups([10, 10, 10], concurrency: 1).ranges == [0..<3])
        #expect(SliceGroups([10, 10], concurrency: 2).ranges == [0..<1, 1..<2])
        #expect(SliceGroups([10, 10, 10, 10, 5], concurrency: 2).ranges == [0..<2, 2..<5])
        #expect(SliceGroups([40, 1, 1, 1], concurrency: 2).ranges == [0..<1, 1..<4])
    }
}
