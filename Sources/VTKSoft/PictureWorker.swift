import Dispatch
import Glibc
import VTKMedia

/// A display's worker, as a GPU's command queue: pictures run one at a time in submission order, and
/// vaEndPicture returns before its picture runs.
///
/// Who runs a picture: a decode picture is run by the client thread that waits for it (vaSyncSurface and
/// the other waiting calls), with the pictures submitted before it, oldest first; the worker thread runs
/// decode pictures only when the client polls vaQuerySurfaceStatus, or when more than ``waiterQueueLimit``
/// wait (a client that never waits, as FFmpeg decoding into surfaces it never reads, still has its pictures
/// decoded, in bounded memory). A decode picture runs holding the driver lock, so a worker overlaps only the
/// client's work outside VA calls, at the price of a hand-off between threads (and cores) per picture: at
/// 720p that cost more CPU time than it saved. Encode pictures always start on the worker.
/// Everything here is touched only holding the driver lock (`lock`), which is what makes it Sendable.
final class PictureWorker: @unchecked Sendable {
    /// One submitted picture: `run` is called with the driver lock held, after `unlocked` (without it).
    struct Entry {
        /// A waiting client thread may run it itself (decode pictures).
        let runsOnWaiter: Bool
        let unlocked: (() -> Void)?
        let run: () -> Void
    }

    private let queue = DispatchQueue(label: "vtksoft.picture-worker")
    private let lock: Lock
    /// Pictures submitted and not started, oldest first.
    private var waiting: [Entry] = []
    /// A picture is running (on the worker or on a waiting client thread): the next waits for it.
    private var running = false
    /// The worker thread has been asked to run what is waiting and has not stopped.
    private var started = false
    /// Holds every picture before it starts (``vtksoftDisplayHoldWorker``), so a test sees pictures in flight.
    var held = false {
        didSet { lock.broadcast() }
    }

    init(lock: Lock) {
        self.lock = lock
    }

    /// `VTKSOFT_PICTURE_DELAY_MS=N`: every picture waits N ms on the worker before it runs, as on a slow
    /// engine. For tests of speed figures: a wait is a lower bound on any honest time, however loaded the machine.
    static let delayMicroseconds: UInt32 = {
        guard let text = getenv("VTKSOFT_PICTURE_DELAY_MS"), let ms = UInt32(String(cString: text)), ms <= 10_000 else { return 0 }
        return ms * 1000
    }()

    /// Decode pictures that may wait for a client thread to run them: the deepest DPB (16 frames) and the
    /// picture after it, so that a decoder that syncs a picture only when its DPB outputs it runs them all.
    static let waiterQueueLimit = 17

    /// Queues a picture (lock held). The worker starts at once unless a waiting client may run it.
    func submit(_ entry: Entry) {
        waiting.append(entry)
        if !entry.runsOnWaiter || Self.delayMicroseconds > 0 || waiting.count > Self.waiterQueueLimit { start() }
    }

    /// Lets the worker thread run what is waiting (lock held): the client polls, or too many wait.
    func start() {
        guard !waiting.isEmpty, !started else { return }
        started = true
        queue.async { [self] in drain() }
    }

    /// The worker thread: runs the waiting pictures in order until none is left.
    private func drain() {
        while true {
            let next: Entry? = lock.withLock {
                while held || running { lock.wait() }
                guard !waiting.isEmpty else {
                    started = false
                    return nil
                }
                running = true
                return waiting.removeFirst()
            }
            guard let next else { return }
            let delay = Self.delayMicroseconds
            if delay > 0 { usleep(delay) }
            next.unlocked?()
            lock.withLock {
                next.run()
                running = false
                lock.broadcast()
            }
        }
    }

    /// Waits while `busy` (lock held; released while waiting): runs the oldest waiting picture itself when
    /// it may (not held, nothing running, a decode picture), else starts the worker and waits for it.
    func wait(while busy: () -> Bool) {
        while busy() {
            if !held, !running, Self.delayMicroseconds == 0, let next = waiting.first, next.runsOnWaiter {
                waiting.removeFirst()
                running = true
                next.run()
                running = false
                lock.broadcast()
            } else {
                start()
                lock.wait()
            }
        }
    }
}
