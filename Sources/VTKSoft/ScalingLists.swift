import CLibVA

/// The scaling lists of a VAIQMatrixBufferH264 as arrays.
struct ScalingLists {
    let list4x4: [[UInt8]]
    let list8x8: [[UInt8]]

    init(_ m: VAIQMatrixBufferH264) {
        let flat4 = withUnsafeBytes(of: m.ScalingList4x4) { Array($0) }
        let flat8 = withUnsafeBytes(of: m.ScalingList8x8) { Array($0) }
        list4x4 = (0..<6).map { Array(flat4[$0 * 16..<($0 + 1) * 16]) }
        list8x8 = (0..<2).map { Array(flat8[$0 * 64..<($0 + 1) * 64]) }
    }

    func isFlat(transform8x8: Bool) -> Bool {
        list4x4.allSatisfy { $0.allSatisfy { $0 == 16 } } && (!transform8x8 || list8x8.allSatisfy { $0.allSatisfy { $0 == 16 } })
    }
}
