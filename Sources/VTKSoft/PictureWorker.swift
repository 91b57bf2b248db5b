import Dispatch
import Glibc
import VTKMedia

/// A display's worker, as a GPU's command queue: pictures run one at a time in submission order, and
/// vaEndPicture returns before its picture runs.
///
/// Who runs a picture: a decode picture nobody has started yet is run by the client thread that waits for
/// it (vaSyncSurface and the other waiting calls), so a client that syncs each picture at once pays no
/// hand-off between threads; the worker thread starts as soon as the client goes on instead (a second
/// picture submitted, its next vaCreateBuffer or vaBeginPicture, vaQuerySurfaceStatus), as a GPU runs its
/// queue while the client prepares the next picture. Encode pictures always start on the worker.
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

    /// Queues a picture (lock held). The worker starts at once unless a waiting client may run it.
    func submit(_ entry: Entry) {
        waiting.append(entry)
        if !entry.runsOnWaiter || Self.delayMicroseconds > 0 || waiting.count > 1 || running { start() }
    }

    /// Lets the worker thread run what is waiting (lock held): the client went on to other work.
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
