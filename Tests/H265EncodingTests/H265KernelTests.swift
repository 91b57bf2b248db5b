import Testing
@testable import H265Encoding

/// The vector kernels of the engine against their definitions written out one sample at a time. Rules:
/// samples are random at 8 and 10 bits and also at the extremes (0 and 2^bitDepth − 1 alternating, the
/// largest differences the 16- and 32-bit lanes must hold); the kernels must agree exactly, since the mode
/// decision (SAD, SATD) and the reconstruction (interpolation, quantisation) depend on every value.
@Suite struct H265KernelTests {
    typealias Generator = H265TransformTests.Generator

    /// A plane of `count` samples: random, or alternating 0 and the largest value (`extreme`).
    static func plane(_ count: Int, bitDepth: Int, extreme: Bool, phase: Int, _ random: inout Generator) -> [UInt16] {
        let maxValue = Int32((1 << bitDepth) - 1)
        return (0..<count).map { i in
            extreme ? ((i / 3 + phase) % 2 == 0 ? 0 : UInt16(maxValue)) : UInt16(random.next(0...maxValue))
        }
    }

    static let cases: [(bitDepth: Int, extreme: Bool)] = [(8, false), (10, false), (8, true), (10, true)]

    @Test(arguments: [8, 16, 32, 64])
    func sadAndBilinearSADEqualTheirDefinitions(n: Int) {
        var random = Generator(state: UInt64(n))
        let pitch = n + 24
        for (bitDepth, extreme) in Self.cases {
            let src = Self.plane(pitch * (n + 2), bitDepth: bitDepth, extreme: extreme, phase: 0, &random)
            let ref = Self.plane(pitch * (n + 2), bitDepth: bitDepth, extreme: extreme, phase: 1, &random)
            let ref1 = Self.plane(pitch * (n + 2), bitDepth: bitDepth, extreme: false, phase: 0, &random)
            var sad: Int32 = 0
            for j in 0..<n { for i in 0..<n { sad += abs(Int32(src[j * pitch + i]) - Int32(ref[j * pitch + 3 + i])) } }
            src.withUnsafeBufferPointer { s in
                ref.withUnsafeBufferPointer { r in
                    ref1.withUnsafeBufferPointer { r1 in
                        guard let s = s.baseAddress, let r = r.baseAddress, let r1 = r1.baseAddress else { return }
                        #expect(H265Distortion.sad(s, pitch, r + 3, pitch, w: n, h: n, bound: .max) == sad)
                        // A bound stops the sum early, at or above the bound.
                        #expect(H265Distortion.sad(s, pitch, r + 3, pitch, w: n, h: n, bound: sad / 2) >= sad / 2)
                        for (fx, fy) in [(0, 0), (1, 0), (2, 3), (3, 3)] {
                            func estimate(_ p: [UInt16], _ a: Int, _ fx: Int, _ fy: Int) -> Int32 {
                                let w00 = Int32((4 - fx) * (4 - fy)), w10 = Int32(fx * (4 - fy)), w01 = Int32((4 - fx) * fy), w11 = Int32(fx * fy)
                                return (w00 * Int32(p[a]) + w10 * Int32(p[a + 1]) + w01 * Int32(p[a + pitch]) + w11 * Int32(p[a + pitch + 1]) + 8) >> 4
                            }
                            var uni: Int32 = 0, bi: Int32 = 0
                            for j in 0..<n {
                                for i in 0..<n {
                                    let a = j * pitch + 1 + i, b = j * pitch + 5 + i
                                    uni += abs(Int32(src[j * pitch + i]) - estimate(ref, a, fx, fy))
                                    bi += abs(Int32(src[j * pitch + i]) - ((estimate(ref, a, fx, fy) + estimate(ref1, b, fy, fx) + 1) >> 1))
                                }
                            }
                            #expect(H265Distortion.bilinearSAD(s, pitch, r + 1, pitch, fx: fx, fy: fy, w: n, h: n, bound: .max) == uni)
                            #expect(H265Distortion.bilinearBiSAD(s, pitch, r + 1, fx0: fx, fy0: fy, r1 + 5, fx1: fy, fy1: fx, pitch, w: n, h: n) == bi)
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: [8, 16, 32, 64])
    func hadamardSumEqualsTheTransformOfEach4x4(n: Int) {
        var random = Generator(state: UInt64(100 + n))
        let pitch = n + 8
        for (bitDepth, extreme) in Self.cases {
            let src = Self.plane(pitch * n, bitDepth: bitDepth, extreme: extreme, phase: 0, &random)
            let maxValue = Int32((1 << bitDepth) - 1)
            let pred = (0..<(n * n)).map { i in extreme ? ((i / 3) % 2 == 0 ? maxValue : 0) : random.next(0...maxValue) }
            let h: [[Int32]] = [[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]]
            var total: Int32 = 0
            for by in stride(from: 0, to: n, by: 4) {
                for bx in stride(from: 0, to: n, by: 4) {
                    for u in 0..<4 {
                        for v in 0..<4 {
                            var s: Int32 = 0
                            for y in 0..<4 {
                                for x in 0..<4 {
                                    let d = Int32(src[(by + y) * pitch + bx + x]) - pred[(by + y) * n + bx + x]
                                    s += h[u][y] * h[v][x] * d
                                }
                            }
                            total += abs(s)
                        }
                    }
                }
            }
            src.withUnsafeBufferPointer { s in
                pred.withUnsafeBufferPointer { p in
                    guard let s = s.baseAddress, let p = p.baseAddress else { return }
                    #expect(H265Distortion.hadamardSum(s, pitch, p, w: n) == total)
                }
            }
        }
    }

    /// Blocks of a width that is a multiple of 8 take the vector path; the same block predicted in columns
    /// of 4 takes the sample-by-sample path. Both must give the same intermediate samples, inside the
    /// picture and across its edges.
    @Test func vectorInterpolationEqualsTheScalarPath() {
        var random = Generator(state: 7)
        let pw = 64, ph = 48
        for (bitDepth, extreme) in Self.cases {
            let plane = Self.plane(pw * ph, bitDepth: bitDepth, extreme: extreme, phase: 0, &random)
            for luma in [true, false] {
                let fractions = luma ? 4 : 8
                for (x, y) in [(20, 12), (-5, -3), (pw - 10, ph - 6)] {
                    for fx in 0..<fractions {
                        for fy in 0..<fractions where (fx + fy) % 3 == 0 || fx == 0 || fy == 0 {
                            let w = 16, h = 8
                            var vector = [Int32](repeating: 0, count: w * h)
                            H265MotionCompensation.predict(plane, pw: pw, ph: ph, x: x, y: y, fx: fx, fy: fy, w: w, h: h,
                                                           luma: luma, bitDepth: bitDepth, into: &vector)
                            var scalar = [Int32](repeating: 0, count: w * h)
                            for column in stride(from: 0, to: w, by: 4) {
                                var part = [Int32](repeating: 0, count: 4 * h)
                                H265MotionCompensation.predict(plane, pw: pw, ph: ph, x: x + column, y: y, fx: fx, fy: fy, w: 4, h: h,
                                                               luma: luma, bitDepth: bitDepth, into: &part)
                                for j in 0..<h { for i in 0..<4 { scalar[j * w + column + i] = part[j * 4 + i] } }
                            }
                            #expect(vector == scalar, "luma \(luma) at (\(x), \(y)) fraction (\(fx), \(fy)), \(bitDepth) bits")
                        }
                    }
                }
            }
        }
    }

    /// The forward transform of the largest alternating residuals (the bound its 32-bit lanes rely on), and
    /// the quantiser on the largest coefficients at the largest QP, against 64-bit arithmetic.
    @Test(arguments: [2, 3, 4, 5])
    func extremesStayWithinTheLanes(log2: Int) {
        let n = 1 << log2
        for bitDepth in [8, 10] {
            let maxResidual = Int32((1 << bitDepth) - 1)
            // Signs following the first basis rows give the largest outputs.
            for pattern in 0..<3 {
                let residual = (0..<(n * n)).map { i -> Int32 in
                    let x = i % n, y = i / n
                    switch pattern {
                    case 0: return maxResidual
                    case 1: return (x < n / 2) == (y < n / 2) ? maxResidual : -maxResidual
                    default: return (x + y) % 2 == 0 ? maxResidual : -maxResidual
                    }
                }
                let coefficients = H265Transform.forward(residual, log2: log2, bitDepth: bitDepth, dst: false)
                #expect(coefficients == H265TransformTests.referenceForward(residual, log2: log2, bitDepth: bitDepth, dst: false))
                for qp in [0, 27, 51 + 6 * (bitDepth - 8)] {
                    for intra in [true, false] {
                        let transformShift = 15 - bitDepth - log2
                        let qBits = Int64(14 + qp / 6 + transformShift)
                        let expected = coefficients.map { c -> Int32 in
                            let level = min((Int64(abs(c)) * Int64(H265Transform.quantScale[qp % 6]) + (Int64(intra ? 171 : 85) << (qBits - 9))) >> qBits, 32767)
                            return c < 0 ? -Int32(level) : Int32(level)
                        }
                        #expect(H265Transform.quantise(coefficients, log2: log2, qp: qp, bitDepth: bitDepth, intra: intra) == expected)
                    }
                }
            }
        }
    }
}
