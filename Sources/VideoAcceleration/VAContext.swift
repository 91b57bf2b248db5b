import CLibVA

/// A VA context: a configuration bound to a picture size and render targets.
public final class VAContext: @unchecked Sendable {
    public let id: VAContextID
    public let configuration: VAConfiguration
    public let surfaces: VASurfaceSet
    @usableFromInline let connection: VADisplayConnection

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

    /// Creates a parameter or data buffer holding a copy of `value`'s bytes (`count` elements). Inlinable, so that a
    /// picture's parameter structures (a 3 KB H.264 slice's) reach the driver specialised, not through value witnesses.
    @inlinable
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
        // libva takes a mutable pointer but only reads the ids: passed in place, not copied.
        let status = buffers.withUnsafeBufferPointer { ids in
            vaRenderPicture(connection.display, id, UnsafeMutablePointer(mutating: ids.baseAddress), Int32(ids.count))
        }
        // vaEndPicture must follow a successful vaBeginPicture whatever vaRenderPicture said.
        let end = vaEndPicture(connection.display, id)
        try VAError.check(status, "vaRenderPicture(surface \(target))")
        try VAError.check(end, "vaEndPicture(surface \(target))")
    }
}
