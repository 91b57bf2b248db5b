@testable import H264Encoding
import Testing

/// The SATD of a prediction read where it lies (``MotionSearch/satd(_:_:_:w:h:stoppingAt:)``: a quarter-sample
/// average of two planes, or that averaged again with another list's prediction) against the SATD's definition
/// on the prediction written out sample by sample: for each 4x4 block, half the sum of the absolute values of
/// the Hadamard transform H·D·Hᵀ of its differences. The early-stopping rule is the SAD's
/// (``EngineKernelTests``): the sum whenever it is below the limit, something at or above the limit otherwise.
@Suite("SATD against predictions read as they lie")
struct SATDKernelTests {
    static let hadamard: [[Int32]] = [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, -1, 1], [1, -1, 1, -1]]

    /// The definition: Σ over the 4x4 blocks of Σ |H·D·Hᵀ| / 2, D = source − prediction (prediction stride 16).
    static func definition(_ source: [UInt8], _ sourceStride: Int, _ prediction: [UInt8], w: Int, h: Int) -> Int32 {
        var total: Int32 = 0
        for by in stride(from: 0, to: h, by: 4) {
            for bx in stride(from: 0, to: w, by: 4) {
                var d = [[Int32]](repeating: [0, 0, 0, 0], count: 4)
                for r in 0..<4 { for c in 0..<4 { d[r][c] = Int32(source[(by + r) * sourceStride + bx + c]) - Int32(prediction[(by + r) * 16 + bx + c]) } }
                var block: Int32 = 0
                for i in 0..<4 {
                    for j in 0..<4 {
                        var v: Int32 = 0
                        for r in 0..<4 { for c in 0..<4 { v += hadamard[i][r] * d[r][c] * hadamard[j][c] } }
                        block += abs(v)
                    }
                }
                total += block / 2
            }
        }
        return total
    }

    @Test("Quarter-sample averages and bi-predictions, 16x16, 16x8 and 8x16", arguments: ["random", "extremes"])
    func averaged(pattern: String) {
        var random = EngineKernelTests.Samples(state: 0x5DEE_CE66_D1CE_4E5B)
        let stride = 48
        for trial in 0..<60 {
            func samples(_ count: Int, _ value: UInt8) -> [UInt8] {
                (0..<count).map { _ in pattern == "extremes" && trial % 2 == 0 ? value : random.next() }
            }
            let source = samples(stride * 16, 255), a = samples(stride * 16, 0), b = samples(stride * 16, 1), held = samples(256, 0)
            // the predictions written out, by the definition of each average: (p + q + 1) >> 1
            func average(_ p: UInt8, _ q: UInt8) -> UInt8 { UInt8((Int(p) + Int(q) + 1) >> 1) }
            var quarter = [UInt8](repeating: 0, count: 256), bi = quarter
            for y in 0..<16 {
                for x in 0..<16 {
                    quarter[16 * y + x] = average(a[y * stride + x], b[y * stride + x])
                    bi[16 * y + x] = average(quarter[16 * y + x], held[16 * y + x])
                }
            }
            source.withUnsafeBufferPointer { s in
                a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBufferPointer { pb in
                        held.withUnsafeBufferPointer { ph in
                            guard let sp = s.baseAddress, let ap = pa.baseAddress, let bp = pb.baseAddress, let hp = ph.baseAddress else { return }
                            let q = MotionSearch.AveragedPrediction(a: ap, b: bp, stride: stride)
                            for (w, h) in [(16, 16), (16, 8), (8, 16)] {
                                let expected = Self.definition(source, stride, quarter, w: w, h: h)
                                for limit in [Int32(0), expected / 2, expected, expected + 1, Int32.max] {
                                    let got = MotionSearch.satd(sp, stride, q, w: w, h: h, stoppingAt: limit)
                                    if expected < limit { #expect(got == expected, "\(w)x\(h)") } else { #expect(got >= limit, "\(w)x\(h)") }
                                }
                            }
                            let expected = Self.definition(source, stride, bi, w: 16, h: 16)
                            let p = MotionSearch.BiPrediction(single: q, other: hp)
                            for limit in [Int32(0), expected / 2, expected, expected + 1, Int32.max] {
                                let got = MotionSearch.satd16(sp, stride, p, h: 16, stoppingAt: limit)
                                if expected < limit { #expect(got == expected) } else { #expect(got >= limit) }
                            }
                        }
                    }
                }
            }
        }
    }
}
