import Testing
@testable import H264Encoding

@Suite("Macroblock syntax")
struct MacroblockSyntaxTests {
    @Test("reset clears the residual and keeps the storage")
    func reset() {
        var mb = MacroblockSyntax()
        mb.luma[17] = 5
        mb.mbQPDelta = 3
        mb.reset(kind: .intra16x16)
        #expect(mb.luma.allSatisfy { $0 == 0 } && mb.mbQPDelta == 0 && mb.kind == .intra16x16 && mb.luma.count == 256)
    }

    @Test("reset clears every coefficient array however it was written, also after resets with nothing written")
    func resetAfterEachWay() {
        func scan(_ levels: [Int32], into out: inout [Int32], at start: Int) { for (i, v) in levels.enumerated() { out[start + i] = v } }
        var mb = MacroblockSyntax()
        for round in 0..<3 {
            mb.reset(kind: .pSkip)  // nothing written since the last reset
            mb.reset(kind: .pL016x16)
            #expect(mb.luma.allSatisfy { $0 == 0 } && mb.lumaDC.allSatisfy { $0 == 0 }
                    && mb.chromaDC.allSatisfy { $0 == 0 } && mb.chromaAC.allSatisfy { $0 == 0 }, "round \(round)")
            switch round {
            case 0: scan([1, -2, 3], into: &mb.luma, at: 250); mb.chromaDC[7] = 4  // inout and subscript
            case 1: mb.lumaDC.withUnsafeMutableBufferPointer { $0[15] = -9 }; mb.chromaAC = [Int32](repeating: 2, count: 128)
            default: var copy = mb; copy.chromaAC[127] = 1; mb = copy  // a copy carries what it wrote
            }
        }
        mb.reset(kind: .intra4x4)
        #expect(mb.luma.allSatisfy { $0 == 0 } && mb.lumaDC.allSatisfy { $0 == 0 } && mb.chromaDC.allSatisfy { $0 == 0 }
                && mb.chromaAC.allSatisfy { $0 == 0 } && mb.chromaAC.count == 128 && mb.lumaDC.count == 16)
    }
}
