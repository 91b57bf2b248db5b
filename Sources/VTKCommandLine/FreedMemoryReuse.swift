#if canImport(Glibc)
import Glibc
#endif

/// Keeps the memory of freed frames in the process for the next ones, for commands whose stages allocate a
/// picture on one thread and free it on another (`vtk roundtrip`): glibc would otherwise give every freed
/// picture's pages back to the kernel (munmap, or madvise when trimming a thread's heap) and fault fresh ones
/// in for the next, about a hundred thousand page faults for 300 frames at 720p. Memory stays bounded by
/// what is alive at once, as before: freed pictures are reused, not kept beside new ones.
enum FreedMemoryReuse {
    /// Allocations up to this size come from the heap, whose freed memory is reused (glibc's maximum).
    static let mmapThreshold: Int32 = 32 << 20
    /// A heap is trimmed only when this much at its top is free.
    static let trimThreshold: Int32 = 256 << 20

    /// mallopt's parameters (<malloc.h>, which the Glibc module leaves out).
    private static let trimThresholdParameter: Int32 = -1, mmapThresholdParameter: Int32 = -3

    /// Sets glibc's thresholds for the rest of the process; call before any thread starts. Does nothing
    /// where there is no mallopt (another C library).
    static func enable() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(mmapThresholdParameter, mmapThreshold)
        _ = mallopt(trimThresholdParameter, trimThreshold)
        #endif
    }
}
