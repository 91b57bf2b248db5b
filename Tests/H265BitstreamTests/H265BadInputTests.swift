import Foundation
import NALStream
import H265Bitstream
import Testing
import VTKTestSupport

/// Damaged H.265 headers never crash or hang the parsers: every failure is a BitstreamError with a
/// position. Oracle: "no crash" plus, for cut NAL units, that the parse fails (a header cut short cannot
/// be read whole) and says where.
struct H265BadInputTests {
    static func headerUnits() throws -> [NALUnit] {
        var units: [NALUnit] = []
        for stream in H265ConformanceStream.all.prefix(11) {  // the libx265 streams; the 720p one adds only length
            units += AnnexBScanner.nalUnits(in: Array(try Data(contentsOf: stream.url))).filter { $0.h265Header.type.rawValue >= 32 && $0.h265Header.type.rawValue <= 34 }
        }
        return units
    }

    @Test("VPS, SPS and PPS cut at every byte: an error naming a position, never a crash")
    func truncatedParameterSets() throws {
        let units = try Self.headerUnits()
        guard !units.isEmpty else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        var failures = 0
        for unit in units {
            let bytes = Array(unit.bytes)
            for length in 0..<(bytes.count - 1) {
                var sets = H265ParameterSets()
                do { try sets.store(NALUnit(Array(bytes.prefix(length)), offset: 100)) } catch {
                    failures += 1
                    #expect("\(error)".contains("byte"), "\(error)")
                }
            }
        }
        #expect(failures > units.count * 2)
    }

    @Test("Bit flips in headers and slice segment headers, and random bytes: never a crash")
    func bitFlips() throws {
        guard let stream = H265ConformanceStream.all.first(where: { $0.file == "x265_cif_slices4.265" }) else {
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let original = Array(try Data(contentsOf: stream.url))
        var generator = SeededRandom(seed: 17)
        for _ in 0..<200 {
            var bytes = original
            for _ in 0..<4 {
                // Flip bits near the start of NAL units, where the headers are.
                let starts = AnnexBScanner.startCodeOffsets(in: bytes)
                let at = starts[Int.random(in: 0..<starts.count, using: &generator)] + 3 + Int.random(in: 0..<24, using: &generator)
                if at < bytes.count { bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator)) }
            }
            _ = H265AccessUnitAssembler.accessUnits(in: bytes)
        }
        for _ in 0..<50 {
            let garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = H265AccessUnitAssembler.accessUnits(in: [0, 0, 1, 0x42, 0x01] + garbage)
            _ = try? HEVCDecoderConfigurationRecord(bytes: [1] + garbage.prefix(200))
            _ = try? H265SEIMessage.messages(in: NALUnit([0x4E, 0x01] + garbage.prefix(64)))
        }
    }

    @Test("An SEI payload longer than its NAL unit is an error with its offset; recovery point, hash and HDR SEI read")
    func seiMessages() throws {
        #expect(throws: BitstreamError.self) { try H265SEIMessage.messages(in: NALUnit([0x4E, 0x01, 0x06, 0x20, 0x80])) }
        // recovery_point: recovery_poc_cnt -1 (se 011), exact_match 1, broken_link 0.
        let recovery = try H265SEIMessage.messages(in: NALUnit([0x4E, 0x01, 0x06, 0x01, 0b0111_0100, 0x80]))
        #expect(recovery == [.recoveryPoint(recoveryPocCnt: -1, exactMatchFlag: true, brokenLinkFlag: false)])
        let light = try H265SEIMessage.messages(in: NALUnit([0x4E, 0x01, 144, 4, 0x03, 0xE8, 0x01, 0x90, 0x80]))
        #expect(light == [.contentLightLevel(maxContentLightLevel: 1000, maxPicAverageLightLevel: 400)])
        let hash = try H265SEIMessage.messages(in: NALUnit([0x50, 0x01, 132, 7, 1, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0x80]))
        #expect(hash == [.decodedPictureHash(hashType: 1, planes: [[0x12, 0x34], [0x56, 0x78], [0x9A, 0xBC]])])
    }

    @Test("x265's own SEI messages in the conformance streams parse")
    func streamSEI() throws {
        var count = 0
        for stream in H265ConformanceStream.all {
            for unit in AnnexBScanner.nalUnits(in: Array(try Data(contentsOf: stream.url))) where [39, 40].contains(unit.h265Header.type.rawValue) {
                _ = try H265SEIMessage.messages(in: unit)
                count += 1
            }
        }
        if H265ConformanceStream.all.isEmpty { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        #expect(count > 0)
    }
}
