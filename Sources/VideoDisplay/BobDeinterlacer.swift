import DecompressionSession
import VTKMedia

/// Bob deinterlacing: an interlaced frame becomes two pictures, one per field, each shown for half the frame's
/// duration in the fields' temporal order. A field's lines are doubled: line i of the field fills lines 2i and
/// 2i+1 of the picture, in every plane (the chroma rows of a 4:2:0 field are its frame's chroma rows of the same
/// parity). This is FFmpeg's `field` filter followed by nearest-neighbour scaling to twice the height.
public enum BobDeinterlacer {
    /// The two field pictures of `frame`, first field first; a progressive frame (no field order) is returned as it is.
    public static func fields(of frame: DisplayFrame, order: FieldOrder?) -> [DisplayFrame] {
        guard let order else { return [frame] }
        // Exact: the second field starts half a frame duration after the first (1001/60000 s of 1001/30000).
        let half = frame.duration / 2
        let first = order == .topFieldFirst ? 0 : 1
        let picture = frame.pixelBuffer
        return [
            DisplayFrame(pixelBuffer: lineDoubled(picture, parity: first), presentationTime: frame.presentationTime, duration: half),
            DisplayFrame(pixelBuffer: lineDoubled(picture, parity: 1 - first), presentationTime: frame.presentationTime + half, duration: half),
        ]
    }

    /// The field of `parity` (0 top, 1 bottom) with its lines doubled.
    public static func lineDoubled(_ picture: PixelBuffer, parity: Int) -> PixelBuffer {
        var out = picture
        for p in out.planes.indices {
            let plane = picture.planes[p]
            var bytes = plane.bytes
            bytes.withUnsafeMutableBytes { target in
                plane.bytes.withUnsafeBytes { source in
                    for row in 0..<plane.rows {
                        // Row 2k and 2k+1 both show field row k (frame row 2k + parity; the last row of an odd
                        // plane has no partner of the other parity and shows itself).
                        var from = (row & ~1) + parity
                        if from >= plane.rows { from = row & ~1 }
                        guard from != row else { continue }
                        let length = plane.rowLength
                        target.baseAddress.map { dst in
                            source.baseAddress.map { src in
                                (dst + row * plane.bytesPerRow).copyMemory(from: src + from * plane.bytesPerRow, byteCount: length)
                            }
                        }
                    }
                }
            }
            out.planes[p].bytes = bytes
        }
        return out
    }
}
