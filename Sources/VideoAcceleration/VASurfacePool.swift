import CLibVA

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
