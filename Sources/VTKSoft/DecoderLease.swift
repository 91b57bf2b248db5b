import VTKMedia

/// libavcodec's hold on a surface's memory, from the picture it decoded straight into it until the
/// AVBuffer's free callback: while held, the memory may be one of libavcodec's references, so nothing
/// else may write it (the surface takes new memory first, ``Surface/releaseFromDecoder()``), and it
/// outlives the surface if the client destroys that first.
final class DecoderLease: Sendable {
    let memory: PlaneMemoryReference
    private let held = Locked(true)

    init(memory: PlaneMemory) { self.memory = PlaneMemoryReference(memory) }

    var isHeld: Bool { held.withLock { $0 } }

    /// The AVBuffer's free callback: libavcodec no longer refers to the memory.
    func end() { held.withLock { $0 = false } }
}

/// Keeps a surface's memory alive for libavcodec; it is only read through the pointer libavcodec got.
struct PlaneMemoryReference: @unchecked Sendable {
    // Never mutated: the reference only keeps the allocation alive.
    let memory: PlaneMemory
    init(_ memory: PlaneMemory) { self.memory = memory }
}
