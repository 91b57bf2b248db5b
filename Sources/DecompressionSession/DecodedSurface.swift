import CLibVA
import PixelConversion
import VideoAcceleration
import VTKMedia

/// A decoded picture kept in the VA surface it was decoded into, lent by the session's surface pool: the
/// pool does not hand the surface out again until this is gone (the last copy of its frame dropped), so
/// the picture stays as decoded. Presenters show it where it is (vaPutSurface, ``rectangle``); its pixels
/// are read back only when asked for (``pixels(as:)``).
public final class DecodedSurface: Sendable {
    public let connection: VADisplayConnection
    public let id: VASurfaceID
    /// The display (cropped) rectangle inside the coded surface.
    public let rectangle: PresentationRectangle
    /// The format ``pixels()`` gives: the session's output format.
    public let format: PixelFormat
    public let presentationTime: MediaTime
    public var width: Int { rectangle.width }
    public var height: Int { rectangle.height }
    private let picture: SurfacePicture
    private let pool: VASurfacePool

    init(picture: SurfacePicture, pool: VASurfacePool, format: PixelFormat, presentationTime: MediaTime) {
        self.picture = picture
        self.pool = pool
        self.format = format
        self.presentationTime = presentationTime
        connection = picture.connection
        id = picture.surface
        rectangle = PresentationRectangle(x: picture.crop.x, y: picture.crop.y, width: picture.crop.width, height: picture.crop.height)
        pool.retain(picture.surface)
    }

    deinit { pool.release(picture.surface) }

    /// The same surface, held once more, stamped with another presentation time (a player's timeline).
    public func retimed(_ time: MediaTime) -> DecodedSurface {
        DecodedSurface(picture: picture, pool: pool, format: format, presentationTime: time)
    }

    /// The pixels, cropped, read back now in the session's output format (as a pixel session reads them).
    public func pixels() throws -> PixelBuffer { try pixels(as: format) }

    /// The pixels, cropped, read back now in `format`.
    public func pixels(as format: PixelFormat) throws -> PixelBuffer {
        var pixels = try picture.read(as: format)
        pixels.presentationTime = presentationTime
        return pixels
    }

    /// Calls `body` with the cropped picture where it is, mapped (vaDeriveImage, else a copy through vaGetImage),
    /// with no copy of its own: for output that reads each row once (a raw NV12 file). Unmapped when `body`
    /// returns. nil, without calling `body`, for a 10-bit (P010) surface.
    public func withMappedNV12<T>(_ body: (MappedNV12Picture) throws -> T) throws -> T? {
        try picture.withMappedNV12(body)
    }
}

/// An 8-bit NV12 picture, cropped, in mapped surface memory: valid only inside the call that lends it.
public struct MappedNV12Picture {
    /// The first visible luma sample, and the bytes from one luma row to the next.
    public let luma: UnsafeRawPointer
    public let lumaPitch: Int
    /// The first visible CbCr pair, and the bytes from one chroma row to the next.
    public let chroma: UnsafeRawPointer
    public let chromaPitch: Int
    public let width: Int
    public let height: Int
    /// Chroma rows: half the luma rows, rounded up (4:2:0).
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Bytes of one chroma row: a CbCr pair per two luma columns, rounded up.
    public var chromaRowBytes: Int { 2 * ((width + 1) / 2) }
}

/// Where a decoded picture is (a surface of a display, its coded size and crop) and how its codec reads it
/// back: the one readback of both codecs, eager (a pixel session) or on demand (a ``DecodedSurface``).
struct SurfacePicture: Sendable {
    let connection: VADisplayConnection
    let surface: VASurfaceID
    let codedWidth: Int
    let codedHeight: Int
    let crop: (x: Int, y: Int, width: Int, height: Int)
    /// A P010 surface (H.265 Main 10).
    let tenBit: Bool
    /// H.265's readback gives every format asked for; H.264's gives NV12, else I420.
    let convertsToAnyFormat: Bool

    /// The picture, cropped: 8-bit NV12 copied out as it is, anything else as I420 (converted while it is
    /// copied out, one pass over the pixels) and then, where the codec's reader does, converted to `format`;
    /// 10-bit P010 copied out, then converted to `format`.
    func read(as format: PixelFormat) throws -> PixelBuffer {
        guard tenBit else {
            let pixels = try readEightBit(format)
            return !convertsToAnyFormat || format == .nv12 ? pixels : PixelConverter.convert(pixels, to: format)
        }
        let crop = crop
        let p010 = try VASurfaceReader.withMapped(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight,
                                                  fourcc: UInt32(VA_FOURCC_P010)) { m in
            var out = PixelBuffer(uninitializedFormat: .p010, width: crop.width, height: crop.height)
            let rows = [crop.height, out.chromaHeight]
            let sources = [m.luma + crop.y * m.lumaPitch + 2 * crop.x, m.chroma + (crop.y / 2) * m.chromaPitch + 2 * crop.x]
            let pitches = [m.lumaPitch, m.chromaPitch]
            for p in 0..<2 {
                let length = out.planes[p].rowLength
                out.planes[p].bytes.withUnsafeMutableBytes { dst in
                    guard let to = dst.baseAddress else { return }
                    for row in 0..<rows[p] { (to + row * length).copyMemory(from: sources[p] + row * pitches[p], byteCount: length) }
                }
            }
            return out
        }
        return PixelConverter.convert(p010, to: format)
    }

    /// The cropped 8-bit picture, mapped, for `body` (nil for P010).
    func withMappedNV12<T>(_ body: (MappedNV12Picture) throws -> T) throws -> T? {
        guard !tenBit else { return nil }
        let crop = crop
        return try VASurfaceReader.withMappedNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight) { mapped in
            // Crop offsets are even for 4:2:0 (H.264 7.4.2.1.1, H.265 7.4.3.2.1).
            try body(MappedNV12Picture(luma: mapped.luma + crop.y * mapped.lumaPitch + crop.x, lumaPitch: mapped.lumaPitch,
                                       chroma: mapped.chroma + (crop.y / 2) * mapped.chromaPitch + crop.x, chromaPitch: mapped.chromaPitch,
                                       width: crop.width, height: crop.height))
        }
    }

    private func readEightBit(_ format: PixelFormat) throws -> PixelBuffer {
        if format == .nv12 {
            return try VASurfaceReader.readNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight, crop: crop)
        }
        let pixels = try withMappedNV12 { m in
            PixelConverter.i420(nv12Luma: m.luma, lumaPitch: m.lumaPitch, chroma: m.chroma, chromaPitch: m.chromaPitch, width: m.width, height: m.height)
        }
        guard let pixels else { throw DecompressionError.internalInconsistency("an 8-bit read of a 10-bit surface") }
        return pixels
    }
}
