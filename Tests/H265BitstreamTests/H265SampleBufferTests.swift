import Foundation
import NALStream
import H265Bitstream
import Testing
import VTKTestSupport

/// A ``SampleBuffer`` carries an H.265 format description as it carries an H.264 one. Oracle: the source
/// stream's own first access unit. Rules: the parameter sets the description puts in front of a sync sample
/// are the stream's VPS, SPS and PPS in that order, byte for byte; the slices follow unchanged.
struct H265SampleBufferTests {
    static func firstPicture() throws -> (bytes: [UInt8], unit: H265AccessUnit)? {
        guard let stream = H265ConformanceStream.all.first(where: { $0.file == "x265_cif_ippp_ctu64.265" }) else { return nil }
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        guard let unit = H265AccessUnitAssembler.accessUnits(in: bytes).first(where: \.hasPicture) else { return nil }
        return (bytes, unit)
    }

    @Test("An H.265 description in a sample: read back as H.265, and its VPS, SPS and PPS go in front of a sync sample")
    func hevcDescriptionInSample() throws {
        guard let (_, unit) = try Self.firstPicture() else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let hevc = try H265FormatDescription(parameterSets: unit.parameterSets)
        let slices = unit.slices.map(\.nalUnit)
        let sample = SampleBuffer(data: try LengthPrefixedSample.sample(slices), framing: .lengthPrefixed(4),
                                  formatDescription: .h265(hevc), isSync: true)

        #expect(sample.formatDescription?.hevc == hevc)
        #expect(sample.formatDescription == .h265(hevc))
        #expect(sample.formatDescription?.displayWidth == 352 && sample.formatDescription?.displayHeight == 288)
        #expect(sample.formatDescription?.description == hevc.description)

        let types = AnnexBScanner.nalUnits(in: try sample.annexB()).map { Int($0.h265Header.type.rawValue) }
        #expect(Array(types.prefix(3)) == [32, 33, 34], "\(types)")
        let stream = unit.nalUnits.filter { (32...34).contains($0.h265Header.type.rawValue) || $0.h265Header.type.isVCL }
        #expect(AnnexBScanner.nalUnits(in: try sample.annexB()).map { Array($0.bytes) } == stream.map { Array($0.bytes) })

        // A sample that is not a sync sample carries only its own NAL units.
        var later = sample
        later.isSync = false
        #expect(try later.annexB() == AnnexBScanner.byteStream(slices))
    }

    @Test("Descriptions compare by codec, length size and parameter-set bytes")
    func equality() throws {
        guard let (_, unit) = try Self.firstPicture() else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let four = try H265FormatDescription(parameterSets: unit.parameterSets)
        let two = try H265FormatDescription(parameterSets: unit.parameterSets, nalUnitLengthSize: 2)
        #expect(FormatDescription.h265(four) == .h265(try H265FormatDescription(hvcC: #require(four.hvcC))))
        #expect(FormatDescription.h265(four) != .h265(two))
        #expect(Set([FormatDescription.h265(four), .h265(four), .h265(two)]).count == 2)
        // The same description under the other codec's tag is another description.
        #expect(FormatDescription.h265(four) != .h264(four))
        #expect(FormatDescription.h264(four).hevc == nil)
    }
}
