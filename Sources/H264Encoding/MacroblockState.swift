/// What later macroblocks (prediction, CAVLC-independent decisions) and the deblocking filter need to
/// know of a coded macroblock. One per macroblock, preallocated per picture.
struct MacroblockState {
    enum Kind: UInt8 { case notCoded, intra, inter, skip }
    var kind: Kind = .notCoded
    /// Index of the slice in the request (availability, 6.4.x; deblocking control, 8.7).
    var slice: Int32 = -1
    var qp: Int8 = 0
    /// Bit r set: luma 4x4 block r (raster) has non-zero coefficients (8.7.2.1, bS 2).
    var nonZero: UInt16 = 0
    /// The motion per 8x8 quadrant q (raster; partitions are 16x16, 16x8 or 8x16, so each quadrant has one):
    /// mvL0 (x, y) and mvL1 (x, y) in quarter samples in lanes 4q...4q+3.
    var motion: SIMD16<Int16> = .zero
    /// refIdxL0 / refIdxL1 of quadrant q in lanes 2q, 2q+1; −1 when the list is not used (intra: all −1).
    var refIdx: SIMD8<Int8> = SIMD8(repeating: -1)
    /// The pictures those indices name (``ReferencePlanes/identity``), −1 when unused.
    var refPicture: SIMD8<Int32> = SIMD8(repeating: -1)
    /// Whether the quadrants may differ in motion (16x8 or 8x16 partitions): inner edges then need bS (8.7.2.1).
    var partitioned = false
    /// Intra4x4PredMode per 4x4 block (raster); 2 (DC) for every other macroblock type (8.3.1.1).
    var intra4x4Modes: SIMD16<UInt8> = SIMD16(repeating: 2)
    /// transform_size_8x8_flag: the luma edges inside each 8x8 block are not filtered (8.7).
    var transform8x8 = false

    var isIntra: Bool { kind == .intra }

    /// The quadrant (8x8 block, raster) of the 4x4 block `raster` (raster index 0...15).
    @inline(__always) static func quadrant(ofRaster raster: Int) -> Int { (raster >> 3) << 1 | (raster & 3) >> 1 }

    /// One lane of 32 bits read (lanes of a vector at a runtime index cost a store and a load each).
    @inline(__always) func mv(_ quadrant: Int, list: Int) -> SIMD2<Int16> {
        unsafeBitCast(unsafeBitCast(motion, to: SIMD8<UInt32>.self)[2 &* quadrant &+ list], to: SIMD2<Int16>.self)
    }
    @inline(__always) func ref(_ quadrant: Int, list: Int) -> Int8 { refIdx[2 * quadrant + list] }
    /// refIdxL0 and refIdxL1 of quadrant q, read as one lane of 16 bits.
    @inline(__always) func refs(_ quadrant: Int) -> SIMD2<Int8> {
        unsafeBitCast(unsafeBitCast(refIdx, to: SIMD4<UInt16>.self)[quadrant], to: SIMD2<Int8>.self)
    }
    @inline(__always) func picture(_ quadrant: Int, list: Int) -> Int32 { refPicture[2 * quadrant + list] }

    /// Quadrant q's vectors (mvL0, mvL1) and pictures (both lists) as two 64-bit values: equal for two
    /// quadrants exactly when both lists name the same pictures (−1 unused) with the same vectors.
    @inline(__always) func motionKey(_ quadrant: Int) -> SIMD2<UInt64> {
        SIMD2(unsafeBitCast(motion, to: SIMD4<UInt64>.self)[quadrant], unsafeBitCast(refPicture, to: SIMD4<UInt64>.self)[quadrant])
    }

    /// Sets one motion for the whole macroblock.
    mutating func setUniform(refIdx r: SIMD2<Int8>, mv: SIMD4<Int16>, pictures: SIMD2<Int32>) {
        refIdx = SIMD8(r[0], r[1], r[0], r[1], r[0], r[1], r[0], r[1])
        refPicture = SIMD8(pictures[0], pictures[1], pictures[0], pictures[1], pictures[0], pictures[1], pictures[0], pictures[1])
        motion = SIMD16(lowHalf: SIMD8(lowHalf: mv, highHalf: mv), highHalf: SIMD8(lowHalf: mv, highHalf: mv))
        partitioned = false
    }

    /// Sets the motion of one quadrant.
    mutating func setQuadrant(_ q: Int, refIdx r: SIMD2<Int8>, mv: SIMD4<Int16>, pictures: SIMD2<Int32>) {
        refIdx[2 * q] = r[0]; refIdx[2 * q + 1] = r[1]
        refPicture[2 * q] = pictures[0]; refPicture[2 * q + 1] = pictures[1]
        for k in 0..<4 { motion[4 * q + k] = mv[k] }
    }

    /// colZeroFlag per quadrant (bit q) of a B macroblock that has this one colocated (8.4.1.2.2), each
    /// quadrant having one motion: its list-0 motion if used, else its list-1 motion, has refIdx 0 and moves
    /// at most ±1. With direct_8x8_inference_flag or without it, the colocated 4x4 blocks of a quadrant lie in it.
    var colocatedZero: UInt8 {
        guard kind != .intra && kind != .notCoded else { return 0 }
        var mask: UInt8 = 0
        for q in 0..<4 {
            let list = ref(q, list: 0) >= 0 ? 0 : 1
            let m = mv(q, list: list)
            if ref(q, list: list) == 0 && abs(Int(m.x)) <= 1 && abs(Int(m.y)) <= 1 { mask |= 1 << UInt8(q) }
        }
        return mask
    }
}
