import Foundation
import NALStream
import H265Bitstream
import Testing
import VTKTestSupport

/// `VideoCodec.h265`, checked against what does not come from it. Rules: the access units that hold a
/// picture are as many as reference.tsv's frames (every H.265 row is progressive, one picture per access
/// unit); nal_unit_type is bits 1 to 6 of the first header byte (7.3.1.2); the hvcC's second byte is the
/// SPS's general_profile_space, general_tier_flag and general_profile_idc (ISO/IEC 14496-15 8.3.3.1), which
/// stand in the SPS RBSP's second byte after its 4+3+1 bits of ids and flags (7.3.2.2).
struct H265VideoCodecTests {
    let codec = VideoCodec.h265

    @Test("The H.265 value: names from ISO/IEC 14496-15 and RFC 7798, 2-byte headers, VPS/SPS/PPS in that order")
    func names() {
        #expect(codec.name == "H.265" && codec.description == "H.265")
        #expect(codec.nalUnitHeaderSize == 2)
        #expect(codec.parameterSetTypes == [32, 33, 34])
        #expect(codec.sampleEntryNames == ["hvc1", "hev1"] && codec.configurationRecordType == "hvcC")
        #expect(codec.rtpEncodingName == "H265" && codec.sdpParameterSetKeys == ["sprop-vps", "sprop-sps", "sprop-pps"])
    }

    @Test("Access units, NAL types and the format description of every H.265 conformance stream")
    func streams() throws {
        guard !H265ConformanceStream.all.isEmpty else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        for stream in H265ConformanceStream.all {
            let bytes = [UInt8](try Data(contentsOf: stream.url))
            let units = codec.accessUnits(bytes)
            #expect(units.filter { $0.contains { codec.nalUnitType($0) < 32 } }.count == stream.frames, "\(stream.file)")
            let all = units.flatMap { $0 }
            #expect(all.map(codec.nalUnitType) == all.map { ($0.bytes[$0.bytes.startIndex] >> 1) & 0x3F }, "\(stream.file)")

            let first = try #require(units.first)
            let format = try codec.formatDescription(parameterSets: first)
            #expect(format.hevc != nil && format.avc == nil)
            #expect(format.displayWidth == stream.width && format.displayHeight == stream.height, "\(stream.file)")
            let record = try #require(codec.configurationRecord(format))
            let sps = try #require(first.first { codec.nalUnitType($0) == 33 })
            #expect(record[1] == EmulationPrevention.remove(sps.bytes.dropFirst(2))[1], "\(stream.file)")
            #expect(try codec.formatDescription(configurationRecord: record) == format)
        }
    }

    @Test("No parameter sets: a typed error naming the missing one")
    func missing() {
        #expect(throws: BitstreamError.missingParameterSet(kind: "VPS", id: 0)) { _ = try codec.formatDescription(parameterSets: []) }
    }
}
