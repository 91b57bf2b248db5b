import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
@testable import H264Decoding

/// Inputs the fuzzers (Tools/Fuzz) found crashes with, replayed through the same calls as their harness,
/// and the size limits checked before anything is allocated for a picture.
@Suite("Fuzz regressions and limits (H.264)")
struct FuzzRegressionAndLimitTests {
    static let directory = TestPaths.packageRoot.appendingPathComponent("fixtures/fuzz-regressions")

    /// Regression inputs of the fuzz target `target` (files named `<target>-<what>.bin`).
    static func inputs(_ target: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(target + "-") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("Every regression input of the avcC, header and Annex B targets runs through without a crash")
    func replay() throws {
        let all = Self.inputs("avcc") + Self.inputs("headers") + Self.inputs("annexb")
        #expect(!all.isEmpty, "fixtures/fuzz-regressions is missing")
        for url in all {
            let bytes = [UInt8](try Data(contentsOf: url))
            // avcc target
            if let record = try? AVCDecoderConfigurationRecord(bytes: bytes), let format = try? H264FormatDescription(avcC: record) {
                #expect(try AVCDecoderConfigurationRecord(bytes: format.avcC.bytes) == format.avcC, "\(url.lastPathComponent)")
            }
            // headers and annexb targets
            var sets = ParameterSets()
            for unit in AnnexBScanner.nalUnits(in: bytes) {
                try? sets.store(unit)
                if unit.type.isSlice { _ = try? SliceHeader(nalUnit: unit, parameterSets: sets) }
            }
            _ = try? H264FormatDescription(parameterSets: sets).avcC
            var process = H264DecodingProcess()
            for unit in AccessUnitAssembler.accessUnits(in: bytes) { _ = process.decode(unit) }
            _ = process.flush()
        }
    }

    @Test("An avcC whose SPS parses only with the trailing zero byte: a typed error, not a trap in H264FormatDescription.avcC")
    func avcCTrailingZero() throws {
        let url = Self.directory.appendingPathComponent("avcc-sps-parses-only-with-trailing-zero.bin")
        let record = try AVCDecoderConfigurationRecord(bytes: [UInt8](try Data(contentsOf: url)))
        #expect(throws: BitstreamError.self) { _ = try H264FormatDescription(avcC: record) }
    }

    /// SPS, PPS and an IDR slice header for a picture of `widthInMbs` x `heightInMbs` macroblocks.
    static func stream(widthInMbs: Int, heightInMbs: Int) -> [UInt8] {
        var sps = SequenceParameterSet()
        sps.profileIdc = 100
        sps.levelIdc = 62
        sps.picWidthInMbsMinus1 = widthInMbs - 1
        sps.picHeightInMapUnitsMinus1 = heightInMbs - 1
        let pps = PictureParameterSet()
        var w = BitWriter()
        w.ue(0); w.ue(7); w.ue(0)  // first_mb_in_slice, slice_type I, pic_parameter_set_id
        w.u(4, 0)                   // frame_num
        w.ue(0)                     // idr_pic_id
        w.u(4, 0)                   // pic_order_cnt_lsb
        w.flag(false); w.flag(false) // dec_ref_pic_marking
        w.se(0)                     // slice_qp_delta
        w.u(8, 0x5A)                // some slice data
        w.rbspTrailingBits()
        let idr = NALUnit([NALUnitHeader(nalRefIdc: 3, nalUnitType: .idrSlice).byte] + EmulationPrevention.insert(w.bytes))
        return AnnexBScanner.byteStream([sps.nalUnit(), pps.nalUnit(sps: sps), idr])
    }

    @Test("A picture larger than any level allows is refused before a sequence (and its surfaces) starts")
    func pictureBeyondLevelLimits() throws {
        // 1024x1024 macroblocks (16384x16384) parses, but level 6.2's MaxFS is 139264 macroblocks.
        var process = H264DecodingProcess()
        let units = AccessUnitAssembler.accessUnits(in: Self.stream(widthInMbs: 1024, heightInMbs: 1024))
        let events = units.flatMap { process.decode($0) }
        #expect(!events.contains { if case .newSequence = $0 { true } else { false } })
        #expect(!events.contains { if case .decode = $0 { true } else { false } })
        #expect(events.contains { if case .problem(.unsupportedStream(let what)) = $0 { what.contains("16384x16384") } else { false } })
        // The largest allowed (level 6.2: 8192x4352 = 512x272 = 139264 macroblocks) starts a sequence.
        var ok = H264DecodingProcess()
        let allowed = AccessUnitAssembler.accessUnits(in: Self.stream(widthInMbs: 512, heightInMbs: 272)).flatMap { ok.decode($0) }
        #expect(allowed.contains { if case .newSequence = $0 { true } else { false } })
    }

    @Test("Sizes past 16384 and absurd reference counts fail in the SPS parser, with the element named")
    func spsLimits() throws {
        for (name, edit) in [("pic_width_in_mbs_minus1", { (s: inout SequenceParameterSet) in s.picWidthInMbsMinus1 = 1024 }),
                             ("pic_height_in_map_units_minus1", { (s: inout SequenceParameterSet) in s.picHeightInMapUnitsMinus1 = 5000 }),
                             ("max_num_ref_frames", { (s: inout SequenceParameterSet) in s.maxNumRefFrames = 1000 })] {
            var sps = SequenceParameterSet()
            edit(&sps)
            #expect(throws: BitstreamError.self, "\(name)") { _ = try SequenceParameterSet(nalUnit: sps.nalUnit()) }
            do { _ = try SequenceParameterSet(nalUnit: sps.nalUnit()) } catch {
                #expect("\(error)".contains(name))
            }
        }
    }
}
