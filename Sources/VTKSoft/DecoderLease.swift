import VTKMedia

/// libavcodec's hold on a surface's memory, from the picture it decoded straight into it until the
/// AVBuffer's free callback: while held, the memory may be one of libavcodec's references, so nothing
/// else may write it (the surface takes new memory first, ``Surface/releaseFromDecoder()``), and it
/// outlives the surface if the client destroys that first.
///
/// The free callback runs on whichever thread drops libavcodec's last reference; `held` is the only
/// state it touches, under its lock. `memory` never changes: it only keeps the allocation alive.
final class DecoderLease {
    let memory: PlaneMemory
    private let held = Locked(true)

    init(memory: PlaneMemory) { self.memory = memory }

    var isHeld: Bool { held.withLock { $0 } }

    /// The AVBuffer's free callback: libavcodec no longer refers to the memory.
    func end() { held.withLock { $0 = false } }
}
