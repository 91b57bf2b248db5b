import CompressionSession
import Foundation
import Testing
import VTKTestSupport

@Suite("CBR on 720p holds the bit rate over 300 frames")
struct RateControlTests {
    @Test(.enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"), arguments: [1_000_000, 2_000_000])
    func cbr(_ target: Int) throws {
        let run = try (target == 1_000_000 ? Encoder.hdCBR1M : Encoder.hdCBR2M).get()
        #expect(try FFprobe.decodeErrors(run.file) == "")
        #expect(try FFprobe.sizeAndFrames(run.file) == "1280,720,300")
        let rate = run.bitRate(framesPerSecond: 30)
        let error = (rate / Double(target) - 1) * 100
        print("CBR \(target / 1000) kbit/s on 720p: \(Int(rate)) bit/s (\(String(format: "%+.2f", error))%), \(run.bytes.count) bytes, \(String(format: "%.2f", run.seconds)) s")
        #expect(abs(error) <= 5, "bit rate \(Int(rate)) for a target of \(target)")
    }
}

@Suite("The same input encodes to the same bytes")
struct DeterminismTests {
    @Test(.enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"),
          arguments: [CompressionProperties.RateControl.constantQP, .constantBitRate])
    func fiveEncodes(_ mode: CompressionProperties.RateControl) throws {
        let clip = try #require(try Sources.smallClips().first)
        let properties = Encoder.properties(mode, bitRate: 400_000, frameRate: clip.framesPerSecond)
        var streams: [[UInt8]] = []
        for i in 0..<5 { streams.append(try Encoder.run(clip, properties, name: "determinism-\(mode.rawValue)-\(i)").bytes) }
        #expect(Set(streams).count == 1, "sizes \(streams.map(\.count))")
        print("determinism \(mode.rawValue): 5 encodes of \(clip), \(streams[0].count) bytes each, identical: \(Set(streams).count == 1)")
    }
}
