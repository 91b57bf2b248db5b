import CLibYUV

/// Which rows of the frame a coded picture covers (7.4.3: field_pic_flag, bottom_field_flag): a frame
/// (MBAFF included) covers them all, a field every other row from its parity's first.
enum PictureStructure: Equatable {
    case frame, topField, bottomField

    init(fieldPicture: Bool, bottomField: Bool) {
        self = !fieldPicture ? .frame : bottomField ? .bottomField : .topField
    }

    var isField: Bool { self != .frame }

    /// The first row of the frame this picture covers (luma and chroma alike), and the step between rows.
    var firstRow: Int { self == .bottomField ? 1 : 0 }
    var rowStep: Int { isField ? 2 : 1 }

    /// The opposite parity's field, which pairs with this one (7.4.1.2.4); nil for a frame.
    var complement: PictureStructure? {
        switch self {
        case .frame: return nil
        case .topField: return .bottomField
        case .bottomField: return .topField
        }
    }

    /// Writes this picture's rows of `decoded` (planar 4:2:0, 8 bits, a whole frame) into an NV12 surface:
    /// a field writes only its own rows, as a hardware decoder writes a field into its frame's surface,
    /// so the other field's rows keep what the surface held. `width` × `height` is the frame's size.
    func writeNV12(_ decoded: DecodedPicture, into surface: Surface, width: Int, height: Int) {
        let step = Int32(rowStep), first = firstRow
        let y = decoded.planes.0 + first * Int(decoded.strides.0)
        let u = decoded.planes.1 + first * Int(decoded.strides.1)
        let v = decoded.planes.2 + first * Int(decoded.strides.2)
        I420ToNV12(y, decoded.strides.0 * step, u, decoded.strides.1 * step, v, decoded.strides.2 * step,
                   surface.luma + first * surface.pitch, Int32(surface.pitch) * step,
                   surface.chroma + first * surface.pitch, Int32(surface.pitch) * step,
                   Int32(width), Int32(height / rowStep))
    }

    /// ``writeNV12(_:into:width:height:)`` for a frame whose luma libavcodec decoded straight into the
    /// surface: only the chroma is interleaved.
    func writeNV12Chroma(_ decoded: DecodedPicture, into surface: Surface, width: Int, height: Int) {
        // I420ToNV12's chroma half, on the same rounded sizes. MergeUVPlane runs its vector loop on whole blocks
        // of 32 pairs and the rest of each row through a bounce buffer, which at CIF (176 pairs) costs more than
        // the row itself: when the picture spans the surface's width, rows are rounded up to whole blocks, into
        // the padding up to the surface's pitch, read from the padding of libavcodec's rows (64-byte aligned).
        var pairs = (width + 1) / 2
        let whole = (pairs + 31) & ~31
        if width >= surface.width, whole * 2 <= surface.pitch, whole <= Int(decoded.strides.1), whole <= Int(decoded.strides.2) {
            pairs = whole
        }
        let rows = (height + 1) / 2
        MergeUVPlane(decoded.planes.1, decoded.strides.1, decoded.planes.2, decoded.strides.2,
                     surface.chromaForOverwrite(rows: rows, rowBytes: 2 * pairs), Int32(surface.pitch), Int32(pairs), Int32(rows))
    }
}
