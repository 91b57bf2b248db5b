import H265Encoding
import VTKMedia

/// NV12 and P010 surfaces to and from the H.265 engine's pictures (one UInt16 per sample; P010 keeps
/// its 10 bits in the high bits of each word).
extension H265EncoderPicture {
    /// The surface's `visibleWidth` x `visibleHeight` pixels at the coded `width` x `height`, edges
    /// replicated past the visible size (as hardware pads its input to whole coding blocks).
    init(surface: Surface, width: Int, height: Int, visibleWidth: Int, visibleHeight: Int) {
        let tenBit = surface.format == .p010
        let w = max(2, min(visibleWidth, surface.width, width)) & ~1, h = max(2, min(visibleHeight, surface.allocatedHeight, height)) & ~1
        let pitch = surface.pitch
        let cw = width / 2, ch = height / 2
        var luma = [UInt16](repeating: 0, count: width * height)
        var cb = [UInt16](repeating: 0, count: cw * ch), cr = cb
        let base = surface.memory.base
        func sample(_ offset: Int) -> UInt16 {
            tenBit ? (base + offset).loadUnaligned(as: UInt16.self) >> 6 : UInt16((base + offset).load(as: UInt8.self))
        }
        let bytes = tenBit ? 2 : 1
        for y in 0..<height {
            let sy = min(y, h - 1)
            for x in 0..<width { luma[y * width + x] = sample(sy * pitch + min(x, w - 1) * bytes) }
        }
        for y in 0..<ch {
            let sy = min(y, h / 2 - 1)
            for x in 0..<cw {
                let offset = surface.chromaOffset + sy * pitch + 2 * min(x, w / 2 - 1) * bytes
                cb[y * cw + x] = sample(offset)
                cr[y * cw + x] = sample(offset + bytes)
            }
        }
        self.init(width: width, height: height, bitDepth: tenBit ? 10 : 8, luma: luma, cb: cb, cr: cr)
    }

    /// Writes the picture into a surface, as much of it as the surface holds.
    func write(to surface: Surface) {
        surface.releaseFromDecoder()
        let tenBit = surface.format == .p010, bytes = tenBit ? 2 : 1
        let w = min(width, surface.pitch / bytes), h = min(height, surface.allocatedHeight)
        let pitch = surface.pitch, base = surface.memory.base
        func store(_ value: UInt16, _ offset: Int) {
            if tenBit { (base + offset).storeBytes(of: value << 6, as: UInt16.self) } else { (base + offset).storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self) }
        }
        for y in 0..<h { for x in 0..<w { store(luma[y * width + x], y * pitch + x * bytes) } }
        for y in 0..<h / 2 {
            for x in 0..<w / 2 {
                let offset = surface.chromaOffset + y * pitch + 2 * x * bytes
                store(cb[y * chromaWidth + x], offset)
                store(cr[y * chromaWidth + x], offset + bytes)
            }
        }
    }

    /// MD5 of the cropped picture as planar I420 bytes (yuv420p, or yuv420p10le above 8 bits): what a
    /// decoder outputs.
    func i420MD5(crop: (x: Int, y: Int, width: Int, height: Int)) -> String {
        var md5 = MD5()
        let wide = bitDepth > 8
        func hash(_ plane: [UInt16], stride: Int, x: Int, rows: Range<Int>, width: Int) {
            var row = [UInt8]()
            row.reserveCapacity(width * 2)
            for y in rows {
                row.removeAll(keepingCapacity: true)
                for s in plane[(y * stride + x)..<(y * stride + x + width)] {
                    row.append(UInt8(truncatingIfNeeded: s))
                    if wide { row.append(UInt8(truncatingIfNeeded: s >> 8)) }
                }
                row.withUnsafeBytes { md5.update($0) }
            }
        }
        hash(luma, stride: width, x: crop.x, rows: crop.y..<(crop.y + crop.height), width: crop.width)
        let chromaRows = (crop.y / 2)..<((crop.y + crop.height + 1) / 2)
        hash(cb, stride: chromaWidth, x: crop.x / 2, rows: chromaRows, width: (crop.width + 1) / 2)
        hash(cr, stride: chromaWidth, x: crop.x / 2, rows: chromaRows, width: (crop.width + 1) / 2)
        return md5.finalize()
    }
}
