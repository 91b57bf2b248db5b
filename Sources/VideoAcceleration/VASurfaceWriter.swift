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
        precondition(buffer.format == .nv12)
        try writeNV12(connection, width: buffer.width, height: buffer.height, to: surface, surfaceWidth: surfaceWidth,
                      surfaceHeight: surfaceHeight, derive: derive) { luma, lumaPitch, chroma, chromaPitch in
            copyRows(buffer.planes[0], rows: buffer.height, rowBytes: buffer.width, to: luma, pitch: lumaPitch)
            copyRows(buffer.planes[1], rows: buffer.chromaHeight, rowBytes: 2 * buffer.chromaWidth, to: chroma, pitch: chromaPitch)
        }
    }

    /// Writes a `width` x `height` NV12 picture that `fill` puts into the mapped planes (luma, its pitch, the
    /// interleaved chroma, its pitch) as ``writeNV12(_:_:to:surfaceWidth:surfaceHeight:derive:)`` does: a
    /// conversion from another layout writes straight into the surface, with no NV12 copy in between.
    public static func writeNV12(_ connection: VADisplayConnection, width: Int, height: Int, to surface: VASurfaceID,
                                 surfaceWidth: Int, surfaceHeight: Int, derive: Bool = true,
                                 fill: (UnsafeMutableRawPointer, Int, UnsafeMutableRawPointer, Int) -> Void) throws(VAError) {
        precondition(width <= surfaceWidth && height <= surfaceHeight)
        let image = try VASurfaceImage(connection, surface: surface, fourcc: UInt32(VA_FOURCC_NV12), width: surfaceWidth, height: surfaceHeight,
                                       for: .writing, derive: derive)
        defer { image.destroy() }
        let planes = try image.map()
        let imageWidth = min(Int(image.image.width), surfaceWidth), imageHeight = min(Int(image.image.height), surfaceHeight)
        let luma = planes.base + planes.offsets.0, chroma = planes.base + planes.offsets.1
        fill(luma, planes.pitches.0, chroma, planes.pitches.1)
        padEdges(luma, pitch: planes.pitches.0, rows: height, width: width, paddedWidth: imageWidth, paddedRows: imageHeight, bytesPerSample: 1)
        padEdges(chroma, pitch: planes.pitches.1, rows: (height + 1) / 2, width: (width + 1) / 2,
                 paddedWidth: (imageWidth + 1) / 2, paddedRows: (imageHeight + 1) / 2, bytesPerSample: 2)
        image.unmap()
        if !image.isDerived { try image.put(into: surface, width: imageWidth, height: imageHeight) }
    }

    /// Writes `buffer` as ``writeNV12(_:_:to:surfaceWidth:surfaceHeight:derive:)`` does, NV12 or P010 (into a
    /// P010 surface: 16-bit samples, 10 bits in the high bits).
    public static func write(_ connection: VADisplayConnection, _ buffer: PixelBuffer, to surface: VASurfaceID,
                             surfaceWidth: Int, surfaceHeight: Int, derive: Bool = true) throws(VAError) {
        guard buffer.format == .p010 else {
            try writeNV12(connection, buffer, to: surface, surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight, derive: derive)
            return
        }
        precondition(buffer.width <= surfaceWidth && buffer.height <= surfaceHeight)
        let image = try VASurfaceImage(connection, surface: surface, fourcc: UInt32(VA_FOURCC_P010), width: surfaceWidth, height: surfaceHeight,
                                       for: .writing, derive: derive)
        defer { image.destroy() }
        let planes = try image.map()
        let imageWidth = min(Int(image.image.width), surfaceWidth), imageHeight = min(Int(image.image.height), surfaceHeight)
        copyPlane(buffer.planes[0], rows: buffer.height, width: buffer.width, to: planes.base + planes.offsets.0, pitch: planes.pitches.0,
                  paddedWidth: imageWidth, paddedRows: imageHeight, bytesPerSample: 2)
        copyPlane(buffer.planes[1], rows: buffer.chromaHeight, width: buffer.chromaWidth, to: planes.base + planes.offsets.1, pitch: planes.pitches.1,
                  paddedWidth: (imageWidth + 1) / 2, paddedRows: (imageHeight + 1) / 2, bytesPerSample: 4)
        image.unmap()
        if !image.isDerived { try image.put(into: surface, width: imageWidth, height: imageHeight) }
    }

    /// Copies `rows` rows of `width` samples, then repeats the last sample of each row out to `paddedWidth`
    /// and the last row down to `paddedRows`. A sample is 1 byte (luma) or 2 (interleaved UV).
    private static func copyPlane(_ plane: PixelBuffer.Plane, rows: Int, width: Int, to destination: UnsafeMutableRawPointer,
                                  pitch: Int, paddedWidth: Int, paddedRows: Int, bytesPerSample: Int) {
        copyRows(plane, rows: rows, rowBytes: width * bytesPerSample, to: destination, pitch: pitch)
        padEdges(destination, pitch: pitch, rows: rows, width: width, paddedWidth: paddedWidth, paddedRows: paddedRows, bytesPerSample: bytesPerSample)
    }

    /// Copies the first `rowBytes` of `rows` rows of `plane` to rows `pitch` bytes apart.
    private static func copyRows(_ plane: PixelBuffer.Plane, rows: Int, rowBytes: Int, to destination: UnsafeMutableRawPointer, pitch: Int) {
        plane.bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress else { return }
            for row in 0..<rows {
                (destination + row * pitch).copyMemory(from: from + row * plane.bytesPerRow, byteCount: rowBytes)
            }
        }
    }

    /// Repeats the last of the `width` samples of each of `rows` rows out to `paddedWidth`, then the last row
    /// down to `paddedRows`. A sample is 1 byte (luma), 2 (interleaved UV or 16-bit luma) or 4.
    private static func padEdges(_ destination: UnsafeMutableRawPointer, pitch: Int, rows: Int, width: Int,
                                 paddedWidth: Int, paddedRows: Int, bytesPerSample: Int) {
        let rowBytes = width * bytesPerSample, paddedBytes = paddedWidth * bytesPerSample
        if paddedBytes > rowBytes {
            for row in 0..<rows {
                let to = destination + row * pitch
                let last = to + rowBytes - bytesPerSample
                var x = rowBytes
                while x < paddedBytes {
                    (to + x).copyMemory(from: last, byteCount: bytesPerSample)
                    x += bytesPerSample
                }
            }
        }
        let lastRow = destination + (rows - 1) * pitch
        for row in rows..<max(rows, paddedRows) {
            (destination + row * pitch).copyMemory(from: lastRow, byteCount: paddedBytes)
        }
    }
}
