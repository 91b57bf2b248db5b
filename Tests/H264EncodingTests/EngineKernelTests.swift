@testable import H264Encoding
import Testing

/// The engine's SIMD kernels against their sample-by-sample definitions. Rules of comparison:
/// - SAD: Σ |a − b| over the block; the early-stopping form returns that sum whenever it is below the
///   limit, and something at or above the limit otherwise (all its callers keep only strictly lower costs);
/// - half-sample planes: every fractional position of 8.4.2.2.1 that the fast path serves equals the
///   clamped-coordinate computation (predictLumaClamped, the spec's formulas sample by sample), on content
///   chosen to drive the 6-tap intermediates b1 to both ends of their range (−2550 and 10710);
/// - forward transform: the 16 blocks of forward16x16 equal forward4x4 of each block's residual.
@Suite("Encoder engine kernels against their definitions")
struct EngineKernelTests {
    /// A deterministic generator (xorshift), so a failure replays.
    struct Samples {
        var state: UInt64
        mutating func next() -> UInt8 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }
    }

    @Test("16x16 SAD and its early-stopping form")
    func sad() {
        var random = Samples(state: 0x9E37_79B9_7F4A_7C15)
        for trial in 0..<200 {
            let stride = 40
            var a = [UInt8](repeating: 0, count: stride * 16), b = a
            for i in a.indices {
                switch trial % 4 {
                case 0: a[i] = 255; b[i] = 0  // the largest sum, 65280
                case 1: a[i] = random.next(); b[i] = a[i]
                default: a[i] = random.next(); b[i] = random.next()
                }
            }
            var expected: Int32 = 0
            for y in 0..<16 { for x in 0..<16 { expected += abs(Int32(a[y * stride + x]) - Int32(b[y * stride + x])) } }
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    guard let x = pa.baseAddress, let y = pb.baseAddress else { return }
                    #expect(MotionSearch.sad16x16(x, stride, y, stride) == expected)
                    for limit in [Int32(0), expected / 3, expected, expected + 1, Int32.max] {
                        let stopped = MotionSearch.sad16x16(x, stride, y, stride, stoppingAt: limit)
                        if expected < limit { #expect(stopped == expected) } else { #expect(stopped >= limit) }
                    }
                }
            }
        }
    }

    @Test("Half-sample planes and quarter-sample averages", arguments: ["random", "stripes", "checks"])
    func halfSamples(pattern: String) {
        let width = 48, height = 32, pad = EncoderPicture.defaultPadding
        let rowStride = width + 2 * pad, size = rowStride * (height + 2 * pad)
        var storage = [UInt8](repeating: 0, count: 4 * size)
        var scratch = [Int16](repeating: 0, count: size)
        var random = Samples(state: 0x2545_F491_4F6C_DD1D)
        // stripes and checks: 0/255 rows or cells a tap apart, the extremes of b1 and of the j taps
        func sample(_ x: Int, _ y: Int) -> UInt8 {
            switch pattern {
            case "stripes": return [0, 255, 255, 0, 0, 255][(y + x / 7) % 6]
            case "checks": return (x / 2 + y / 2) % 2 == 0 ? 255 : 0
            default: return random.next()
            }
        }
        storage.withUnsafeMutableBufferPointer { buffer in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                guard let base = buffer.baseAddress, let s = scratchBuffer.baseAddress else { return }
                func plane(_ k: Int) -> PlanePointer { PlanePointer(base: base + k * size + pad * rowStride + pad, stride: rowStride) }
                let r = ReferencePlanes(full: plane(0), halfH: plane(1), halfV: plane(2), halfHV: plane(3), cb: plane(0), cr: plane(0),
                                        width: width, height: height, padding: pad, identity: 0)
                for y in 0..<height { for x in 0..<width { r.full.at(x, y).pointee = sample(x, y) } }
                PaddedPlane.replicateEdges(r.full, width: width, height: height, padding: pad)
                InterPrediction.buildHalfPel(r, scratch: s)
                var fast = [UInt8](repeating: 0, count: 16 * 16), exact = fast
                var mismatches = 0
                for y in stride(from: -pad + 3, to: height + pad - 22, by: 5) {
                    for x in stride(from: -pad + 3, to: width + pad - 22, by: 3) {
                        for fy in 0..<4 {
                            for fx in 0..<4 {
                                fast.withUnsafeMutableBufferPointer { f in
                                    exact.withUnsafeMutableBufferPointer { e in
                                        guard let fp = f.baseAddress, let ep = e.baseAddress else { return }
                                        InterPrediction.predictLuma(r, x: x, y: y, fx: fx, fy: fy, w: 16, h: 16, dst: fp, dstStride: 16)
                                        InterPrediction.predictLumaClamped(r, x: x, y: y, fx: fx, fy: fy, w: 16, h: 16, dst: ep, dstStride: 16)
                                    }
                                }
                                if fast != exact { mismatches += 1 }
                            }
                        }
                    }
                }
                #expect(mismatches == 0, "\(mismatches) blocks differ from 8.4.2.2.1 (\(pattern))")
            }
        }
    }

    @Test("Forward transform of a macroblock's 16 blocks")
    func forward16x16() {
        var random = Samples(state: 0xD1B5_4A32_D192_ED03)
        for trial in 0..<50 {
            var src = [UInt8](repeating: 0, count: 24 * 16), pred = [UInt8](repeating: 0, count: 256)
            for i in src.indices { src[i] = trial == 0 ? 255 : random.next() }
            for i in pred.indices { pred[i] = trial == 0 ? 0 : random.next() }
            var coef = [Int32](repeating: 0, count: 256), block = [Int32](repeating: 0, count: 16)
            src.withUnsafeBufferPointer { s in
                pred.withUnsafeBufferPointer { p in
                    coef.withUnsafeMutableBufferPointer { c in
                        guard let sp = s.baseAddress, let pp = p.baseAddress, let cp = c.baseAddress else { return }
                        Transform.forward16x16(src: sp, srcStride: 24, pred: pp, predStride: 16, coef: cp)
                    }
                }
            }
            for by in 0..<4 {
                for bx in 0..<4 {
                    for r in 0..<4 {
                        for c in 0..<4 {
                            let s: Int = (4 * by + r) * 24 + 4 * bx + c, p: Int = (4 * by + r) * 16 + 4 * bx + c
                            block[4 * r + c] = Int32(src[s]) - Int32(pred[p])
                        }
                    }
                    block.withUnsafeMutableBufferPointer { b in if let bp = b.baseAddress { Transform.forward4x4(bp) } }
                    let k = 16 * (bx + 4 * by)
                    #expect(Array(coef[k..<(k + 16)]) == block, "block (\(bx), \(by))")
                }
            }
        }
    }
}
