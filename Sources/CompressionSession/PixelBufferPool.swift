import VTKMedia

/// Pixel buffers of the session's size and format (NV12) for the caller to fill, like
/// VTCompressionSessionGetPixelBufferPool. Buffers the session has finished copying come back here, so
/// a caller that fills pool buffers allocates nothing per frame; a buffer the caller still holds is
/// safe, because pixel buffers copy on write. A caller may fill buffers on other threads than the session's:
/// the free list is under a lock.
public final class PixelBufferPool: Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat = .nv12
    private let free = Locked<[PixelBuffer]>([])
    private let capacity: Int

    init(width: Int, height: Int, capacity: Int) {
        self.width = width
        self.height = height
        self.capacity = capacity
    }

    /// A buffer of the pool's size and format; its pixels are whatever it held last.
    public func makePixelBuffer() -> PixelBuffer {
        if var buffer = free.withLock({ $0.popLast() }) {
            buffer.presentationTime = .invalid
            buffer.duration = .invalid
            return buffer
        }
        return PixelBuffer(format: format, width: width, height: height)
    }

    /// A buffer given back to the pool, or nil when none is free (the session converts frames into these).
    func takeFree() -> PixelBuffer? { free.withLock { $0.popLast() } }

    func recycle(_ buffer: PixelBuffer) {
        guard buffer.format == format, buffer.width == width, buffer.height == height,
              buffer.planes.allSatisfy({ $0.bytesPerRow == $0.rowLength }) else { return }
        free.withLock { free in
            if free.count < capacity { free.append(buffer) }
        }
    }
}
