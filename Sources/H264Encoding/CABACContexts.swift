extension CABACEncoder {
    /// 9.3.1.1: every context from (m, n) of the slice's column (I slices, or cabac_init_idc 0...2 for P
    /// and B) and SliceQPY.
    /// Raw context bytes, for tests.
    var contextBytes: [UInt8] {
        get { (0..<contexts.count).map { contexts[$0] } }
        set { for i in 0..<min(newValue.count, contexts.count) { contexts[i] = newValue[i] } }
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
