import Dispatch
import VTKMedia

/// The frames of a ``FrameSource``, read (or drawn) on a thread of its own a few pictures ahead of the
/// caller, so that reading the next picture overlaps encoding (`vtk roundtrip`, where the encoder would
/// otherwise wait for each read whenever it is ahead of the client).
///
/// Frames come out in the source's order. A read error comes out where it happened, after every frame
/// read before it. At most `depth` frames wait, and at most `limit` are read: a pipe is never read past
/// what the run measures.
final class FrameReadAhead: @unchecked Sendable {
    private struct State {
        /// Frames read and not yet taken, oldest first, each with the source's fraction read after it.
        var ready: [(frame: PixelBuffer, fraction: Double?)] = []
        var failure: CommandFailure?
        /// The caller is done: the reader stops before its next frame.
        var stopped = false
        /// The reader has ended (end of input, limit, failure or stop); it no longer touches the source.
        var readerDone = false
        /// The source's partial-frame byte count, copied when the reader ended.
        var partialFrameBytes = 0
        /// The fraction read after the last frame taken.
        var fraction: Double?
    }

    // `state` is only reached holding `lock`. `source` is only used by the reader until it sets
    // `state.readerDone` (under the lock), and never by this class after: that is what makes it Sendable.
    private let lock = Lock()
    private var state = State()
    private let source: FrameSource
    private let depth: Int

    /// Starts reading `source` at once, at most `limit` frames (all when nil), at most `depth` ahead.
    init(_ source: FrameSource, limit: Int?, depth: Int = 2) {
        self.source = source
        self.depth = max(1, depth)
        // A thread of its own: a read may block for long (a pipe), which a Dispatch worker must not.
        let reader: @Sendable () -> Void = { [self] in read(limit: limit ?? Int.max) }
        if !DetachedThread.start(reader) { DispatchQueue(label: "vtk.read-ahead").async(execute: reader) }
    }

    /// The next frame, waiting for the reader if it is behind; nil at the end (or the limit); the read
    /// error, after every frame before it.
    func next() throws(CommandFailure) -> PixelBuffer? {
        try lock.withLock { () throws(CommandFailure) -> PixelBuffer? in
            while state.ready.isEmpty && !state.readerDone { lock.wait() }
            guard state.ready.isEmpty else {
                let taken = state.ready.removeFirst()
                state.fraction = taken.fraction
                lock.broadcast()
                return taken.frame
            }
            if let failure = state.failure { throw failure }
            return nil
        }
    }

    /// The fraction of the input read, as it was after the last frame ``next()`` returned.
    var fractionDone: Double? { lock.withLock { state.fraction } }

    /// Bytes left over at the end that did not make a whole frame, once ``next()`` has returned nil.
    var partialFrameBytes: Int { lock.withLock { state.partialFrameBytes } }

    /// Stops reading: the reader ends before its next frame (a read under way finishes first, unwaited).
    func stop() {
        lock.withLock {
            state.stopped = true
            state.ready.removeAll()
            lock.broadcast()
        }
    }

    private func read(limit: Int) {
        var count = 0
        var failure: CommandFailure?
        while count < limit {
            let go = lock.withLock { () -> Bool in
                while state.ready.count >= depth && !state.stopped { lock.wait() }
                return !state.stopped
            }
            guard go else { break }
            let frame: PixelBuffer?
            do throws(CommandFailure) { frame = try source.next() } catch {
                failure = error
                break
            }
            guard let frame else { break }
            count += 1
            let fraction = source.fractionDone
            lock.withLock {
                if !state.stopped { state.ready.append((frame, fraction)) }
                lock.broadcast()
            }
        }
        let partial = source.partialFrameBytes
        lock.withLock {
            state.failure = failure
            state.partialFrameBytes = partial
            state.readerDone = true
            lock.broadcast()
        }
    }
}
