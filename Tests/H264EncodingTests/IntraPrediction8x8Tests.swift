@testable import H264Encoding
import Testing

/// Intra 8x8 prediction (8.3.2.2.2-8.3.2.2.10) against the equations sample by sample. Rules of comparison:
/// - the reference below is each mode's equation written per sample (x, y) over the filtered edge as
///   ``IntraPrediction/loadEdge8x8(at:stride:_:into:)`` lays it out (p′[x, −1] = e[9 + x], p′[−1, y] = e[7 − y]);
/// - ``IntraPrediction/predict8x8(mode:edge:_:dst:dstStride:)`` must write the same 64 samples for every mode
///   whose neighbours are available, on random edges and on edges of 0 and 255, and nothing outside the block.
@Suite("Intra 8x8 prediction against the per-sample equations")
struct IntraPrediction8x8Tests {
    static func referencePredict8x8(mode: Int, edge e: UnsafePointer<Int32>, _ n: IntraPrediction.Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func T(_ x: Int) -> Int32 { e[9 &+ x] }  // p′[x, -1], x ≥ -1
        @inline(__always) func L(_ y: Int) -> Int32 { e[7 &- y] }  // p′[-1, y], y ≥ -1
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: Int32) { dst[y &* dstStride &+ x] = UInt8(truncatingIfNeeded: v) }
        @inline(__always) func f3(_ a: Int32, _ b: Int32, _ c: Int32) -> Int32 { (a &+ 2 &* b &+ c &+ 2) >> 2 }
        @inline(__always) func f2(_ a: Int32, _ b: Int32) -> Int32 { (a &+ b &+ 1) >> 1 }
        if mode == 2 {
            var sum: Int32 = 0
            if n.top { for k in 0..<8 { sum += T(k) } }
            if n.left { for k in 0..<8 { sum += L(k) } }
            let dc = n.top && n.left ? (sum &+ 8) >> 4 : (n.top || n.left ? (sum &+ 4) >> 3 : 128)
            for y in 0..<8 { (dst + y &* dstStride).update(repeating: UInt8(truncatingIfNeeded: dc), count: 8) }
            return
        }
        // one loop per mode: the mode is decided once, not per sample
        @inline(__always) func fill(_ f: (Int, Int) -> Int32) {
            for y in 0..<8 { for x in 0..<8 { put(x, y, f(x, y)) } }
        }
        switch mode {
        case 0: fill { x, _ in T(x) }
        case 1: fill { _, y in L(y) }
        case 3: fill { x, y in x == 7 && y == 7 ? (T(14) &+ 3 &* T(15) &+ 2) >> 2 : f3(T(x &+ y), T(x &+ y &+ 1), T(x &+ y &+ 2)) }
        case 4:
            fill { x, y in
                if x > y { return f3(T(x &- y &- 2), T(x &- y &- 1), T(x &- y)) }
                if x < y { return f3(L(y &- x &- 2), L(y &- x &- 1), L(y &- x)) }
                return f3(T(0), T(-1), L(0))
            }
        case 5:
            fill { x, y in
                let z = 2 &* x &- y
                if z >= 0 && z & 1 == 0 { return f2(T(x &- (y >> 1) &- 1), T(x &- (y >> 1))) }
                if z >= 0 { return f3(T(x &- (y >> 1) &- 2), T(x &- (y >> 1) &- 1), T(x &- (y >> 1))) }
                if z == -1 { return f3(L(0), L(-1), T(0)) }
                return f3(L(y &- 2 &* x &- 1), L(y &- 2 &* x &- 2), L(y &- 2 &* x &- 3))
            }
        case 6:
            fill { x, y in
                let z = 2 &* y &- x
                if z >= 0 && z & 1 == 0 { return f2(L(y &- (x >> 1) &- 1), L(y &- (x >> 1))) }
                if z >= 0 { return f3(L(y &- (x >> 1) &- 2), L(y &- (x >> 1) &- 1), L(y &- (x >> 1))) }
                if z == -1 { return f3(L(0), L(-1), T(0)) }
                return f3(T(x &- 2 &* y &- 1), T(x &- 2 &* y &- 2), T(x &- 2 &* y &- 3))
            }
        case 7:
            fill { x, y in
                y & 1 == 0 ? f2(T(x &+ (y >> 1)), T(x &+ (y >> 1) &+ 1)) : f3(T(x &+ (y >> 1)), T(x &+ (y >> 1) &+ 1), T(x &+ (y >> 1) &+ 2))
            }
        default:  // 8
            fill { x, y in
                let z = x &+ 2 &* y
                if z > 13 { return L(7) }
                if z == 13 { return (L(6) &+ 3 &* L(7) &+ 2) >> 2 }
                if z & 1 == 0 { return f2(L(y &+ (x >> 1)), L(y &+ (x >> 1) &+ 1)) }
                return f3(L(y &+ (x >> 1)), L(y &+ (x >> 1) &+ 1), L(y &+ (x >> 1) &+ 2))
            }
        }
    }

    @Test("predict8x8 equals the equations for every mode and availability")
    func predictionMatches() {
        let pairs = intraPredictionPairs(size: 8, edgeCount: 25, seed: 0x9E37_79B9_7F4A_7C15,
                                         fast: { IntraPrediction.predict8x8(mode: $0, edge: $1, $2, dst: $3, dstStride: $4) },
                                         reference: { Self.referencePredict8x8(mode: $0, edge: $1, $2, dst: $3, dstStride: $4) })
        for pair in pairs { #expect(pair.fast == pair.reference, "\(pair.label)") }
        #expect(pairs.count > 2000)
    }
}
