@testable import H264Encoding
import Testing

/// The deblocking filter's bS per edge against its definition pair by pair. Rules of comparison:
/// - `Deblocking.strength(p:pBlk:q:qBlk:macroblockEdge:)` follows 8.7.2.1 for one pair of 4x4 blocks, with the
///   blocks named by raster index as the standard names them; it is the oracle;
/// - `Deblocking.edgeStrength(p:q:vertical:edge:)` must give, in lane k, exactly that value for the k-th pair
///   along the edge, for every edge (both directions, macroblock edge and the three inside) and every
///   combination of intra/inter, coefficients, partitioning, references, pictures and vectors drawn.
@Suite("Deblocking bS per edge against the per-block definition")
struct DeblockingStrengthTests {
    struct Random {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int((state >> 33) % UInt64(n))
        }
    }

    /// A macroblock state as the engine leaves it: intra, or inter with one motion per quadrant (uniform or
    /// partitioned), list use, reference pictures and vectors chosen so that the comparisons of 8.7.2.1
    /// (number of vectors, pictures, a difference of 4 quarter samples) fall both ways.
    static func state(_ random: inout Random) -> MacroblockState {
        var s = MacroblockState()
        s.kind = random.next(4) == 0 ? .intra : (random.next(3) == 0 ? .skip : .inter)
        s.nonZero = random.next(3) == 0 ? 0 : UInt16(truncatingIfNeeded: random.next(1 << 16) & random.next(1 << 16))
        s.partitioned = random.next(2) == 0
        if s.kind == .intra { return s }
        func quadrantMotion(_ random: inout Random) -> (SIMD2<Int8>, SIMD4<Int16>, SIMD2<Int32>) {
            let use = random.next(3)  // 0: L0, 1: L1, 2: both
            let r = SIMD2<Int8>(use == 1 ? -1 : Int8(random.next(2)), use == 0 ? -1 : Int8(random.next(2)))
            let pictures = SIMD2<Int32>(r[0] < 0 ? -1 : Int32(random.next(3)), r[1] < 0 ? -1 : Int32(random.next(3)))
            let mv = SIMD4<Int16>(Int16(random.next(9) - 4), Int16(random.next(9) - 4), Int16(random.next(9) - 4), Int16(random.next(9) - 4))
            return (r, mv, pictures)
        }
        if s.partitioned {
            for q in 0..<4 {
                let (r, mv, pictures) = quadrantMotion(&random)
                s.setQuadrant(q, refIdx: r, mv: mv, pictures: pictures)
            }
        } else {
            let (r, mv, pictures) = quadrantMotion(&random)
            s.setUniform(refIdx: r, mv: mv, pictures: pictures)
        }
        return s
    }

    @Test("edgeStrength equals strength pair by pair")
    func edgeStrengthMatchesDefinition() {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        var compared = 0, nonZeroLanes = SIMD4<Int32>.zero
        for _ in 0..<4000 {
            let p = Self.state(&random), q = Self.state(&random)
            for vertical in [true, false] {
                for edge in 0..<4 {
                    let neighbour = edge == 0 ? p : q
                    let lanes = withUnsafePointer(to: neighbour) { p in
                        withUnsafePointer(to: q) { q in Deblocking.edgeStrength(p: p, q: q, vertical: vertical, edge: edge) }
                    }
                    for k in 0..<4 {
                        let qBlk = vertical ? 4 * k + edge : 4 * edge + k
                        let pBlk = edge > 0 ? (vertical ? qBlk - 1 : qBlk - 4) : (vertical ? 4 * k + 3 : 12 + k)
                        let expected = Deblocking.strength(p: neighbour, pBlk: pBlk, q: q, qBlk: qBlk, macroblockEdge: edge == 0)
                        #expect(lanes[k] == expected, "vertical \(vertical) edge \(edge) pair \(k)")
                        if expected > 0 { nonZeroLanes[Int(expected) - 1] += 1 }
                        compared += 1
                    }
                }
            }
        }
        // every strength 1...4 occurred, so no branch of the comparison went untested
        #expect(nonZeroLanes.min() > 100, "bS 1...4 counts \(nonZeroLanes)")
        #expect(compared == 4000 * 32)
    }
}
