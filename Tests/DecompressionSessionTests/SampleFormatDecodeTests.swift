import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import NALStream
import H265Bitstream
import VideoAcceleration
@testable import DecompressionSession

/// An H.265 session takes its parameter sets from the samples' format description, as an H.264 one does.
/// Oracle: reference.tsv's MD5 of the whole I420 output (FFmpeg's software decoder). Rule: the stream is cut
/// into samples with every VPS, SPS and PPS removed from them, so a session that ignored the samples' format
/// description would have no parameter sets and decode nothing.
@Suite("H.265 samples carrying their format description", .serialized)
struct SampleFormatDecodeTests {
    @Test("H265Codec reads the sample's H.265 description, and the stream decodes from it to the reference MD5",
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message))
    func decodeFromSampleFormat() throws {
        guard let stream = H265ConformanceStream.all.first(where: { $0.file == "x265_cif_ippp_ctu64.265" }) else {
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        let pictures = H265AccessUnitAssembler.accessUnits(in: bytes).filter(\.hasPicture)
        let format = try H265FormatDescription(parameterSets: try #require(pictures.first).parameterSets)

        let session = try H265DecompressionSession(formatDescription: nil, connection: .open(.software, for: .decode(nil)), outputFormat: .i420)
        defer { session.invalidate() }
        var whole = MD5()
        var frames = 0
        func take(_ decoded: [DecodedFrame]) {
            for frame in decoded { whole.update(frame.pixelBuffer.packedBytes); frames += 1 }
        }
        for (index, unit) in pictures.enumerated() {
            let units = unit.nalUnits.filter { !(32...34).contains($0.h265Header.type.rawValue) }
            let sample = SampleBuffer(data: try LengthPrefixedSample.sample(units), formatDescription: .h265(format),
                                      presentationTime: MediaTime(value: Int64(index), timescale: 25), isSync: index == 0)
            #expect(H265Codec.format(of: sample) == format)
            take(try session.decode(sample))
        }
        take(try session.finishDelayedFrames())
        #expect(frames == stream.frames)
        #expect(whole.finalize() == stream.md5)
    }
}
