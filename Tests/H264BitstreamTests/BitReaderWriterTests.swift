import Testing
import VTKTestSupport
@testable import H264Bitstream

@Suite("Bit reader and writer")
struct BitReaderWriterTests {
    @Test("ue(v) and se(v) decode the code words of Table 9-2 and 9-3")
    func expGolombTable() throws {
        // codeNum 0..8: 1, 010, 011, 00100, 00101, 00110, 00111, 0001000, 0001001
        var w = BitWriter()
        let bits = "1" + "010" + "011" + "00100" + "00101" + "00110" + "00111" + "0001000" + "0001001"
        for c in bits { w.u(1, c == "1" ? 1 : 0) }
        w.alignWithZeros()
        var r = BitReader(w.bytes)
        for expected in 0..<9 { #expect(try r.ue() == UInt32(expected)) }
        var r2 = BitReader(w.bytes)
        let signed: [Int32] = [0, 1, -1, 2, -2, 3, -3, 4, -4]
        for expected in signed { #expect(try r2.se() == expected) }
    }

    @Test("Writer and reader agree on random values of every width")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 42)
        var w = BitWriter()
        var expected: [(kind: Int, width: Int, value: Int64)] = []
        for _ in 0..<5000 {
            switch rng.next() % 3 {
            case 0:
                let n = Int(rng.next() % 33)
                let v = n == 0 ? 0 : rng.next() & ((1 << UInt64(n)) - 1)
                w.u(n, UInt32(v)); expected.append((0, n, Int64(v)))
            case 1:
                let v = UInt32(truncatingIfNeeded: rng.next() >> UInt64(rng.next() % 64)) & 0x7FFF_FFFF
                w.ue(v); expected.append((1, 0, Int64(v)))
            default:
                let v = Int32(truncatingIfNeeded: Int64(bitPattern: rng.next()) >> Int64(33 + rng.next() % 31))
                w.se(v); expected.append((2, 0, Int64(v)))
            }
        }
        let total = w.bitCount
        w.rbspTrailingBits()
        var r = BitReader(w.bytes)
        for e in expected {
            switch e.kind {
            case 0: #expect(Int64(try r.u(e.width)) == e.value)
            case 1: #expect(Int64(try r.ue()) == e.value)
            default: #expect(Int64(try r.se()) == e.value)
            }
        }
        #expect(r.bitPosition == total)
        #expect(!r.moreRBSPData())
    }

    @Test("Reading past the end throws overrun with the bit position")
    func overrun() {
        var r = BitReader([0xFF])
        #expect(throws: BitstreamError.overrun(bitOffset: 0, needed: 4)) { _ = try r.u(12) }
        var r2 = BitReader([0x00, 0x00], reportingBase: 80)
        #expect(throws: BitstreamError.self) { _ = try r2.ue() }
    }

    @Test("An Exp-Golomb code longer than 32 bits is an error, not a wrapped value")
    func expGolombTooLong() throws {
        // 32 leading zeros then a 1: the value would need 33 bits.
        var r = BitReader([0, 0, 0, 0, 0x80, 0, 0, 0, 0])
        #expect(throws: BitstreamError.expGolombTooLong(bitOffset: 0)) { _ = try r.ue() }
        // 31 leading zeros is the longest legal code (2^32 - 2 at most with an all-ones suffix... here 2^31 - 1).
        var w = BitWriter()
        w.ue(UInt32.max - 1)
        w.alignWithZeros()
        var ok = BitReader(w.bytes)
        #expect(try ok.ue() == UInt32.max - 1)
    }

    @Test("more_rbsp_data stops at the rbsp_stop_one_bit")
    func moreRBSPData() throws {
        var r = BitReader([0b1011_0000])  // data bits "101", stop bit, zeros
        #expect(r.moreRBSPData())
        _ = try r.u(3)
        #expect(!r.moreRBSPData())
    }

    @Test("Emulation prevention removal: the contiguous path gives what the byte-by-byte one gives, positions included")
    func emulationPreventionContiguousPath() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            // Payloads dense in 0x00 and 0x03, so that runs such as 00 00 03 03 and 00 00 03 00 00 03 occur.
            let payload = (0..<Int(rng.next() % 120)).map { _ in [0, 0, 3, 1][Int(rng.next() % 4)] as UInt8 }
            let fast = EmulationPrevention.removeWithPositions(payload[...])
            let generic = EmulationPrevention.removeWithPositions(payload.lazy.map { $0 })  // not contiguous: the generic loop
            #expect(fast.rbsp == generic.rbsp && fast.removed == generic.removed, "payload \(payload)")
            // Independent of both: every removed offset holds 0x03 after two zero bytes of the payload.
            #expect(fast.removed.allSatisfy { $0 >= 2 && payload[$0] == 3 && payload[$0 - 1] == 0 && payload[$0 - 2] == 0 })
            #expect(fast.rbsp.count == payload.count - fast.removed.count)
        }
        #expect(EmulationPrevention.removeWithPositions([0, 0, 3, 0, 0, 3, 3][...]).removed == [2, 5])
    }

    @Test("Emulation prevention: insert then remove gives the RBSP back, and no start code survives")
    func emulationPrevention() {
        #expect(EmulationPrevention.insert([0, 0, 0]) == [0, 0, 3, 0, 3])
        #expect(EmulationPrevention.insert([0, 0, 1]) == [0, 0, 3, 1])
        #expect(EmulationPrevention.insert([0, 0, 4]) == [0, 0, 4])
        #expect(EmulationPrevention.remove([0, 0, 3, 1, 0, 0, 3, 3]) == [0, 0, 1, 0, 0, 3])
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let rbsp = (0..<Int(rng.next() % 200)).map { _ in rng.next() % 3 == 0 ? UInt8(rng.next() % 4) : 0 } + [0x80]  // an RBSP ends with its stop bit
            let ebsp = EmulationPrevention.insert(rbsp)
            let back = EmulationPrevention.remove(ebsp)
            // A trailing 0x03 appended after a final zero byte is itself removed as emulation prevention.
            #expect(back == rbsp)
            for i in 0..<max(0, ebsp.count - 2) {
                #expect(!(ebsp[i] == 0 && ebsp[i + 1] == 0 && ebsp[i + 2] <= 2), "start code prefix emulated at \(i)")
            }
        }
    }
}

/// The bitstream tests' name for the shared seeded generator.
typealias SplitMix64 = SeededRandom
