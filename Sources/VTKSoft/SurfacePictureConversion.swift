import H264Encoding

/// NV12 surfaces to and from the engine's padded 4:2:0 pictures.
extension EncoderPicture {
    /// The surface's `visibleWidth` x `visibleHeight` pixels, edges replicated to the coded size and into
    /// the padding (as a hardware encoder pads its input to whole macroblocks).
    init(nv12 surface: Surface, visibleWidth: Int, visibleHeight: Int, widthInMbs: Int, heightInMbs: Int) {
        self.init(widthInMbs: widthInMbs, heightInMbs: heightInMbs)
        let w = max(1, min(visibleWidth, surface.width, luma.width)), h = max(1, min(visibleHeight, surface.allocatedHeight, luma.height))
        let pitch = surface.pitch, src = surface.luma, chroma = surface.chroma
        let lumaOrigin = luma.index(0, 0), lumaStride = luma.stride
        let chromaOrigin = cb.index(0, 0), chromaStride = cb.stride
        luma.samples.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let row = lumaOrigin + y * lumaStride
                for x in 0..<w { out[row + x] = src[y * pitch + x] }
            }
        }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        cb.samples.withUnsafeMutableBufferPointer { u in
            cr.samples.withUnsafeMutableBufferPointer { v in
                for y in 0..<ch {
                    let row = chromaOrigin + y * chromaStride
                    for x in 0..<cw {
                        u[row + x] = chroma[y * pitch + 2 * x]
                        v[row + x] = chroma[y * pitch + 2 * x + 1]
                    }
                }
            }
        }
        luma.replicateEdges(visibleWidth: w, visibleHeight: h)
        cb.replicateEdges(visibleWidth: cw, visibleHeight: ch)
        cr.replicateEdges(visibleWidth: cw, visibleHeight: ch)
    }

    /// Writes the picture into an NV12 surface, as much of it as the surface holds.
    func write(to surface: Surface) {
        let w = min(luma.width, surface.pitch), h = min(luma.height, surface.allocatedHeight)
        let pitch = surface.pitch, dst = surface.luma, chroma = surface.chroma
        luma.samples.withUnsafeBufferPointer { y0 in
            for y in 0..<h {
                let row = luma.index(0, y)
                for x in 0..<w { dst[y * pitch + x] = y0[row + x] }
            }
        }
        cb.samples.withUnsafeBufferPointer { u in
            cr.samples.withUnsafeBufferPointer { v in
                for y in 0..<h / 2 {
                    let row = cb.index(0, y)
                    for x in 0..<w / 2 {
                        chroma[y * pitch + 2 * x] = u[row + x]
                        chroma[y * pitch + 2 * x + 1] = v[row + x]
                    }
                }
            }
        }
    }

    /// The cropped picture as planar I420 bytes (Y, then Cb, then Cr): what a decoder outputs.
    func i420(crop: (x: Int, y: Int, width: Int, height: Int)) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(crop.width * crop.height * 3 / 2)
        for y in crop.y..<(crop.y + crop.height) {
            let row = luma.index(crop.x, y)
            out += luma.samples[row..<(row + crop.width)]
        }
        for plane in [cb, cr] {
            for y in (crop.y / 2)..<((crop.y + crop.height + 1) / 2) {
                let row = plane.index(crop.x / 2, y)
                out += plane.samples[row..<(row + (crop.width + 1) / 2)]
            }
        }
        return out
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
