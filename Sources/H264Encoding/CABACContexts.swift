import CABACCoding

extension CABACEncoder {
    /// 9.3.1.1: every context from (m, n) of the slice's column (I slices, or cabac_init_idc 0...2 for P
    /// and B) and SliceQPY.
    /// Raw context bytes, for tests.
    var contextBytes: [UInt8] {
        get { (0..<CABACTables.contextCount).map { contexts[$0] } }
        set { for i in 0..<min(newValue.count, CABACTables.contextCount) { contexts[i] = newValue[i] } }
    }

    mutating func initialiseContexts(sliceQP: Int, isIntraSlice: Bool, cabacInitIdc: Int) {
        let column = isIntraSlice ? 0 : 1 + min(max(cabacInitIdc, 0), 2)
        let qp = min(max(sliceQP, 0), 51)
        let base = column * CABACTables.contextCount * 2
        for ctxIdx in 0..<CABACTables.contextCount {
            let m = Int(CABACTables.mn[base + 2 * ctxIdx])
            let n = Int(CABACTables.mn[base + 2 * ctxIdx + 1])
            let preCtxState = min(max(((m * qp) >> 4) + n, 1), 126)
            contexts[ctxIdx] = preCtxState <= 63 ? UInt8((63 - preCtxState) << 1) : UInt8((preCtxState - 64) << 1 | 1)
        }
    }
}

extension CABACEncoder {
    /// Appends cabac_zero_words (0x0000) after the slice's trailing bits until the bins fit the bytes
    /// (7.4.2.10, 9.3.4.6): BinCount <= 32/3 * NumBytes + RawMbBits * macroblocks / 32, 8-bit 4:2:0, with
    /// this slice's macroblocks standing for PicSizeInMbs. `otherBytes` counts the NAL header and slice
    /// header; emulation prevention makes each word three bytes (0x000003).
    mutating func appendCABACZeroWords(macroblocks: Int, otherBytes: Int) {
        let allowance = 3 * 3072 * macroblocks / 32
        let bytesNeeded = (3 * binCount - allowance + 31) / 32 - (bytes.count + otherBytes)
        guard bytesNeeded > 0 else { return }
        appendRaw(repeatElement(0, count: 2 * ((bytesNeeded + 2) / 3)))
    }
}
