import VTKMedia

/// Frames a later stage is done with, handed back to the source that reads into them, so that a run
/// reads every picture into memory it already has: no fresh pages to fault in, none returned to the
/// kernel, per picture. At most `capacity` frames wait here; the rest are freed.
final class FrameRecycler: Sendable {
    private let frames = Locked<[PixelBuffer]>([])
    private let capacity: Int

    init(capacity: Int = 8) { self.capacity = capacity }

    /// Keeps `frame` for a later ``take(format:width:height:)`` (the caller lets go of its copy).
    func give(_ frame: PixelBuffer) {
        frames.withLock { if $0.count < capacity { $0.append(frame) } }
    }

    /// The oldest frame given back with this layout, or nil. Its bytes are the last picture's: the caller
    /// overwrites them (copy on write keeps a frame that a stage still holds intact).
    func take(format: PixelFormat, width: Int, height: Int) -> PixelBuffer? {
        frames.withLock { list in
            guard let index = list.firstIndex(where: { $0.hasPackedLayout(format: format, width: width, height: height) }) else { return nil }
            return list.remove(at: index)
        }
    }
}
