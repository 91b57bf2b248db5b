import Foundation
import H264Bitstream
import H265Bitstream
import MP4
import Testing
import VTKTestSupport

/// H.265 in MP4 (`hvc1` with the parameter sets in hvcC, `hev1` with them in the samples), as FFmpeg
/// writes it from the conformance streams: the hvcC record and the samples against the elementary stream.
@Suite("H.265 MP4 files made by FFmpeg, read through MP4Reader")
struct HEVCMP4ReadTests {
    static func remux(_ stream: URL, tag: String, flags: [String] = [], name: String) throws -> URL {
        let out = TestPaths.scratch.appendingPathComponent("\(name)-\(tag).mp4")
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-i", stream.path, "-c", "copy", "-tag:v", tag] + flags + [out.path])
        try #require(result.status == 0, "\(result.stderrText)")
        return out
    }

    @Test("hvcC: the record reads and writes back byte for byte, its parameter sets are the stream's, and one built from them reads the same",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage), arguments: H265ConformanceStream.names)
    func record(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let reader = try MP4Reader(url: try Self.remux(stream.url, tag: "hvc1", name: name))
        let record = try #require(reader.track.sampleDescription.hvcC)
        #expect(try HEVCDecoderConfigurationRecord(bytes: record.bytes) == record)
        let units = AnnexBScanner.nalUnits(in: Array(try Data(contentsOf: stream.url)))
        for type in [H265NALUnitType.vps, .sps, .pps] {
            let own = units.filter { $0.h265Header.type == type }.prefix(1).map { Array($0.bytes) }
            // FFmpeg's record may keep the zero byte of the next 4-byte start code (no NAL unit ends in 0x00, 7.4.2).
            let theirs = record.nalUnits(ofType: type).prefix(1).map { Array($0.reversed().drop { $0 == 0 }.reversed()) }
            #expect(theirs == own, "\(type)")
        }
        let format = try #require(reader.format?.hevc)
        #expect(format.displayWidth == stream.width && format.displayHeight == stream.height)
        #expect(format.bitDepth == (stream.profile == "Main 10" ? 10 : 8))
        let built = try #require(format.hvcC)
        #expect(built.profileTierLevelBytes == record.profileTierLevelBytes)
        #expect(built.chromaFormatIdc == record.chromaFormatIdc && built.bitDepthLumaMinus8 == record.bitDepthLumaMinus8)
        #expect(built.nalUnitLengthSize == record.nalUnitLengthSize)
        #expect(try HEVCDecoderConfigurationRecord(bytes: built.bytes) == built)
        #expect(try H265FormatDescription(hvcC: built) == format)
        // The samples are the stream's access units, length-prefixed.
        let samples = try reader.readAll()
        #expect(samples.count == H265AccessUnitAssembler.accessUnits(in: Array(try Data(contentsOf: stream.url))).count)
    }

    @Test("hev1 keeps the parameter sets in the samples; a truncated hvcC is an error with its offset",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func hev1AndDamage() throws {
        guard let stream = H265ConformanceStream.named("x265_cif_lossless.265") else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let hev1 = try MP4Reader(url: try Self.remux(stream.url, tag: "hev1", name: "lossless"))
        #expect(hev1.codec == .h265)
        let first = try #require(try hev1.nextSample())
        let types = try LengthPrefixedSample.nalUnits(in: first.data, lengthSize: hev1.nalUnitLengthSize).map(\.h265Header.type)
        #expect(types.contains(.sps) && types.contains(.pps))
        #expect(throws: BitstreamError.self) { try HEVCDecoderConfigurationRecord(bytes: [1, 2, 3]) }
        var bytes = try #require(hev1.track.sampleDescription.hvcC).bytes
        bytes.removeLast(3)
        #expect(throws: BitstreamError.self) { try HEVCDecoderConfigurationRecord(bytes: bytes) }
    }
}
