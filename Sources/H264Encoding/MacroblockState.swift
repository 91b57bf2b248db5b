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
    /// mvL0 (x, y) and mvL1 (x, y) in quarter samples.
    var mv: SIMD4<Int16> = .zero
    /// refIdxL0 / refIdxL1, −1 when the list is not used (intra: both −1).
    var refIdx: SIMD2<Int8> = SIMD2(-1, -1)
    /// The pictures those indices name (``ReferencePlanes/identity``), −1 when unused.
    var refPicture: SIMD2<Int32> = SIMD2(-1, -1)
    /// Intra4x4PredMode per 4x4 block (raster); 2 (DC) for every other macroblock type (8.3.1.1).
    var intra4x4Modes: SIMD16<UInt8> = SIMD16(repeating: 2)
    /// transform_size_8x8_flag: the luma edges inside each 8x8 block are not filtered (8.7).
    var transform8x8 = false

    var isIntra: Bool { kind == .intra }

    /// colZeroFlag of a B macroblock that has this one colocated (8.4.1.2.2), the motion being one per
    /// macroblock: the list-0 motion if used, else the list-1 motion, has refIdx 0 and moves at most ±1.
    var colocatedZero: Bool {
        guard kind != .intra && kind != .notCoded else { return false }
        let list = refIdx[0] >= 0 ? 0 : 1
        return refIdx[list] == 0 && abs(Int(mv[2 * list])) <= 1 && abs(Int(mv[2 * list + 1])) <= 1
    }
}
