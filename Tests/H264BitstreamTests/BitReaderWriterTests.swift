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

    @Test("ue(v) wherever the data ends: the value while the code is whole, else an error, also past 32 bits")
    func expGolombAtTheEnd() throws {
        // Codes of 1 to 63 bits, so that the 32-bit window, the longer path and the bit-by-bit one all meet the end.
        let values: [UInt32] = [0, 1, 7, 255, 65_535, 1 << 20, UInt32.max - 1, 3]
        var w = BitWriter()
        for v in values { w.ue(v) }
        w.alignWithZeros()
        for cut in 0...w.bytes.count {
            var r = BitReader(Array(w.bytes.prefix(cut)))
            var position = 0
            for v in values {
                let length = 2 * (63 - (UInt64(v) + 1).leadingZeroBitCount) + 1
                guard position + length <= cut * 8 else {
                    #expect(throws: BitstreamError.self) { _ = try r.ue() }
                    break
                }
                #expect(try r.ue() == v, "cut \(cut)")
                #expect(r.bitPosition == position + length)
                position += length
            }
        }
    }

    @Test("A reader over an array slice reads what one over a copy of it reads")
    func arraySliceReader() throws {
        var rng = SplitMix64(seed: 5)
        let bytes = (0..<64).map { _ in UInt8(truncatingIfNeeded: rng.next()) } + [0x80, 0]
        for start in [1, 3, 7] {
            var slice = BitReader(bytes[start...]), copy = BitReader(Array(bytes[start...]))
            for n in [1, 5, 17, 32, 3] { #expect(try slice.u(n) == copy.u(n)) }
            for _ in 0..<6 { #expect(try slice.ue() == copy.ue()) }
            #expect(slice.bitsLeft == copy.bitsLeft)
            #expect(slice.moreRBSPData() == copy.moreRBSPData())
        }
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

    @Test("Emulation prevention in sparse payloads (whole words without a zero skipped): as byte by byte; unescaped copies only when it removes")
    func emulationPreventionSparse() {
        var rng = SplitMix64(seed: 13)
        for _ in 0..<500 {
            // Mostly bytes that are not zero, with a few 00 00 03 and 00 00 runs at any alignment.
            var payload: [UInt8] = []
            for _ in 0..<Int(rng.next() % 160) {
                switch rng.next() % 24 {
                case 0: payload += [0, 0, 3]
                case 1: payload += [0, 0]
                case 2: payload.append(0)
                default: payload.append(UInt8(1 + rng.next() % 255))
                }
            }
            let start = Int(rng.next() % 4)
            let bytes = [UInt8](repeating: 9, count: start) + payload
            let fast = EmulationPrevention.removeWithPositions(bytes[start...])
            let generic = EmulationPrevention.removeWithPositions(payload.lazy.map { $0 })
            #expect(fast.rbsp == generic.rbsp && fast.removed == generic.removed, "payload \(payload)")
            let unescaped = EmulationPrevention.unescaped(bytes[start...])
            #expect(Array(unescaped.rbsp) == generic.rbsp && unescaped.removed == generic.removed)
            if generic.removed.isEmpty { #expect(unescaped.rbsp.startIndex == start) }
        }
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
