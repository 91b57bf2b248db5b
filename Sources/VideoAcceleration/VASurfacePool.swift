import CLibVA
import VTKMedia

/// Surfaces handed out and taken back. A surface has holders (the decoder's DPB, and frames that lend it
/// out to their users); it is free again only when the last one lets it go. Holders may let go on any
/// thread (a frame dropped by a player): the counts are under a lock.
public final class VASurfacePool: Sendable {
    public let surfaces: VASurfaceSet
    private struct State {
        var free: [VASurfaceID]
        var holders: [VASurfaceID: Int] = [:]
        /// The sum of `holders`.
        var holds = 0
    }
    private let state: Locked<State>

    public init(_ surfaces: VASurfaceSet) {
        self.surfaces = surfaces
        state = Locked(State(free: surfaces.ids.reversed()))
    }

    public var freeCount: Int { state.withLock { $0.free.count } }

    /// Holders of all surfaces together (a surface held by the DPB and by two frames counts three).
    public var holdCount: Int { state.withLock { $0.holds } }

    /// A free surface, with one holder; nil when every surface is held.
    public func acquire() -> VASurfaceID? {
        state.withLock { s in
            guard let id = s.free.popLast() else { return nil }
            s.holders[id] = 1
            s.holds += 1
            return id
        }
    }

    /// One more holder of a surface already held (a frame that keeps its picture after the DPB lets it go).
    public func retain(_ id: VASurfaceID) {
        state.withLock { s in
            precondition(s.holders[id] != nil, "surface \(id) retained while free or not from this pool")
            s.holders[id, default: 0] += 1
            s.holds += 1
        }
    }

    /// One holder lets go; the surface is free when none is left.
    public func release(_ id: VASurfaceID) {
        state.withLock { s in
            guard let count = s.holders[id] else {
                preconditionFailure("surface \(id) released twice or not from this pool")
            }
            s.holds -= 1
            if count > 1 {
                s.holders[id] = count - 1
            } else {
                s.holders[id] = nil
                s.free.append(id)
            }
        }
    }
}
