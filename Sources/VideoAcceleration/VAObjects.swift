import CLibVA
import VTKMedia

/// A VA configuration (profile + entrypoint + attributes), destroyed with the object.
public final class VAConfiguration: @unchecked Sendable {
    public let id: VAConfigID
    public let profile: VAProfile
    public let entrypoint: VAEntrypoint
    let connection: VADisplayConnection

    public init(_ connection: VADisplayConnection, profile: VAProfile, entrypoint: VAEntrypoint,
                attributes: [VAConfigAttrib] = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420))]) throws(VAError) {
        var list = attributes
        var id = VAConfigID(VA_INVALID_ID)
        try VAError.check(vaCreateConfig(connection.display, profile, entrypoint, &list, Int32(list.count), &id),
                          "vaCreateConfig(\(String(cString: vaProfileStr(profile))), \(String(cString: vaEntrypointStr(entrypoint))))")
        self.id = id
        self.profile = profile
        self.entrypoint = entrypoint
        self.connection = connection
    }

    deinit { vaDestroyConfig(connection.display, id) }
}

/// VA surfaces of one size and format, created together and destroyed together.
public final class VASurfaceSet: @unchecked Sendable {
    public let ids: [VASurfaceID]
    public let width: Int
    public let height: Int
    let connection: VADisplayConnection

    public init(_ connection: VADisplayConnection, width: Int, height: Int, count: Int,
                rtFormat: UInt32 = UInt32(VA_RT_FORMAT_YUV420), fourcc: UInt32 = UInt32(VA_FOURCC_NV12)) throws(VAError) {
        var ids = [VASurfaceID](repeating: VASurfaceID(VA_INVALID_SURFACE), count: count)
        var attribute = VASurfaceAttrib()
        attribute.type = VASurfaceAttribPixelFormat
        attribute.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
        attribute.value.type = VAGenericValueTypeInteger
        attribute.value.value.i = Int32(bitPattern: fourcc)
        try VAError.check(vaCreateSurfaces(connection.display, rtFormat, UInt32(width), UInt32(height), &ids, UInt32(count), &attribute, 1),
                          "vaCreateSurfaces(\(count) x \(width)x\(height))")
        self.ids = ids
        self.width = width
        self.height = height
        self.connection = connection
    }

    deinit {
        var list = ids
        vaDestroySurfaces(connection.display, &list, Int32(list.count))
    }
}

/// A VA context: a configuration bound to a picture size and render targets.
public final class VAContext: @unchecked Sendable {
    public let id: VAContextID
    public let configuration: VAConfiguration
    public let surfaces: VASurfaceSet
    let connection: VADisplayConnection

    public init(_ connection: VADisplayConnection, configuration: VAConfiguration, surfaces: VASurfaceSet,
                width: Int, height: Int, progressive: Bool = true) throws(VAError) {
        var targets = surfaces.ids
        var id = VAContextID(VA_INVALID_ID)
        try VAError.check(vaCreateContext(connection.display, configuration.id, Int32(width), Int32(height),
                                          progressive ? VA_PROGRESSIVE : 0, &targets, Int32(targets.count), &id),
                          "vaCreateContext(\(width)x\(height))")
        self.id = id
        self.configuration = configuration
        self.surfaces = surfaces
        self.connection = connection
    }

    deinit { vaDestroyContext(connection.display, id) }

    /// Creates a parameter or data buffer holding a copy of `value`'s bytes (`count` elements).
    public func buffer<T>(_ type: VABufferType, _ value: inout T, count: Int = 1) throws(VAError) -> VABufferID {
        var id = VABufferID(VA_INVALID_ID)
        let status = withUnsafeMutableBytes(of: &value) { raw in
            vaCreateBuffer(connection.display, self.id, type, UInt32(MemoryLayout<T>.size), UInt32(count), raw.baseAddress, &id)
        }
        try VAError.check(status, "vaCreateBuffer(type \(type.rawValue))")
        return id
    }

    /// Creates a buffer from raw bytes (slice data).
    public func buffer(_ type: VABufferType, bytes: UnsafeRawBufferPointer) throws(VAError) -> VABufferID {
        var id = VABufferID(VA_INVALID_ID)
        let status = vaCreateBuffer(connection.display, self.id, type, UInt32(bytes.count), 1, UnsafeMutableRawPointer(mutating: bytes.baseAddress), &id)
        try VAError.check(status, "vaCreateBuffer(type \(type.rawValue), \(bytes.count) bytes)")
        return id
    }

    /// An array of structures in one buffer.
    public func buffer<T>(_ type: VABufferType, array: inout [T]) throws(VAError) -> VABufferID {
        var id = VABufferID(VA_INVALID_ID)
        let count = array.count
        let status = array.withUnsafeMutableBytes { raw in
            vaCreateBuffer(connection.display, self.id, type, UInt32(MemoryLayout<T>.stride), UInt32(count), raw.baseAddress, &id)
        }
        try VAError.check(status, "vaCreateBuffer(type \(type.rawValue), \(array.count) elements)")
        return id
    }

