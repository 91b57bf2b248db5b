import Foundation
import Testing
import VTKMedia

/// vtk's one lock under contention. Run under `swift test --sanitize=thread` these are the check that
/// ThreadSanitizer sees the lock: with `Synchronization.Mutex` in its place, the same exchange is reported
/// as a Swift access race once a holder blocks in the lock's slow path (see Lock.swift).
@Suite("Lock")
struct LockTests {
    /// Runs `body` on a new thread; the returned Lock-guarded flag is set when it has finished.
    private static func spawn(_ body: @escaping @Sendable () -> Void) -> (lock: Lock, done: Locked<Bool>) {
        let lock = Lock(), done = Locked(false)
        Thread.detachNewThread {
            body()
            lock.withLock {
                done.withLock { $0 = true }
                lock.broadcast()
            }
        }
        return (lock, done)
    }

    private static func join(_ thread: (lock: Lock, done: Locked<Bool>)) {
        thread.lock.withLock {
            while !thread.done.withLock({ $0 }) { thread.lock.wait() }
        }
    }

    @Test("A producer and a consumer exchanging an array through Locked lose and reorder nothing")
    func producerConsumer() {
        let count = 20_000
        let queue = Locked<[Int]>([])
        let producer = Self.spawn {
            for value in 0..<count {
                queue.withLock { items in
                    items.append(value)
                    // Hold the lock a while now and then, so that the consumer blocks in the lock's slow path.
                    if value % 64 == 0 { for _ in 0..<2_000 { items.reserveCapacity(items.count) } }
                }
            }
        }
        var taken: [Int] = []
        while taken.count < count {
            taken += queue.withLock { items in
                defer { items.removeAll(keepingCapacity: true) }
                return items
            }
        }
        Self.join(producer)
        #expect(taken == Array(0..<count))
    }

    @Test("wait and broadcast hand turns between two threads, in order")
    func turns() {
        let rounds = 2_000
        let lock = Lock()
        // Shared under `lock` only: the turn (0 or 1) and every value written, in order.
        final class Shared: @unchecked Sendable { var turn = 0; var log: [Int] = [] }
        let shared = Shared()
        @Sendable func play(_ me: Int) {
            for round in 0..<rounds {
                lock.withLock {
                    while shared.turn != me { lock.wait() }
                    shared.log.append(round * 2 + me)
                    shared.turn = 1 - me
                    lock.broadcast()
                }
            }
        }
        let other = Self.spawn { play(1) }
        play(0)
        Self.join(other)
        #expect(lock.withLock { shared.log } == Array(0..<(rounds * 2)))
    }
}
