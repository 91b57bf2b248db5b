import CompressionSession
import Foundation
import Testing
import VTKMedia
import VTKTestSupport

@Suite("IDRs exactly where asked, as FFmpeg sees them")
struct KeyFrameTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let interval: Int
        let duration: MediaTime?
        let forced: Set<Int>
        let expected: [Int]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "every 10 frames", interval: 10, duration: nil, forced: [], expected: [0, 10, 20, 30, 40, 50]),
        Case(name: "forced at 7, 23, 24", interval: 0, duration: nil, forced: [7, 23, 24], expected: [0, 7, 23, 24]),
        Case(name: "every 10, forced at 15 (the interval restarts there)", interval: 10, duration: nil, forced: [15],
             expected: [0, 10, 15, 25, 35, 45, 55]),
        Case(name: "every 0.5 s at 30 fps", interval: 0, duration: MediaTime(value: 1, timescale: 2), forced: [], expected: [0, 15, 30, 45]),
        Case(name: "every 0.5 s or 8 frames, whichever first", interval: 8, duration: MediaTime(value: 1, timescale: 2), forced: [],
             expected: [0, 8, 16, 24, 32, 40, 48, 56]),
    ]

    static let clip = Result { try Sources.synthetic("testsrc2-320x192-60", width: 320, height: 192, frames: 60, rate: 30) }

    @Test(.enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"), arguments: cases)
    func idrPlacement(_ c: Case) throws {
        let clip = try Self.clip.get()
        var properties = Encoder.properties(frameRate: 30)
        properties.maxKeyFrameInterval = c.interval
        properties.maxKeyFrameIntervalDuration = c.duration
        let run = try Encoder.run(clip, properties, name: "keyframes-\(c.expected.map(String.init).joined(separator: "_"))", forceKeyFrames: c.forced)
        let probed = try FFprobe.keyFrames(run.file)
        #expect(probed.keys == c.expected, "ffprobe picture types: \(probed.types)")
        #expect(run.samples.indices.filter { run.samples[$0].isSync } == c.expected)
        // Key frames are I pictures, the rest P (no B-frames).
        #expect(probed.types.count == clip.frames)
        #expect(Array(probed.types).enumerated().allSatisfy { c.expected.contains($0.offset) ? $0.element == "I" : $0.element == "P" })
    }

    @Test("The 720p CQP stream has a single IDR at frame 0 when no interval is set",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func hdSingleIDR() throws {
        let run = try Encoder.hdCQP.get()
        #expect(try FFprobe.keyFrames(run.file).keys == [0])
    }
}
