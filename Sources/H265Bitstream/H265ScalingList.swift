import NALStream

/// scaling_list_data() (7.3.4) and the lists it gives (7.4.5), in up-right diagonal order as coded.
/// `lists[sizeId][matrixId]`: 16 coefficients for 4x4, 64 for the larger sizes (8x8 and upsampled);
/// `dc[sizeId - 2][matrixId]` for 16x16 and 32x32. 32x32 has matrixId 0 and 3 only (others copy them).
public struct H265ScalingList: Hashable, Sendable {
    public var lists: [[[Int]]]
    public var dc: [[Int]]

    /// The default lists (Table 7-5, 7-6): flat 16 for 4x4, the intra and inter matrices for the rest.
    public static let `default`: H265ScalingList = {
        var lists: [[[Int]]] = [Array(repeating: Array(repeating: 16, count: 16), count: 6)]
        for _ in 1...3 { lists.append((0..<6).map { $0 < 3 ? defaultIntra8x8 : defaultInter8x8 }) }
        return H265ScalingList(lists: lists, dc: Array(repeating: Array(repeating: 16, count: 6), count: 2))
    }()

    /// Table 7-6, intra (matrixId 0...2), up-right diagonal order.
    public static let defaultIntra8x8 = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18, 17, 18, 18, 17, 18, 21, 19, 20,
                                         21, 20, 19, 21, 24, 22, 22, 24, 24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
                                         29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115]
    /// Table 7-6, inter (matrixId 3...5).
    public static let defaultInter8x8 = [16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 20, 20, 20,
                                         20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
                                         28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91]

    init(lists: [[[Int]]], dc: [[Int]]) {
        self.lists = lists
        self.dc = dc
    }

    public init(_ r: inout SyntaxReader) throws(BitstreamError) {
        self = .default
        for sizeId in 0..<4 {
            var matrixId = 0
            while matrixId < 6 {
                let predMode = try r.flag("scaling_list_pred_mode_flag[\(sizeId)][\(matrixId)]")
                if !predMode {
                    let delta = try r.ue("scaling_list_pred_matrix_id_delta[\(sizeId)][\(matrixId)]", max: UInt32(sizeId == 3 ? matrixId / 3 : matrixId))
                    if delta != 0 {
                        let ref = matrixId - delta * (sizeId == 3 ? 3 : 1)
                        lists[sizeId][matrixId] = lists[sizeId][ref]
                        if sizeId > 1 { dc[sizeId - 2][matrixId] = dc[sizeId - 2][ref] }
                    } else {
                        lists[sizeId][matrixId] = Self.default.lists[sizeId][matrixId]
                        if sizeId > 1 { dc[sizeId - 2][matrixId] = 16 }
                    }
                } else {
                    var next = 8
                    let count = min(64, 1 << (4 + (sizeId << 1)))
                    if sizeId > 1 {
                        let coef = try r.se("scaling_list_dc_coef_minus8[\(sizeId - 2)][\(matrixId)]", in: -7...247)
                        next = coef + 8
                        dc[sizeId - 2][matrixId] = next
                    }
                    var list = [Int](repeating: 0, count: count)
                    for i in 0..<count {
                        let delta = try r.se("scaling_list_delta_coef", in: -128...127)
                        next = (next + delta + 256) % 256
                        list[i] = next
                    }
                    lists[sizeId][matrixId] = list
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
        // 4:2:0 never uses the 32x32 chroma matrices; they follow the 16x16 ones (7.3.4, ChromaArrayType 3 aside).
        for m in [1, 2, 4, 5] {
            lists[3][m] = lists[2][m]
            dc[1][m] = dc[0][m]
        }
    }

    /// Up-right diagonal scan (6.5.3) of a blockSize x blockSize block: scan position -> (x, y).
    public static func diagonalScan(_ blockSize: Int) -> [(x: Int, y: Int)] {
        var scan: [(Int, Int)] = []
        var x = 0, y = 0
        while scan.count < blockSize * blockSize {
            while y >= 0 {
                if x < blockSize && y < blockSize { scan.append((x, y)) }
                y -= 1
                x += 1
            }
            y = x
            x = 0
        }
        return scan
    }

    /// One list in raster order (row by row), as VA's VAIQMatrixBufferHEVC and FFmpeg keep them.
    public func raster(sizeId: Int, matrixId: Int) -> [Int] {
        let list = lists[sizeId][matrixId]
        let size = sizeId == 0 ? 4 : 8
        var out = [Int](repeating: 0, count: list.count)
        for (i, p) in Self.diagonalScan(size).enumerated() { out[p.y * size + p.x] = list[i] }
        return out
    }
}
