import Glibc

/// Driver-owned pixel or parameter memory. A class so that a surface and an image derived from it can
/// share one allocation: the memory lives as long as either still refers to it.
final class PlaneMemory {
    let base: UnsafeMutableRawPointer
    let size: Int

    init(size: Int) {
        self.size = size
        // 64-byte alignment keeps libyuv's SIMD paths on their fast loads.
        base = .allocate(byteCount: max(size, 1), alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: max(size, 1))
    }

    deinit { base.deallocate() }
}
