/// The 8x8 transform for inter macroblocks (High profile, 8.5.13): the choice between 4x4 and 8x8 by
/// SA8D against SATD of the residual (x264's rule without RD), quantisation with decimation, and the
/// reconstruction.
extension MacroblockEncoder {
    /// Whether transform_size_8x8_flag may be 1 for an inter macroblock of this kind (7.3.5): the PPS
    /// allows it, and B_Direct_16x16 needs direct_8x8_inference_flag.
    func allowsTransform8x8(_ kind: MacroblockSyntax.Kind) -> Bool {
        ctx.transform8x8Mode && (kind != .bDirect16x16 || ctx.direct8x8Inference)
    }

    /// Codes the luma residual of an inter macroblock against predY with the transform size that suits
    /// it; sets `mb.transformSize8x8Flag` when the 8x8 transform is used with coefficients. Returns
    /// CodedBlockPatternLuma and the non-zero mask (per 4x4 block; every block of a coded 8x8 block).
    /// `probedCBP`: the 4x4 quantisation of this same prediction already in the scratch.
    mutating func codeLumaInterChoosingTransform(_ mb: inout MacroblockSyntax, probedCBP: Int?) -> (cbp: Int, nonZero: UInt16) {
        if allowsTransform8x8(mb.kind) {
            let srcY = ctx.sourceY.at(16 * mbx, 16 * mby), ss = ctx.sourceY.stride
            let satd = MotionSearch.satd16x16(srcY, ss, s.predY, 16)
            if MotionSearch.sa8d16x16(srcY, ss, s.predY, 16) < satd {
                let cbp = quantizeLuma8x8(deadZone: Self.interDeadZone, decimate: true)
                mb.transformSize8x8Flag = cbp != 0
                return (cbp, reconstructLuma8x8(&mb, cbp: cbp))
            }
        }
        let cbp = probedCBP ?? quantizeLumaInter()
        return (cbp, reconstructLumaInter(&mb, cbp: cbp))
    }

    /// Transforms and quantises the four 8x8 blocks against predY into levels8 (counts in counts[24...27]);
    /// with `decimate`, drops blocks worth little as ``quantizeLumaInter()`` does. Returns CodedBlockPatternLuma.
    mutating func quantizeLuma8x8(deadZone: Int32, decimate: Bool) -> Int {
        let srcY = ctx.sourceY.at(16 * mbx, 16 * mby), ss = ctx.sourceY.stride
        var scores = SIMD4<Int32>.zero
        for b8 in 0..<4 {
            let x = 8 * (b8 & 1), y = 8 * (b8 >> 1)
            let coef = s.coef8 + 64 * b8, levels = s.levels8 + 64 * b8
            Transform8x8.forward(src: srcY + y * ss + x, srcStride: ss, pred: s.predY + 16 * y + x, predStride: 16, coef: coef)
            let count = Transform8x8.quantize(coef, levels: levels, qp: qp, deadZone: deadZone)
            s.counts[24 + b8] = Int32(count)
            if count > 0 { scores[b8] = decimate ? Self.decimateScore8x8(levels) : 9 }
        }
        var cbp = 0
        let total = scores.wrappedSum()
        for b8 in 0..<4 where scores[b8] > 0 && (!decimate || (total >= 6 && scores[b8] >= 4)) { cbp |= 1 << b8 }
        return cbp
    }

    /// The levels of the 8x8 blocks in `cbp` into `mb.luma` (64 per block, 8x8 scan order) and the
    /// reconstruction from predY; returns the non-zero mask.
    mutating func reconstructLuma8x8(_ mb: inout MacroblockSyntax, cbp: Int) -> UInt16 {
        var nonZero: UInt16 = 0
        let recY = ctx.reconY.at(16 * mbx, 16 * mby), rs = ctx.reconY.stride
        for b8 in 0..<4 {
            let x = 8 * (b8 & 1), y = 8 * (b8 >> 1)
            let levels = s.levels8 + 64 * b8
            let count = cbp & (1 << b8) != 0 ? Int(s.counts[24 + b8]) : 0
            if count > 0 {
                nonZero |= UInt16(0x33) << UInt16(2 * (b8 & 1) + 8 * (b8 >> 1))
                Self.scan8x8(levels, into: &mb.luma, at: 64 * b8)
            }
            Transform8x8.reconstruct(levels: levels, count: count, qp: qp, d: s.coef8 + 64 * b8, pred: s.predY + 16 * y + x, predStride: 16,
                                     dst: recY + y * rs + x, dstStride: rs)
        }
        return nonZero
    }

    /// Levels (raster) into `dst[offset..<offset + 64]` in 8x8 zig-zag order (8.5.7).
    static func scan8x8(_ levels: UnsafePointer<Int32>, into dst: inout [Int32], at offset: Int) {
        Transform8x8.zigzag.withUnsafeBufferPointer { zz in
            dst.withUnsafeMutableBufferPointer { d in
                guard let z = zz.baseAddress, let out = d.baseAddress, offset + 64 <= d.count else { return }
                for k in 0..<64 { out[offset + k] = levels[z[k]] }
            }
        }
    }

    /// x264's decimation score of an 8x8 block (``decimationScore(_:scan:weight:)``): the weight is 3 up to 3
    /// zeros, 2 up to 11, 1 up to 23, then 0.
    static func decimateScore8x8(_ levels: UnsafePointer<Int32>) -> Int32 {
        decimationScore(levels, scan: Transform8x8.zigzag) { run in run < 4 ? 3 : (run < 12 ? 2 : (run < 24 ? 1 : 0)) }
    }
}
