import CLibVA
import VTKMedia

/// Reading decoded pixels back from a surface.
public enum VASurfaceReader {
    /// The NV12 planes of a surface as mapped in memory: luma and interleaved chroma, with their pitches.
    public struct MappedNV12 {
        public let luma: UnsafeRawPointer
        public let lumaPitch: Int
        public let chroma: UnsafeRawPointer
        public let chromaPitch: Int
    }

    /// Waits for `surface`, maps its pixels as NV12 (vaDeriveImage, else vaCreateImage + vaGetImage) and
    /// calls `body` with them; they are unmapped when `body` returns.
    public static func withMappedNV12<T>(_ connection: VADisplayConnection, surface: VASurfaceID, surfaceWidth: Int, surfaceHeight: Int,
                                         _ body: (MappedNV12) throws -> T) throws -> T {
        try withMapped(connection, surface: surface, surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight, body)
    }

    /// The same for a two-plane image of another layout (P010: `fourcc` VA_FOURCC_P010).
    public static func withMapped<T>(_ connection: VADisplayConnection, surface: VASurfaceID, surfaceWidth: Int, surfaceHeight: Int,
                                     fourcc: UInt32 = UInt32(VA_FOURCC_NV12),
                                     _ body: (MappedNV12) throws -> T) throws -> T {
        // The body's own error comes out as it was thrown, after the image is unmapped and destroyed.
        try mapped(connection, surface: surface, surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight, fourcc: fourcc) { planes in
            Result { try body(planes) }
        }.get()
    }

    /// Waits for `surface`, maps it as `fourcc` and runs `body`: every failure is the VA call that failed.
    static func mapped<T>(_ connection: VADisplayConnection, surface: VASurfaceID, surfaceWidth: Int, surfaceHeight: Int,
                          fourcc: UInt32, _ body: (MappedNV12) -> T) throws(VAError) -> T {
        _ = try VASurfaceErrors.sync(connection, surface: surface)
        let image = try VASurfaceImage(connection, surface: surface, fourcc: fourcc, width: surfaceWidth, height: surfaceHeight, for: .reading)
        defer { image.destroy() }
        let planes = try image.map()
        defer { image.unmap() }
        return body(MappedNV12(luma: UnsafeRawPointer(planes.base + planes.offsets.0), lumaPitch: planes.pitches.0,
                               chroma: UnsafeRawPointer(planes.base + planes.offsets.1), chromaPitch: planes.pitches.1))
    }

    /// Waits for `surface` and copies the rectangle (x, y, width, height) out as NV12.
    public static func readNV12(_ connection: VADisplayConnection, surface: VASurfaceID, surfaceWidth: Int, surfaceHeight: Int,
                                crop: (x: Int, y: Int, width: Int, height: Int)) throws(VAError) -> PixelBuffer {
        try mapped(connection, surface: surface, surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight, fourcc: UInt32(VA_FOURCC_NV12)) { mapped in
            // Every byte is written below: no zero fill first.
            var out = PixelBuffer(uninitializedFormat: .nv12, width: crop.width, height: crop.height)
            // Luma rows, then interleaved chroma rows (crop offsets are even for 4:2:0, 7.4.2.1.1).
            copyRows(from: mapped.luma + crop.y * mapped.lumaPitch + crop.x, pitch: mapped.lumaPitch,
                     to: &out.planes[0].bytes, rowBytes: crop.width, rows: crop.height)
            copyRows(from: mapped.chroma + (crop.y / 2) * mapped.chromaPitch + crop.x, pitch: mapped.chromaPitch,
                     to: &out.planes[1].bytes, rowBytes: out.planes[1].rowLength, rows: out.chromaHeight)
            return out
        }
    }

    /// Copies `rows` rows of `rowBytes` from memory with `pitch` bytes per row into unpadded `destination`;
    /// one copy when the source rows are contiguous too.
    private static func copyRows(from source: UnsafeRawPointer, pitch: Int, to destination: inout [UInt8], rowBytes: Int, rows: Int) {
        destination.withUnsafeMutableBytes { dst in
            guard let target = dst.baseAddress else { return }
            if pitch == rowBytes {
                target.copyMemory(from: source, byteCount: rowBytes * rows)
            } else {
                for row in 0..<rows { (target + row * rowBytes).copyMemory(from: source + row * pitch, byteCount: rowBytes) }
            }
        }
    }
}
