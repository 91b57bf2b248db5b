@testable import H264Encoding
import Testing

/// Intra 4x4 prediction (8.3.1.2) against the equations sample by sample. Rules of comparison:
/// - the reference below is each mode's equation of 8.3.1.2.1-8.3.1.2.9 written per sample (x, y) with
///   p[x, −1] and p[−1, y] read from the edge as ``IntraPrediction/loadEdge4x4(at:stride:_:into:)`` lays it out;
/// - ``IntraPrediction/predict4x4(mode:edge:_:dst:dstStride:)`` must write the same 16 samples for every mode
///   whose neighbours are available (``IntraPrediction/isAvailable4x4(mode:_:)``), on random edges and on edges
///   of 0 and 255 (the ends of the sums), and nothing outside the 4x4 block.
@Suite("Intra 4x4 prediction against the per-sample equations")
struct IntraPrediction4x4Tests {
    static func referencePredict4x4(mode: Int, edge e: UnsafePointer<Int32>, _ n: IntraPrediction.Neighbours, dst: UnsafeMutablePointer<UInt8>, dstStride: Int) {
        @inline(__always) func T(_ x: Int) -> Int32 { e[5 &+ x] }  // p[x, -1], x ≥ -1
        @inline(__always) func L(_ y: Int) -> Int32 { e[3 &- y] }  // p[-1, y], y ≥ -1
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: Int32) { dst[y &* dstStride &+ x] = UInt8(truncatingIfNeeded: v) }
        switch mode {
        case 0: for y in 0..<4 { for x in 0..<4 { put(x, y, T(x)) } }
        case 1: for y in 0..<4 { for x in 0..<4 { put(x, y, L(y)) } }
        case 3:
            for y in 0..<4 {
                for x in 0..<4 {
                    put(x, y, x == 3 && y == 3 ? (T(6) &+ 3 &* T(7) &+ 2) >> 2 : (T(x &+ y) &+ 2 &* T(x &+ y &+ 1) &+ T(x &+ y &+ 2) &+ 2) >> 2)
                }
            }
        case 4:
            for y in 0..<4 {
                for x in 0..<4 {
                    if x > y { put(x, y, (T(x &- y &- 2) &+ 2 &* T(x &- y &- 1) &+ T(x &- y) &+ 2) >> 2) }
                    else if x < y { put(x, y, (L(y &- x &- 2) &+ 2 &* L(y &- x &- 1) &+ L(y &- x) &+ 2) >> 2) }
                    else { put(x, y, (T(0) &+ 2 &* T(-1) &+ L(0) &+ 2) >> 2) }
                }
            }
        case 5:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = 2 &* x &- y
                    if z >= 0 && z & 1 == 0 { put(x, y, (T(x &- (y >> 1) &- 1) &+ T(x &- (y >> 1)) &+ 1) >> 1) }
                    else if z >= 0 { put(x, y, (T(x &- (y >> 1) &- 2) &+ 2 &* T(x &- (y >> 1) &- 1) &+ T(x &- (y >> 1)) &+ 2) >> 2) }
                    else if z == -1 { put(x, y, (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2) }
                    else { put(x, y, (L(y &- 1) &+ 2 &* L(y &- 2) &+ L(y &- 3) &+ 2) >> 2) }
                }
            }
        case 6:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = 2 &* y &- x
                    if z >= 0 && z & 1 == 0 { put(x, y, (L(y &- (x >> 1) &- 1) &+ L(y &- (x >> 1)) &+ 1) >> 1) }
                    else if z >= 0 { put(x, y, (L(y &- (x >> 1) &- 2) &+ 2 &* L(y &- (x >> 1) &- 1) &+ L(y &- (x >> 1)) &+ 2) >> 2) }
                    else if z == -1 { put(x, y, (L(0) &+ 2 &* L(-1) &+ T(0) &+ 2) >> 2) }
                    else { put(x, y, (T(x &- 1) &+ 2 &* T(x &- 2) &+ T(x &- 3) &+ 2) >> 2) }
                }
            }
        case 7:
            for y in 0..<4 {
                for x in 0..<4 {
                    let i = x &+ (y >> 1)
                    put(x, y, y & 1 == 0 ? (T(i) &+ T(i &+ 1) &+ 1) >> 1 : (T(i) &+ 2 &* T(i &+ 1) &+ T(i &+ 2) &+ 2) >> 2)
                }
            }
        case 8:
            for y in 0..<4 {
                for x in 0..<4 {
                    let z = x &+ 2 &* y, i = y &+ (x >> 1)
                    if z > 5 { put(x, y, L(3)) }
                    else if z == 5 { put(x, y, (L(2) &+ 3 &* L(3) &+ 2) >> 2) }
                    else if z & 1 == 0 { put(x, y, (L(i) &+ L(i &+ 1) &+ 1) >> 1) }
                    else { put(x, y, (L(i) &+ 2 &* L(i &+ 1) &+ L(i &+ 2) &+ 2) >> 2) }
                }
            }
        default:
            var dc: Int32 = 128
            if n.top && n.left { dc = (T(0) &+ T(1) &+ T(2) &+ T(3) &+ L(0) &+ L(1) &+ L(2) &+ L(3) &+ 4) >> 3 }
            else if n.left { dc = (L(0) &+ L(1) &+ L(2) &+ L(3) &+ 2) >> 2 }
            else if n.top { dc = (T(0) &+ T(1) &+ T(2) &+ T(3) &+ 2) >> 2 }
            for y in 0..<4 { for x in 0..<4 { put(x, y, dc) } }
        }
    }

    @Test("predict4x4 equals the equations for every mode and availability")
    func predictionMatches() {
        let pairs = intraPredictionPairs(size: 4, edgeCount: 13, seed: 0x2545_F491_4F6C_DD1D,
                                         fast: { IntraPrediction.predict4x4(mode: $0, edge: $1, $2, dst: $3, dstStride: $4) },
                                         reference: { Self.referencePredict4x4(mode: $0, edge: $1, $2, dst: $3, dstStride: $4) })
        for pair in pairs { #expect(pair.fast == pair.reference, "\(pair.label)") }
        #expect(pairs.count > 2000)
    }
}
