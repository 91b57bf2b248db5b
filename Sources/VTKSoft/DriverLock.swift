import Glibc

/// A mutex for driver state: VA clients may call one display from several threads. Its condition is
/// signalled when the worker finishes a picture (``wait()`` releases the mutex while it waits).
final class DriverLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Waits for ``broadcast()``; the lock must be held (it is again on return).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every ``wait()``; called with the lock held.
    func broadcast() { pthread_cond_broadcast(condition) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
