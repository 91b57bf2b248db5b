@testable import H264Encoding
import Testing

/// The motion vector prediction of 16x8 and 8x16 partitions (8.4.1.3): the directional rules first, the median
/// otherwise; neighbours per 8x8 quadrant of the surrounding macroblocks.
@Suite("16x8 / 8x16 motion vector prediction")
struct PartitionPredictionTests {
    typealias N = MotionVectorPrediction.Neighbour

    /// Surroundings with distinct vectors: left quadrants 1 and 3, above quadrants 2 and 3, above-right 2, above-left 3.
    static func surroundings(refIdx: Int8 = 0) -> MotionVectorPrediction.Surroundings {
        var n = MotionVectorPrediction.Surroundings()
        n.leftTop = N(available: true, refIdx: refIdx, mv: SIMD2(1, 1))
        n.leftBottom = N(available: true, refIdx: refIdx, mv: SIMD2(2, 2))
        n.aboveLeft = N(available: true, refIdx: refIdx, mv: SIMD2(3, 3))
        n.aboveRight0 = N(available: true, refIdx: refIdx, mv: SIMD2(4, 4))
        n.aboveRight = N(available: true, refIdx: refIdx, mv: SIMD2(5, 5))
        n.cornerAboveLeft = N(available: true, refIdx: refIdx, mv: SIMD2(6, 6))
        return n
    }

    @Test("Directional rules: 16x8 upper from B, lower from A; 8x16 left from A, right from C")
    func directional() {
        let n = Self.surroundings()
        let first = N(available: true, refIdx: 0, mv: SIMD2(9, 9))
        #expect(n.predict(wide: true, part: 0, refIdx: 0, first: N()) == SIMD2(3, 3))    // B: above, quadrant 2
        #expect(n.predict(wide: true, part: 1, refIdx: 0, first: first) == SIMD2(2, 2))  // A: left, quadrant 3
        #expect(n.predict(wide: false, part: 0, refIdx: 0, first: N()) == SIMD2(1, 1))   // A: left, quadrant 1
        #expect(n.predict(wide: false, part: 1, refIdx: 0, first: first) == SIMD2(5, 5)) // C: above-right, quadrant 2
    }

    @Test("An unavailable C is D, in the directional rule too; one matching neighbour gives its vector; otherwise the median")
    func median() {
        var n = Self.surroundings(refIdx: 1)
        n.aboveRight = N()
        let first = N(available: true, refIdx: 0, mv: SIMD2(9, -9))
        // 8x16 right partition: C (above-right) unavailable, so D (above, quadrant 2) is C
        #expect(n.predict(wide: false, part: 1, refIdx: 1, first: first) == SIMD2(3, 3))
        // refIdx 0: only A (partition 0) matches
        #expect(n.predict(wide: false, part: 1, refIdx: 0, first: first) == SIMD2(9, -9))
        // 8x16 left partition whose A has another refIdx: the median of A, B (above quadrant 2), C (above quadrant 3)
        n.leftTop = N(available: true, refIdx: 0, mv: SIMD2(1, 7))
        #expect(n.predict(wide: false, part: 0, refIdx: 1, first: N()) == SIMD2(3, 4))
    }
}
