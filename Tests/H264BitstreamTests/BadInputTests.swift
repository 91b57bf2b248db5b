import Foundation
import Testing
import VTKTestSupport
@testable import H264Bitstream

@Suite("Bad input gives typed errors, never a crash or a hang")
struct BadInputTests {
    /// A valid Constrained Baseline SPS for 176x144 (from the bit writer).
    static func sps(widthInMbsMinus1: Int = 10, heightMinus1: Int = 8) -> SequenceParameterSet {
        var sps = SequenceParameterSet()
        sps.profileIdc = 66
        sps.constraintSet1Flag = true
        sps.levelIdc = 30
        sps.picWidthInMbsMinus1 = widthInMbsMinus1
        sps.picHeightInMapUnitsMinus1 = heightMinus1
        return sps
    }

    @Test("An SPS with absurd sizes fails at the field, with its bit position")
    func absurdSPS() {
        var w = BitWriter()
        Self.sps(widthInMbsMinus1: 5000).write(&w)
        w.rbspTrailingBits()
        let unit = NALUnit([0x67] + EmulationPrevention.insert(w.bytes), offset: 100)
        #expect {
            _ = try SequenceParameterSet(nalUnit: unit)
        } throws: { error in
            guard case let BitstreamError.invalidValue(element, value, _) = error else { return false }
            return element == "pic_width_in_mbs_minus1" && value == 5000
        }
        // Cropping that leaves nothing.
        var crop = Self.sps()
        crop.frameCroppingFlag = true
        crop.frameCropRightOffset = 100
        #expect(throws: BitstreamError.self) { _ = try SequenceParameterSet(nalUnit: crop.nalUnit()) }
        // 40 reference frames.
        var refs = Self.sps()
        refs.maxNumRefFrames = 40
        #expect(throws: BitstreamError.self) { _ = try SequenceParameterSet(nalUnit: refs.nalUnit()) }
    }

    @Test("A truncated SPS or PPS throws overrun; an Exp-Golomb code over 32 bits throws expGolombTooLong")
    func truncated() {
        let full = Self.sps().nalUnit()
        for length in 1..<full.bytes.count - 1 {
            let cut = NALUnit(Array(full.bytes.prefix(length)))
            #expect(throws: BitstreamError.self, "SPS cut to \(length) bytes") { _ = try SequenceParameterSet(nalUnit: cut) }
        }
        // profile, flags, level, then 40 zero bits for seq_parameter_set_id.
        let long = NALUnit([0x67, 66, 0xC0, 30, 0, 0, 0, 0, 0, 0x80])
        #expect(throws: BitstreamError.expGolombTooLong(bitOffset: 24)) { _ = try SequenceParameterSet(nalUnit: long) }
    }

    @Test("A slice whose PPS never came is reported in its access unit, and later pictures still assemble")
    func missingParameterSet() throws {
        let sps = Self.sps()
        var pps = PictureParameterSet()
        pps.picParameterSetId = 0
        // An IDR slice header naming PPS 3, then a valid SPS/PPS and an IDR slice naming PPS 0.
        func slice(pps id: Int, idrPicId: Int) -> NALUnit {
            var w = BitWriter()
            w.ue(0); w.ue(7); w.ue(id)       // first_mb_in_slice, slice_type I, pic_parameter_set_id
            w.u(4, 0)                         // frame_num (log2_max_frame_num = 4)
            w.ue(idrPicId)                    // idr_pic_id
            w.u(4, 0)                         // pic_order_cnt_lsb
            w.flag(false); w.flag(false)      // dec_ref_pic_marking
            w.se(0)                           // slice_qp_delta
            w.rbspTrailingBits()
            return NALUnit([0x65] + EmulationPrevention.insert(w.bytes))
        }
        let stream = AnnexBScanner.byteStream([slice(pps: 3, idrPicId: 0), sps.nalUnit(), pps.nalUnit(sps: sps), slice(pps: 0, idrPicId: 1)])
        let units = AccessUnitAssembler.accessUnits(in: stream)
        #expect(units.count == 2)
        #expect(units.first?.problems == [.missingParameterSet(kind: "PPS", id: 3)])
        #expect(units.last?.problems.isEmpty == true)
        #expect(units.last?.slices.count == 1)
    }

    @Test("Garbage, zero-length NAL units and forbidden_zero_bit do not crash the assembler")
    func garbage() {
        var rng = SplitMix64(seed: 1234)
        for round in 0..<200 {
            var bytes = (0..<Int(rng.next() % 4000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Sprinkle start codes so that the garbage is cut into NAL units of every type.
            for _ in 0..<Int(rng.next() % 40) where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes.replaceSubrange(at..<min(at + 3, bytes.count), with: [0, 0, 1])
            }
            let units = AccessUnitAssembler.accessUnits(in: bytes)
            #expect(units.flatMap(\.nalUnits).count == AnnexBScanner.nalUnits(in: bytes).count, "round \(round)")
        }
        let forbidden = AccessUnitAssembler.accessUnits(in: [0, 0, 1, 0xE5, 1, 2, 3])
        #expect(forbidden.first?.problems == [.malformedNALUnit(byteOffset: 3, reason: "forbidden_zero_bit is 1")])
    }

    @Test("Mutated copies of real streams (bit flips, truncation, dropped and zeroed runs) parse or fail cleanly")
    func mutatedStreams() throws {
        let streams = try TestStreams.available()
        #expect(!streams.isEmpty)
        var rng = SplitMix64(seed: 99)
        var mutants = 0
        var problemsSeen = 0
        for url in streams {
            let original = [UInt8](try Data(contentsOf: url).prefix(200_000))
            for _ in 0..<12 {
                var bytes = original
                switch rng.next() % 4 {
                case 0:  // flip bits, most of them in the first kilobyte where the headers are
                    for _ in 0..<Int(1 + rng.next() % 20) {
                        let range = rng.next() % 2 == 0 ? min(1024, bytes.count) : bytes.count
                        bytes[Int(rng.next() % UInt64(range))] ^= UInt8(1 << (rng.next() % 8))
                    }
                case 1:  // truncate
                    bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
                case 2:  // a run of zero bytes
                    let at = Int(rng.next() % UInt64(bytes.count))
                    for i in at..<min(bytes.count, at + Int(rng.next() % 64)) { bytes[i] = 0 }
                default:  // drop a run of bytes
                    let at = Int(rng.next() % UInt64(bytes.count))
                    bytes.removeSubrange(at..<min(bytes.count, at + Int(rng.next() % 500)))
                }
                let units = AccessUnitAssembler.accessUnits(in: bytes)
                problemsSeen += units.reduce(0) { $0 + $1.problems.count }
                // Every problem can be described for a user.
                for problem in units.flatMap(\.problems) { #expect(!problem.description.isEmpty) }
                mutants += 1
            }
        }
        #expect(mutants == streams.count * 12)
        #expect(problemsSeen > 0, "mutations should produce reported problems")
    }
}
