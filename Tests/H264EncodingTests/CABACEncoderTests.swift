import CABACCoding
import Testing
import VTKTestSupport
@testable import H264Encoding

@Suite("CABAC arithmetic encoder")
struct CABACEncoderTests {
    enum Operation: Equatable {
        case decision(Bool, context: Int)
        case bypass(Bool)
        case terminateZero
        /// terminate 1 (flush), raw bytes, re-initialisation: the I_PCM path.
        case pcm([UInt8])
    }

    /// Random bins (skewed per context so states move both ways), bypass runs, terminates and pcm breaks.
    static func operations(seed: UInt64, count: Int) -> [Operation] {
        var rng = SeededRandom(seed: seed)
        let skew = (0..<12).map { _ in Double.random(in: 0...1, using: &rng) }
        var ops: [Operation] = []
        for _ in 0..<count {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<70:
                let ctx = Int.random(in: 0..<12, using: &rng)
                ops.append(.decision(Double.random(in: 0...1, using: &rng) < skew[ctx], context: ctx))
            case 70..<95: ops.append(.bypass(Bool.random(using: &rng)))
            case 95..<99: ops.append(.terminateZero)
            default: ops.append(.pcm((0..<Int.random(in: 0...5, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
            }
        }
        return ops
    }

    static func initialContexts(seed: UInt64) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        return (0..<CABACTables.contextCount).map { _ in UInt8.random(in: 0...125, using: &rng) }
    }

    @Test("Decisions, bypass bins, terminates and pcm breaks decode back through 9.3.3.2", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func roundTrip(seed: UInt64) {
        let ops = Self.operations(seed: seed, count: 20_000)
        let contexts = Self.initialContexts(seed: seed)
        var encoder = CABACEncoder()
        encoder.contextBytes = contexts
        for op in ops {
            switch op {
            case .decision(let bin, let ctx): encoder.encodeDecision(bin, ctx)
            case .bypass(let bin): encoder.encodeBypass(bin)
            case .terminateZero: encoder.encodeTerminate(false)
            case .pcm(let raw):
                encoder.encodeTerminate(true)
                encoder.appendRaw(raw)
                encoder.initialise()
            }
        }
        encoder.encodeTerminate(true)
        let bytes = encoder.bytes

        var decoder = CABACDecodingEngine(bytes, contexts: contexts)
        for (index, op) in ops.enumerated() {
            let ok: Bool
            switch op {
            case .decision(let bin, let ctx): ok = decoder.decodeDecision(ctx) == bin
            case .bypass(let bin): ok = decoder.decodeBypass() == bin
            case .terminateZero: ok = decoder.decodeTerminate() == false
            case .pcm(let raw):
                ok = decoder.decodeTerminate() && decoder.readAlignedBytes(raw.count) == raw
                decoder.initialise()
            }
            guard ok else {
                Issue.record("operation \(index) (\(op)) decoded wrongly")
                return
            }
        }
        let ended = decoder.decodeTerminate()
        #expect(ended)
        // The final flush ends in rbsp_stop_one_bit followed by zero bits to the byte boundary.
        #expect((decoder.bitPosition + 7) / 8 == bytes.count, "decoder stopped at bit \(decoder.bitPosition) of \(bytes.count) bytes")
        let lastBit = decoder.bitPosition - 1
        #expect(bytes[lastBit >> 3] >> (7 - UInt8(lastBit & 7)) & 1 == 1)
        #expect(bytes.last.map { $0 & UInt8((1 << (7 - (lastBit & 7))) - 1) } == 0)
    }

    @Test("Long runs of 0xFF bytes with late carries (outstanding bytes) round trip")
    func carries() {
        // Bypass-only streams behave like binary fractions: long runs of ones force outstanding bytes.
        for seed in 0..<50 as Range<UInt64> {
            var rng = SeededRandom(seed: seed)
            var bins: [Bool] = []
            for _ in 0..<2_000 { bins.append(Int.random(in: 0..<100, using: &rng) < 97) }
            var encoder = CABACEncoder()
            for bin in bins { encoder.encodeBypass(bin) }
            encoder.encodeTerminate(true)
            var decoder = CABACDecodingEngine(encoder.bytes, contexts: encoder.contextBytes)
            let decoded = bins.map { _ in decoder.decodeBypass() }
            let ended = decoder.decodeTerminate()
            #expect(decoded == bins && ended)
        }
    }
}
