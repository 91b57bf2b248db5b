import CABACCoding
@testable import H264Encoding

/// A CABAC arithmetic decoding engine (9.3.1.2, 9.3.3.2) for tests: the inverse of ``CABACEncoder``,
/// written from the decoding clauses so the encoder's register and carry handling is checked against
/// the Recommendation's reading of the bits.
struct CABACDecodingEngine {
    private let bytes: [UInt8]
    private(set) var bitPosition: Int
    private var range: UInt32 = 510
    private var offset: UInt32 = 0
    var contexts: [UInt8]

    init(_ bytes: [UInt8], bitPosition: Int = 0, contexts: [UInt8]) {
        self.bytes = bytes
        self.bitPosition = bitPosition
        self.contexts = contexts
        initialise()
    }

    private mutating func readBit() -> UInt32 {
        defer { bitPosition += 1 }
        let byte = bitPosition >> 3
        guard byte < bytes.count else { return 0 }
        return UInt32(bytes[byte] >> (7 - UInt8(bitPosition & 7)) & 1)
    }

    /// 9.3.1.2
    mutating func initialise() {
        range = 510
        offset = 0
        for _ in 0..<9 { offset = offset << 1 | readBit() }
    }

    /// DecodeDecision (9.3.3.2.1)
    mutating func decodeDecision(_ ctxIdx: Int) -> Bool {
        let state = Int(contexts[ctxIdx])
        let pStateIdx = state >> 1
        let valMPS = state & 1 != 0
        let rLPS = UInt32(CABACEngineTables.rangeLPS[pStateIdx << 2 | Int((range >> 6) & 3)])
        range -= rLPS
        let bin: Bool
        if offset >= range {
            bin = !valMPS
            offset -= range
            range = rLPS
            let newMPS = pStateIdx == 0 ? !valMPS : valMPS
            contexts[ctxIdx] = CABACEngineTables.transIdxLPS[pStateIdx] << 1 | (newMPS ? 1 : 0)
        } else {
            bin = valMPS
            contexts[ctxIdx] = UInt8(min(pStateIdx + 1, 62) << 1 | (valMPS ? 1 : 0))
        }
        while range < 256 {
            range <<= 1
            offset = offset << 1 | readBit()
        }
        return bin
    }

    /// DecodeBypass (9.3.3.2.3)
    mutating func decodeBypass() -> Bool {
        offset = offset << 1 | readBit()
        if offset >= range {
            offset -= range
            return true
        }
        return false
    }

    /// DecodeTerminate (9.3.3.2.2.3): a 1 leaves the position after the last bit the encoder's flush wrote.
    mutating func decodeTerminate() -> Bool {
        range -= 2
        if offset >= range { return true }
        while range < 256 {
            range <<= 1
            offset = offset << 1 | readBit()
        }
        return false
    }

    /// pcm_alignment_zero_bits, then `count` raw bytes.
    mutating func readAlignedBytes(_ count: Int) -> [UInt8] {
        bitPosition = (bitPosition + 7) & ~7
        let start = bitPosition >> 3
        bitPosition += 8 * count
        return Array(bytes[start..<min(start + count, bytes.count)])
    }
}
