@testable import H264Encoding
import Testing

/// The intra mode decision's SATD kernels against the general ones. Rules of comparison:
/// - ``SourceHadamard8x8``: summed over the four 8x8 quarters of a 16x16 block, the SA8D against a prediction
///   (``SourceHadamard8x8/sa8d(_:stride:)``) and against the vertical, horizontal and flat predictions written out
///   must equal the definition (``SA8DKernelTests/reference(_:_:stride:)``), on random blocks and on the extremes;
/// - ``IntraDirectionalSATD4x4``: each of the six directional modes' SATD must equal
///   ``MotionSearch/satd4x4(_:_:_:_:)`` of that mode's prediction, on random edges and sources.
@Suite("Intra mode decision SATD kernels against the general ones")
struct IntraSATDKernelTests {
    struct Random {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> UInt8 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }
    }

    @Test("SourceHadamard8x8 equals the SA8D definition")
    func sourceHadamard8x8() {
        var random = Random()
        let stride = 24
        for trial in 0..<40 {
            let (a, b) = SA8DKernelTests.blocks(trial % 4 == 0 ? .extremes : trial % 4 == 1 ? .reversedExtremes : .random,
                                                stride: stride) { random.next() }
            let t = SIMD8<Int32>((0..<8).map { _ in Int32(random.next()) }), l = SIMD8<Int32>((0..<8).map { _ in Int32(random.next()) })
            let dc = Int32(random.next())
            var vertical = b, horizontal = b, flat = b
            for y in 0..<16 {
                for x in 0..<16 {
                    vertical[y * stride + x] = UInt8(t[x & 7]); horizontal[y * stride + x] = UInt8(l[y & 7]); flat[y * stride + x] = UInt8(dc)
                }
            }
            let costs = a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb -> SIMD4<Int32> in
                    guard let x = pa.baseAddress, let y = pb.baseAddress else { return .zero }
                    var sum = SIMD4<Int32>.zero
                    for q in 0..<4 {
                        let offset = 8 * (q >> 1) * stride + 8 * (q & 1)
                        let h = SourceHadamard8x8(x + offset, stride: stride)
                        sum &+= SIMD4(h.sa8d(y + offset, stride: stride), h.sa8dVertical(t), h.sa8dHorizontal(l), h.sa8dFlat(dc))
                    }
                    return sum
                }
            }
            #expect(costs[0] == SA8DKernelTests.reference(a, b, stride: stride), "trial \(trial): prediction")
            #expect(costs[1] == SA8DKernelTests.reference(a, vertical, stride: stride), "trial \(trial): vertical")
            #expect(costs[2] == SA8DKernelTests.reference(a, horizontal, stride: stride), "trial \(trial): horizontal")
            #expect(costs[3] == SA8DKernelTests.reference(a, flat, stride: stride), "trial \(trial): flat")
        }
    }

    @Test("IntraDirectionalSATD4x4 equals satd4x4 of each directional prediction")
    func directional4x4() {
        var random = Random()
        let stride = 20
        var n = IntraPrediction.Neighbours()
        n.left = true; n.top = true; n.topRight = true; n.topLeft = true
        for trial in 0..<200 {
            var edge = [Int32](repeating: 0, count: 16), source = [UInt8](repeating: 0, count: 4 * stride)
            for i in 0..<13 { edge[i] = trial % 3 == 0 ? 255 * Int32(i & 1) : Int32(random.next()) }
            for i in source.indices { source[i] = trial % 3 == 0 ? 255 * UInt8((i + 1) & 1) : random.next() }
            var lines = [UInt8](repeating: 0, count: 32), predictions = [UInt8](repeating: 0, count: 128)
            let (satds, expected) = edge.withUnsafeBufferPointer { e in
                lines.withUnsafeMutableBufferPointer { li in
                    predictions.withUnsafeMutableBufferPointer { pr in
                        source.withUnsafeBufferPointer { src -> (SIMD16<Int16>, [Int32]) in
                            guard let e = e.baseAddress, let li = li.baseAddress, let pr = pr.baseAddress, let src = src.baseAddress else { return (.zero, []) }
                            IntraPrediction.filterEdge4x4(e, into: li)
                            IntraDirectionalSATD4x4.predict(edge: e, lines: li, n, into: pr)
                            let satds = IntraDirectionalSATD4x4.satds(src, stride: stride, predictions: pr)
                            return (satds, (3...8).map { MotionSearch.satd4x4(src, stride, pr + IntraDirectionalSATD4x4.offset(mode: $0), 16) })
                        }
                    }
                }
            }
            for mode in 3...8 {
                #expect(IntraDirectionalSATD4x4.satd(satds, mode: mode) == expected[mode - 3], "trial \(trial), mode \(mode)")
            }
        }
    }
}
