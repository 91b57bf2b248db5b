import Foundation
import Testing
import VTKTestSupport

/// Streams with emulation prevention bytes inside slice headers and with MMCO 5 decode bit-exactly:
/// libx264 streams against FFmpeg's software decode of themselves, edited streams against FFmpeg's
/// software decode of the stream they were edited from (the edits keep the decoded pictures).
@Suite("H264DecompressionSession on EPB-in-header and MMCO 5 streams", .serialized)
struct HeaderEdgeCaseDecodeTests {
    static let names = GeneratedStream.emulationPreventionInSliceHeaders.map(\.name)
        + (EditedStream.emulationPrevention + [EditedStream.mmco5]).map(\.name)

    @Test("Every frame's MD5 equals FFmpeg's software decode",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: names)
    func bitExact(name: String) throws {
        let (url, reference, frames): (URL, URL, Int)
        if let stream = GeneratedStream.emulationPreventionInSliceHeaders.first(where: { $0.name == name }) {
            (url, reference, frames) = (try stream.url(), try stream.url(), stream.frames)
        } else {
            let stream = try #require((EditedStream.emulationPrevention + [EditedStream.mmco5]).first { $0.name == name })
            (url, reference, frames) = (try stream.url(), try stream.base.url(), stream.base.frames)
        }
        let result = try StreamDecode(url: url)
        let expected = try ffmpegFrameMD5s(reference)
        #expect(expected.count == frames)
        #expect(result.frameMD5s == expected, "\(zip(result.frameMD5s, expected).filter { $0 != $1 }.count) frames differ")
        #expect(result.statistics.problems.isEmpty, "\(result.statistics.problems.prefix(3))")
        #expect(!result.damaged.contains(true))
    }
}
