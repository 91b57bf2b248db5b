/// Pixel layouts vtk moves frames in.
public enum PixelFormat: String, Hashable, Sendable, CaseIterable {
    /// Y plane, then one plane of interleaved U and V at half resolution (VA-API's native layout).
    case nv12
    /// Y, U, V planes; U and V at half resolution.
    case i420
    /// NV12's layout with 16-bit little-endian samples, 10 bits in the high bits (VA-API's 10-bit layout).
    case p010
    /// I420's layout with 16-bit little-endian samples, 10 bits in the low bits (FFmpeg's yuv420p10le).
    case yuv420p10

    public var planeCount: Int { self == .nv12 || self == .p010 ? 2 : 3 }
    /// Bytes of one sample: 1, or 2 for the 10-bit layouts.
    public var bytesPerSample: Int { self == .p010 || self == .yuv420p10 ? 2 : 1 }
    public var is10Bit: Bool { bytesPerSample == 2 }
}

/// One image in memory, like CVPixelBuffer: its format, size, planes with their strides, and the time it
/// belongs to. A value type: copies share storage until one is written.
public struct PixelBuffer: Hashable, Sendable {
    public struct Plane: Hashable, Sendable {
        public var bytes: [UInt8]
        public let bytesPerRow: Int
        /// Rows of this plane.
        public let rows: Int
        /// Bytes of a row that hold pixels (the rest of bytesPerRow is padding).
        public let rowLength: Int
    }

    public let format: PixelFormat
    public let width: Int
    public let height: Int
    public var planes: [Plane]
    public var presentationTime: MediaTime = .invalid
    public var duration: MediaTime = .invalid

    /// Chroma size for 4:2:0: rounded up, so odd sizes keep their last column and row.
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A zeroed buffer with rows of exactly the pixel width (no padding).
    public init(format: PixelFormat, width: Int, height: Int) {
        self.init(format: format, width: width, height: height) { count in [UInt8](repeating: 0, count: count) }
    }

    /// A buffer whose bytes are not initialised (rows of exactly the pixel width): for callers that
    /// write every byte straight away (readback, conversion), so that no zero fill is paid for.
    public init(uninitializedFormat format: PixelFormat, width: Int, height: Int) {
        self.init(format: format, width: width, height: height) { count in
            [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
    }

    private init(format: PixelFormat, width: Int, height: Int, storage: (Int) -> [UInt8]) {
        precondition(width > 0 && height > 0, "pixel buffer size must be positive")
        self.format = format
        self.width = width
        self.height = height
        let s = format.bytesPerSample
        let w = width * s, cw = (width + 1) / 2 * s, ch = (height + 1) / 2
        switch format {
        case .nv12, .p010:
            planes = [Plane(bytes: storage(w * height), bytesPerRow: w, rows: height, rowLength: w),
                      Plane(bytes: storage(2 * cw * ch), bytesPerRow: 2 * cw, rows: ch, rowLength: 2 * cw)]
        case .i420, .yuv420p10:
            planes = [Plane(bytes: storage(w * height), bytesPerRow: w, rows: height, rowLength: w),
                      Plane(bytes: storage(cw * ch), bytesPerRow: cw, rows: ch, rowLength: cw),
                      Plane(bytes: storage(cw * ch), bytesPerRow: cw, rows: ch, rowLength: cw)]
        }
    }

    /// True when the buffer has this format and size and rows without padding (what both initialisers
    /// make), so that its storage can be reused for another frame of that shape.
    public func hasPackedLayout(format: PixelFormat, width: Int, height: Int) -> Bool {
        guard self.format == format, self.width == width, self.height == height else { return false }
        return planes.allSatisfy { $0.bytesPerRow == $0.rowLength && $0.bytes.count == $0.rowLength * $0.rows }
    }

    /// Calls `body` with each plane's pixel bytes in order (rows without padding), the same bytes as
    /// ``packedBytes`` but without concatenating them into a new array.
    public func forEachPackedPlane(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for plane in planes {
            if plane.bytesPerRow == plane.rowLength {
                try plane.bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(plane.rowLength * plane.rows))) }
            } else {
                try plane.bytes.withUnsafeBytes { raw in
                    for row in 0..<plane.rows {
                        try body(UnsafeRawBufferPointer(rebasing: raw[(row * plane.bytesPerRow)..<(row * plane.bytesPerRow + plane.rowLength)]))
                    }
                }
            }
        }
    }

    /// Bytes of one frame of this format and size with no padding (the raw file frame size).
    public static func frameSize(format: PixelFormat, width: Int, height: Int) -> Int {
        (width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)) * format.bytesPerSample
    }

    /// The frame as contiguous planar bytes with no row padding, in its own format.
    public var packedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.frameSize(format: format, width: width, height: height))
        for plane in planes {
            if plane.bytesPerRow == plane.rowLength {
                out.append(contentsOf: plane.bytes.prefix(plane.rowLength * plane.rows))
            } else {
                for row in 0..<plane.rows {
                    out.append(contentsOf: plane.bytes[(row * plane.bytesPerRow)..<(row * plane.bytesPerRow + plane.rowLength)])
                }
            }
        }
        return out
    }

    /// A buffer holding `bytes` (a packed frame of this format and size).
    public init?(format: PixelFormat, width: Int, height: Int, packed bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.frameSize(format: format, width: width, height: height) else { return nil }
        self.init(format: format, width: width, height: height) { _ in [] }
        var offset = bytes.startIndex
        for i in planes.indices {
            let size = planes[i].rowLength * planes[i].rows
            planes[i].bytes = Array(bytes[offset..<(offset + size)])
            offset += size
        }
    }
}
