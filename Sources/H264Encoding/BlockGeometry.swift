/// Where the 4x4 blocks of a macroblock sit (6.4.3): luma4x4BlkIdx is in decoding order, two levels
/// of 2x2 raster; the engine's per-block state is kept in raster order (x4 + 4 * y4).
enum BlockGeometry {
    /// luma4x4BlkIdx → x in 4x4 blocks (0...3).
    @inline(__always) static func x4(_ blk: Int) -> Int { (blk & 1) | ((blk >> 1) & 2) }
    /// luma4x4BlkIdx → y in 4x4 blocks (0...3).
    @inline(__always) static func y4(_ blk: Int) -> Int { ((blk >> 1) & 1) | ((blk >> 2) & 2) }
    /// luma4x4BlkIdx → raster index x4 + 4 * y4.
    @inline(__always) static func raster(_ blk: Int) -> Int { x4(blk) + 4 * y4(blk) }
    /// Raster index → luma4x4BlkIdx.
    static let blkIdxOfRaster: [Int] = (0..<16).map { r in (0..<16).first { raster($0) == r } ?? 0 }
    /// Zig-zag scan of a 4x4 frame block (8.5.6): scan position → raster index.
    static let zigzag4x4: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
}