    public func destroy(buffers: [VABufferID]) {
        for id in buffers { vaDestroyBuffer(connection.display, id) }
    }

    /// vaBeginPicture, vaRenderPicture of every buffer, vaEndPicture; the buffers are destroyed after.
    public func render(target: VASurfaceID, buffers: [VABufferID]) throws(VAError) {
        defer { destroy(buffers: buffers) }
        try VAError.check(vaBeginPicture(connection.display, id, target), "vaBeginPicture(surface \(target))")
        var list = buffers
        let status = vaRenderPicture(connection.display, id, &list, Int32(list.count))
        // vaEndPicture must follow a successful vaBeginPicture whatever vaRenderPicture said.
        let end = vaEndPicture(connection.display, id)
        try VAError.check(status, "vaRenderPicture(surface \(target))")
        try VAError.check(end, "vaEndPicture(surface \(target))")
    }
}

/// Surfaces handed out and taken back; a surface is free again only when released.
public struct VASurfacePool: Sendable {
    public let surfaces: VASurfaceSet
    private var free: [VASurfaceID]

    public init(_ surfaces: VASurfaceSet) {
        self.surfaces = surfaces
        self.free = surfaces.ids.reversed()
    }

    public var freeCount: Int { free.count }

    public mutating func acquire() -> VASurfaceID? { free.popLast() }

    public mutating func release(_ id: VASurfaceID) {
        precondition(surfaces.ids.contains(id) && !free.contains(id), "surface \(id) released twice or not from this pool")
        free.append(id)
    }
}

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
        _ = try VASurfaceErrors.sync(connection, surface: surface)
        var image = VAImage()
        var derived = vaDeriveImage(connection.display, surface, &image) == VA_STATUS_SUCCESS
        if derived && image.format.fourcc != UInt32(VA_FOURCC_NV12) {
            vaDestroyImage(connection.display, image.image_id)
            derived = false
        }
        if !derived {
            image = try connection.createNV12Image(width: surfaceWidth, height: surfaceHeight)
            let status = vaGetImage(connection.display, surface, 0, 0, UInt32(surfaceWidth), UInt32(surfaceHeight), image.image_id)
            if status != VA_STATUS_SUCCESS {
                vaDestroyImage(connection.display, image.image_id)
                throw VAError("vaGetImage(surface \(surface))", status)
            }
        }
        defer { vaDestroyImage(connection.display, image.image_id) }
        var mapped: UnsafeMutableRawPointer?
        try VAError.check(vaMapBuffer(connection.display, image.buf, &mapped), "vaMapBuffer(image)")
        defer { vaUnmapBuffer(connection.display, image.buf) }
        guard let base = mapped else { throw VAError("vaMapBuffer(image)", VAStatus(VA_STATUS_ERROR_OPERATION_FAILED)) }
        let pitches = withUnsafeBytes(of: image.pitches) { ($0.load(fromByteOffset: 0, as: UInt32.self), $0.load(fromByteOffset: 4, as: UInt32.self)) }
        let offsets = withUnsafeBytes(of: image.offsets) { ($0.load(fromByteOffset: 0, as: UInt32.self), $0.load(fromByteOffset: 4, as: UInt32.self)) }
        return try body(MappedNV12(luma: UnsafeRawPointer(base + Int(offsets.0)), lumaPitch: Int(pitches.0),
                                   chroma: UnsafeRawPointer(base + Int(offsets.1)), chromaPitch: Int(pitches.1)))
    }

    /// Waits for `surface` and copies the rectangle (x, y, width, height) out as NV12.
    public static func readNV12(_ connection: VADisplayConnection, surface: VASurfaceID, surfaceWidth: Int, surfaceHeight: Int,
                                crop: (x: Int, y: Int, width: Int, height: Int)) throws(VAError) -> PixelBuffer {
        do {
            return try withMappedNV12(connection, surface: surface, surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight) { mapped in
                // Every byte is written below: no zero fill first.
                var out = PixelBuffer(uninitializedFormat: .nv12, width: crop.width, height: crop.height)
                // Luma rows, then interleaved chroma rows (crop offsets are even for 4:2:0, 7.4.2.1.1).
                copyRows(from: mapped.luma + crop.y * mapped.lumaPitch + crop.x, pitch: mapped.lumaPitch,
                         to: &out.planes[0].bytes, rowBytes: crop.width, rows: crop.height)
                copyRows(from: mapped.chroma + (crop.y / 2) * mapped.chromaPitch + crop.x, pitch: mapped.chromaPitch,
                         to: &out.planes[1].bytes, rowBytes: out.planes[1].rowLength, rows: out.chromaHeight)
                return out
            }
        } catch let error as VAError {
            throw error
        } catch {
            throw VAError("vaMapBuffer(image)", VAStatus(VA_STATUS_ERROR_OPERATION_FAILED))
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
