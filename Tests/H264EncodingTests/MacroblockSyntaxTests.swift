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
}
