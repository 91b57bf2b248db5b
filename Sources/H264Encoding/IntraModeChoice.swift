/// The Intra4x4 mode decision of a block: the mode of least SATD + λ·(1 bit for the predicted mode of 8.3.1.1, else 4),
/// the lowest-numbered on ties, among the modes the neighbours allow (``IntraPrediction/isAvailable4x4(mode:_:)``).
/// That is the choice of a scan of the modes in order keeping a strictly lower cost, made here on the nine costs at
/// once: each cost shifted left four bits with its mode below it, the least of these keys.
enum IntraModeChoice {
    /// The chosen mode and its cost, from `satds` lanes 0...8 (modes 0...8; the other lanes and the unavailable
    /// modes' are ignored). Every cost must be below 2^27 (an Intra4x4 SATD is at most 16 · 16 · 255 / 2).
    @inline(__always) static func cheapest(_ satds: SIMD16<Int32>, _ n: IntraPrediction.Neighbours, predMode: Int,
                                           lambda: Int32) -> (mode: Int, cost: Int32) {
        @inline(__always) func lane(_ b: Bool) -> Int32 { b ? -1 : 0 }
        let top = lane(n.top), left = lane(n.left), all = lane(n.top && n.left && n.topLeft)
        let available = SIMD16<Int32>(top, left, -1, top, all, all, all, top, left, 0, 0, 0, 0, 0, 0, 0)
        var bits = SIMD16<Int32>(repeating: lambda &* 4)
        bits[predMode] = lambda
        let modes = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let keys = ((((satds &+ bits) &<< 4) | modes) & available) | (SIMD16(repeating: .max) & ~available)
        // the least key, halves compared lane-wise down to two lanes (concrete types: the generic forms are not always inlined)
        let k8 = keys.lowHalf.replacing(with: keys.highHalf, where: keys.highHalf .< keys.lowHalf)
        let k4 = k8.lowHalf.replacing(with: k8.highHalf, where: k8.highHalf .< k8.lowHalf)
        let k2 = k4.lowHalf.replacing(with: k4.highHalf, where: k4.highHalf .< k4.lowHalf)
        let key = k2[1] < k2[0] ? k2[1] : k2[0]
        return (Int(key & 15), key >> 4)
    }
}
