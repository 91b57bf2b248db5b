#if canImport(Glibc)
import Glibc
#endif

/// vtk's one lock: a pthread mutex, with a condition for waiting under it.
///
/// Not Swift's `Synchronization.Mutex`: on Linux its contended path hands the lock over in the kernel
/// (FUTEX_LOCK_PI, inside the uninstrumented standard library), so ThreadSanitizer sees no
/// happens-before edge between two holders and reports races on state the lock protects. TSan
/// intercepts `pthread_mutex_*` and `pthread_cond_*`, so a sanitizer run is meaningful for code under
/// this lock. Not recursive.
public final class Lock: @unchecked Sendable {
    // The mutex and condition need addresses that never move: allocated once, freed in deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    // For ``Locked``, whose body's result is `sending`, which a closure through withLock would not carry.
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for ``broadcast()``, releasing the lock meanwhile; call holding it (it is held again on return).
    /// Wakes may be spurious: wait in a loop on the condition that matters.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every ``wait()``; call holding the lock.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
