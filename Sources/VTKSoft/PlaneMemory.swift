import Glibc

/// Driver-owned pixel or parameter memory, zeroed. A class so that a surface and an image derived from it can
/// share one allocation: the memory lives as long as either still refers to it.
final class PlaneMemory {
    let base: UnsafeMutableRawPointer
    let size: Int
    /// Where the memory came from, which says how it goes back.
    private let source: Source

    private enum Source {
        /// Mapped from the kernel: its pages are zero until written, so no fill is paid for.
        case mapped
        /// malloc or calloc: malloc's own alignment.
        case heap
        /// Swift's aligned allocation (posix_memalign).
        case aligned
    }

    /// `mapped`: for long-lived memory of a large size (a surface's planes), mapped from the kernel rather than
    /// allocated and filled; short-lived buffers (a picture's parameters) stay on the heap, where freed memory is reused.
    /// `zeroed` false: heap memory the caller fills at once in full (a buffer created with its data) is not zeroed first.
    /// `simdAligned` false: heap memory that no SIMD kernel reads (a picture's parameters and slice data) comes from
    /// malloc itself, whose per-thread cache serves a picture's buffers again and again. (Swift's
    /// `allocate(byteCount:alignment:)` goes through posix_memalign whatever the alignment asked, which that cache
    /// does not serve: about 1,000 instructions a buffer more, 6 buffers a picture.)
    init(size: Int, mapped: Bool = false, zeroed: Bool = true, simdAligned: Bool = true) {
        self.size = size
        let length = max(size, 1)
        if mapped, let pages = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           pages != UnsafeMutableRawPointer(bitPattern: -1) {
            // Page-aligned, so on libyuv's fast (64-byte aligned) loads too.
            base = pages
            source = .mapped
        } else if !simdAligned, let memory = zeroed || size == 0 ? calloc(1, length) : malloc(length) {
            base = memory
            source = .heap
        } else {
            // 64-byte alignment keeps libyuv's SIMD paths on their fast loads.
            base = .allocate(byteCount: length, alignment: simdAligned ? 64 : MemoryLayout<Int>.alignment)
            if zeroed || size == 0 { base.initializeMemory(as: UInt8.self, repeating: 0, count: length) }
            source = .aligned
        }
    }

    deinit {
        switch source {
        case .mapped: munmap(base, max(size, 1))
        case .heap: free(base)
        case .aligned: base.deallocate()
        }
    }
}
