import H264Encoding
import VTKMedia

/// NV12 surfaces to and from the engine's padded 4:2:0 pictures.
extension EncoderPicture {
    /// The surface's `visibleWidth` x `visibleHeight` pixels, edges replicated to the coded size and into
    /// the padding (as a hardware encoder pads its input to whole macroblocks).
    init(nv12 surface: Surface, visibleWidth: Int, visibleHeight: Int, widthInMbs: Int, heightInMbs: Int) {
        // Planes filled apart, then made the picture (its planes are observed: one access to two would overlap).
        let padding = EncoderPicture.defaultPadding
        // Not zero-filled: the visible rows are copied, then replicateEdges(visibleWidth:visibleHeight:) fills the rest.
        var luma = PaddedPlane(uninitializedWidth: 16 * widthInMbs, height: 16 * heightInMbs, padding: padding)
        var cb = PaddedPlane(uninitializedWidth: 8 * widthInMbs, height: 8 * heightInMbs, padding: padding / 2)
        var cr = PaddedPlane(uninitializedWidth: 8 * widthInMbs, height: 8 * heightInMbs, padding: padding / 2)
        let w = max(1, min(visibleWidth, surface.width, luma.width)), h = max(1, min(visibleHeight, surface.allocatedHeight, luma.height))
        let pitch = surface.pitch, src = surface.luma, chroma = surface.chroma
        let lumaOrigin = luma.index(0, 0), lumaStride = luma.stride
        let chromaOrigin = cb.index(0, 0), chromaStride = cb.stride
        luma.samples.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            for y in 0..<h { (base + lumaOrigin + y * lumaStride).update(from: src + y * pitch, count: w) }
        }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        cb.samples.withUnsafeMutableBufferPointer { u in
            cr.samples.withUnsafeMutableBufferPointer { v in
                guard let uBase = u.baseAddress, let vBase = v.baseAddress else { return }
                for y in 0..<ch {
                    let row = chromaOrigin + y * chromaStride
                    NV12Chroma.split(chroma + y * pitch, cb: uBase + row, cr: vBase + row, count: cw)
                }
            }
        }
        luma.replicateEdges(visibleWidth: w, visibleHeight: h)
        cb.replicateEdges(visibleWidth: cw, visibleHeight: ch)
        cr.replicateEdges(visibleWidth: cw, visibleHeight: ch)
        self.init(luma: luma, cb: cb, cr: cr)
    }

    /// Writes the picture into an NV12 surface, as much of it as the surface holds.
    func write(to surface: Surface) {
        surface.releaseFromDecoder()
        let w = min(luma.width, surface.pitch), h = min(luma.height, surface.allocatedHeight)
        let pitch = surface.pitch, dst = surface.luma, chroma = surface.chroma
        luma.samples.withUnsafeBufferPointer { y0 in
            guard let base = y0.baseAddress else { return }
            for y in 0..<h { (dst + y * pitch).update(from: base + luma.index(0, y), count: w) }
        }
        cb.samples.withUnsafeBufferPointer { u in
            cr.samples.withUnsafeBufferPointer { v in
                guard let uBase = u.baseAddress, let vBase = v.baseAddress else { return }
                for y in 0..<h / 2 {
                    let row = cb.index(0, y)
                    NV12Chroma.interleave(cb: uBase + row, cr: vBase + row, into: chroma + y * pitch, count: w / 2)
                }
            }
        }
    }

    /// MD5 of the cropped picture as planar I420 bytes (Y, then Cb, then Cr: what a decoder outputs),
    /// hashed row by row from the planes.
    func i420MD5(crop: (x: Int, y: Int, width: Int, height: Int)) -> String {
        var md5 = MD5()
        func hash(_ plane: PaddedPlane, x: Int, rows: Range<Int>, width: Int) {
            plane.samples.withUnsafeBytes { bytes in
                for y in rows {
                    let row = plane.index(x, y)
                    md5.update(UnsafeRawBufferPointer(rebasing: bytes[row..<(row + width)]))
                }
            }
        }
        hash(luma, x: crop.x, rows: crop.y..<(crop.y + crop.height), width: crop.width)
        let chromaRows = (crop.y / 2)..<((crop.y + crop.height + 1) / 2)
        hash(cb, x: crop.x / 2, rows: chromaRows, width: (crop.width + 1) / 2)
        hash(cr, x: crop.x / 2, rows: chromaRows, width: (crop.width + 1) / 2)
        return md5.finalize()
    }
}

/// NV12's interleaved chroma rows to and from separate Cb and Cr rows, 8 pairs at a time.
enum NV12Chroma {
    /// Splits `count` CbCr pairs into `cb` and `cr`.
    static func split(_ pairs: UnsafePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, count: Int) {
        var x = 0
        while x + 8 <= count {
            let v = UnsafeRawPointer(pairs + 2 * x).loadUnaligned(as: SIMD8<UInt16>.self)  // little-endian: Cb low, Cr high
            UnsafeMutableRawPointer(cb + x).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(cr + x).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v &>> 8), as: SIMD8<UInt8>.self)
            x += 8
        }
        while x < count { cb[x] = pairs[2 * x]; cr[x] = pairs[2 * x + 1]; x += 1 }
    }

    /// Interleaves `count` samples of `cb` and `cr` into CbCr pairs.
    static func interleave(cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, into pairs: UnsafeMutablePointer<UInt8>, count: Int) {
        var x = 0
        while x + 8 <= count {
            let u = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(cb + x).loadUnaligned(as: SIMD8<UInt8>.self))
            let v = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(cr + x).loadUnaligned(as: SIMD8<UInt8>.self))
            UnsafeMutableRawPointer(pairs + 2 * x).storeBytes(of: u | (v &<< 8), as: SIMD8<UInt16>.self)
            x += 8
        }
        while x < count { pairs[2 * x] = cb[x]; pairs[2 * x + 1] = cr[x]; x += 1 }
    }
}

extension PaddedPlane {
    /// Copies the last visible column and row outwards to the plane's (coded) size, then into the padding.
    mutating func replicateEdges(visibleWidth: Int, visibleHeight: Int) {
        let rowLength = stride, origin = index(0, 0), w = width, h = height
        samples.withUnsafeMutableBufferPointer { s in
            if visibleWidth < w {
                for y in 0..<visibleHeight {
                    let row = origin + y * rowLength
                    for x in visibleWidth..<w { s[row + x] = s[row + visibleWidth - 1] }
                }
            }
            let last = origin + (visibleHeight - 1) * rowLength
            for y in visibleHeight..<h { for x in 0..<w { s[origin + y * rowLength + x] = s[last + x] } }
        }
        replicateEdges()
    }
}
