import CLibVA

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
