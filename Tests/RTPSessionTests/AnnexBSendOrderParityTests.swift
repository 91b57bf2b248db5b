import DecompressionSession
import Foundation
import NALStream
import RTPSession
import Testing
import VTKMedia
import VTKTestSupport

/// Streaming must stamp every picture as reading the whole file did. The oracle is the rule `vtk send` had
/// before it streamed, run here over the whole stream: every picture into the decoding process, display
/// position = output rank, and its own decoding position for a picture never output (the second field of a
/// frame, a skipped RASL picture). The streams: every H.264 (progressive and interlaced) and H.265
/// conformance stream in ../shared.
@Suite("Annex B streaming for vtk send: the same display times as the whole-file rule")
struct AnnexBSendOrderParityTests {
    static func wholeFile<Codec: RTPCodec>(_ codec: Codec.Type, _ bytes: [UInt8]) -> [Int] {
        var assembler = Codec.Assembler()
        var units: [Codec.Assembler.AccessUnit] = []
        for nal in AnnexBScanner.nalUnits(in: bytes) { if let unit = assembler.push(nal) { units.append(unit) } }
        units += assembler.finish()
        let pictures = units.filter(\.hasPicture)
        var process = Codec.Process()
        var order: [Int: Int] = [:]
        func note(_ events: [Codec.Process.Event]) {
            for case .output(let picture) in events where picture.presentationTime.isNumeric { order[Int(picture.presentationTime.value)] = order.count }
        }
        for (index, unit) in pictures.enumerated() { note(process.decode(unit, presentationTime: MediaTime(value: Int64(index), timescale: 1))) }
        note(process.flush())
        return pictures.indices.map { order[$0] ?? $0 }
    }

    static func streamed<Codec: RTPCodec>(_ codec: Codec.Type, _ bytes: [UInt8]) -> [Int] {
        var queue = AnnexBSendQueue<Codec>()
        var units: [AnnexBSendQueue<Codec>.Unit] = []
        var start = 0
        while start < bytes.count {
            units += queue.append(Array(bytes[start..<min(bytes.count, start + 65536)]))
            start += 65536
        }
        units += queue.finish()
        return units.filter(\.hasPicture).enumerated().map { $0.element.displayPosition ?? $0.offset }
    }

    static let h264 = ConformanceStream.rows(of: "h264") + ConformanceStream.rows(of: "h264-interlaced")
    static let h265 = ConformanceStream.rows(of: "h265")

    @Test("H.264, progressive and interlaced (fields wait out the lookahead)", .enabled(if: TestPaths.shared != nil, "\(TestPaths.sharedMissingMessage)"),
          arguments: h264)
    func h264Streams(_ stream: ConformanceStream) throws {
        let bytes = try Array(Data(contentsOf: stream.url))
        let expected = Self.wholeFile(H264Codec.self, bytes)
        #expect(!expected.isEmpty)
        #expect(Self.streamed(H264Codec.self, bytes) == expected, "\(stream.file)")
    }

    @Test("H.265", .enabled(if: TestPaths.shared != nil, "\(TestPaths.sharedMissingMessage)"), arguments: h265)
    func h265Streams(_ stream: ConformanceStream) throws {
        let bytes = try Array(Data(contentsOf: stream.url))
        let expected = Self.wholeFile(H265Codec.self, bytes)
        #expect(!expected.isEmpty)
        #expect(Self.streamed(H265Codec.self, bytes) == expected, "\(stream.file)")
    }
}
