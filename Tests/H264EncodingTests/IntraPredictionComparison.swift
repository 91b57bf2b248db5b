@testable import H264Encoding

/// One intra prediction (mode, edge as IntraPrediction lays it out, neighbours, destination, its stride).
typealias IntraPredictor = (Int, UnsafePointer<Int32>, IntraPrediction.Neighbours, UnsafeMutablePointer<UInt8>, Int) -> Void

/// Runs `fast` and `reference` on 600 edges of `edgeCount` samples (a third of them only 0s and 255s, the
/// ends of the sums; the rest random from `seed`), every neighbour availability and every mode available
/// with it, into `size` x `size` blocks inside a wider stride filled with 0xA5 (so that writes outside the
/// block differ too). Returns the pairs of blocks written, with what describes each.
func intraPredictionPairs(size: Int, edgeCount: Int, seed: UInt64, fast: IntraPredictor, reference: IntraPredictor)
    -> [(fast: [UInt8], reference: [UInt8], label: String)] {
    var state = seed
    func next() -> Int32 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Int32(truncatingIfNeeded: (state >> 40) & 255)
    }
    var pairs: [(fast: [UInt8], reference: [UInt8], label: String)] = []
    let stride = size + 3
    for trial in 0..<600 {
        var edge = [Int32](repeating: 0, count: edgeCount)
        for i in 0..<edgeCount { edge[i] = trial % 3 == 0 ? (next() & 1) * 255 : next() }
        let n = IntraPrediction.Neighbours(left: trial & 1 == 0, top: trial & 2 == 0, topRight: trial & 4 == 0, topLeft: trial & 8 == 0)
        for mode in 0..<9 where IntraPrediction.isAvailable4x4(mode: mode, n) {
            var a = [UInt8](repeating: 0xA5, count: size * stride), b = a
            edge.withUnsafeBufferPointer { e in
                a.withUnsafeMutableBufferPointer { f in
                    b.withUnsafeMutableBufferPointer { x in
                        guard let ep = e.baseAddress, let fp = f.baseAddress, let xp = x.baseAddress else { return }
                        fast(mode, ep, n, fp, stride)
                        reference(mode, ep, n, xp, stride)
                    }
                }
            }
            pairs.append((a, b, "mode \(mode), edge \(edge)"))
        }
    }
    return pairs
}
