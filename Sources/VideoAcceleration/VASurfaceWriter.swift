import CLibVA
import VTKMedia

/// Putting NV12 pixels into a surface for an encoder: straight into the surface's own memory where the
/// driver can map it (vaDeriveImage), else through an image and vaPutImage. The rows and columns between
/// the picture and the surface (a size that is not a multiple of 16) repeat the picture's edge, which
/// costs the encoder the fewest bits in the macroblocks that cropping later hides.
public enum VASurfaceWriter {
    /// Writes `buffer` (NV12, at most the surface size) to the top left of `surface`. `derive: false`
    /// takes the vaCreateImage + vaPutImage path even where vaDeriveImage works (for tests).
    public static func writeNV12(_ connection: VADisplayConnection, _ buffer: PixelBuffer, to surface: VASurfaceID,
                                 surfaceWidth: Int, surfaceHeight: Int, derive: Bool = true) throws(VAError) {
        precondition(buffer.format == .nv12 && buffer.width <= surfaceWidth && buffer.height <= surfaceHeight)
        let display = connection.display
        var image = VAImage()
        var derived = derive && vaDeriveImage(display, surface, &image) == VA_STATUS_SUCCESS
        if derived && image.format.fourcc != UInt32(VA_FOURCC_NV12) {
            vaDestroyImage(display, image.image_id)
            derived = false
        }
        if !derived {
            image = try connection.createNV12Image(width: surfaceWidth, height: surfaceHeight)
        }
        defer { vaDestroyImage(display, image.image_id) }
        var mapped: UnsafeMutableRawPointer?
        try VAError.check(vaMapBuffer(display, image.buf, &mapped), "vaMapBuffer(image \(image.image_id))")
        guard let base = mapped else {
            vaUnmapBuffer(display, image.buf)
            throw VAError("vaMapBuffer(image)", VAStatus(VA_STATUS_ERROR_OPERATION_FAILED))
        }
        let pitches = withUnsafeBytes(of: image.pitches) { Array($0.bindMemory(to: UInt32.self).prefix(2)).map(Int.init) }
        let offsets = withUnsafeBytes(of: image.offsets) { Array($0.bindMemory(to: UInt32.self).prefix(2)).map(Int.init) }
        let imageWidth = min(Int(image.width), surfaceWidth), imageHeight = min(Int(image.height), surfaceHeight)
        copyPlane(buffer.planes[0], rows: buffer.height, width: buffer.width, to: base + offsets[0], pitch: pitches[0],
                  paddedWidth: imageWidth, paddedRows: imageHeight, bytesPerSample: 1)
        copyPlane(buffer.planes[1], rows: buffer.chromaHeight, width: buffer.chromaWidth, to: base + offsets[1], pitch: pitches[1],
                  paddedWidth: (imageWidth + 1) / 2, paddedRows: (imageHeight + 1) / 2, bytesPerSample: 2)
        vaUnmapBuffer(display, image.buf)
        if !derived {
            try VAError.check(vaPutImage(display, surface, image.image_id, 0, 0, UInt32(imageWidth), UInt32(imageHeight),
                                         0, 0, UInt32(imageWidth), UInt32(imageHeight)), "vaPutImage(surface \(surface))")
        }
    }

    /// Copies `rows` rows of `width` samples, then repeats the last sample of each row out to `paddedWidth`
    /// and the last row down to `paddedRows`. A sample is 1 byte (luma) or 2 (interleaved UV).
    private static func copyPlane(_ plane: PixelBuffer.Plane, rows: Int, width: Int, to destination: UnsafeMutableRawPointer,
                                  pitch: Int, paddedWidth: Int, paddedRows: Int, bytesPerSample: Int) {
        let rowBytes = width * bytesPerSample, paddedBytes = paddedWidth * bytesPerSample
        plane.bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress else { return }
            for row in 0..<rows {
                let to = destination + row * pitch
                to.copyMemory(from: from + row * plane.bytesPerRow, byteCount: rowBytes)
                if paddedBytes > rowBytes {
                    let last = to + rowBytes - bytesPerSample
                    var x = rowBytes
                    while x < paddedBytes {
                        (to + x).copyMemory(from: last, byteCount: bytesPerSample)
                        x += bytesPerSample
                    }
                }
            }
        }
        let lastRow = destination + (rows - 1) * pitch
        for row in rows..<max(rows, paddedRows) {
            (destination + row * pitch).copyMemory(from: lastRow, byteCount: paddedBytes)
        }
    }
}
