import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// `VideoCodec.h264`, checked against what does not come from it. Rules: a progressive stream has as many
/// access units holding a picture as reference.tsv's frames; nal_unit_type is the low 5 bits of the header
/// byte (7.3.1); the avcC's bytes 1 to 3 are the SPS's profile_idc, constraint flags and level_idc
/// (ISO/IEC 14496-15 5.3.3.1), the first three bytes of the SPS RBSP (7.3.2.1.1).
struct H264VideoCodecTests {
    let codec = VideoCodec.h264

    @Test("The H.264 value: names from ISO/IEC 14496-15 and RFC 6184, 1-byte headers, SPS then PPS")
    func names() {
        #expect(codec.name == "H.264" && codec.description == "H.264")
        #expect(codec.nalUnitHeaderSize == 1)
        #expect(codec.parameterSetTypes == [7, 8])
        #expect(codec.sampleEntryNames == ["avc1", "avc3"] && codec.configurationRecordType == "avcC")
        #expect(codec.rtpEncodingName == "H264" && codec.sdpParameterSetKeys == ["sprop-parameter-sets"])
    }

    @Test("Access units, NAL types and the format description of a progressive conformance stream")
    func stream() throws {
        guard let stream = ConformanceStream.all.first(where: { $0.file == "BA1_Sony_D.jsv" }) else {
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        let units = codec.accessUnits(bytes)
        #expect(units.filter { $0.contains { (1...5).contains(codec.nalUnitType($0)) } }.count == stream.frames)
        let all = units.flatMap { $0 }
        #expect(all.map(codec.nalUnitType) == all.map { $0.bytes[$0.bytes.startIndex] & 0x1F })

        let first = try #require(units.first)
        let format = try codec.formatDescription(parameterSets: first)
        #expect(format.avc != nil)
        if case .h264 = format {} else { Issue.record("not an H.264 description: \(format)") }
        #expect(format.displayWidth == stream.width && format.displayHeight == stream.height)
        let record = try #require(codec.configurationRecord(format))
        let sps = try #require(first.first { codec.nalUnitType($0) == 7 })
        #expect(Array(record[1...3]) == Array(EmulationPrevention.remove(sps.bytes.dropFirst()).prefix(3)))
        #expect(try codec.formatDescription(configurationRecord: record) == format)
        // The other codec's description has no avcC.
        #expect(VideoCodec.h264.configurationRecord(.h265(format.codecDescription)) == nil)
    }

    @Test("No parameter sets: a typed error naming the missing one")
    func missing() {
        #expect(throws: BitstreamError.missingParameterSet(kind: "SPS", id: 0)) { _ = try codec.formatDescription(parameterSets: []) }
    }
}
