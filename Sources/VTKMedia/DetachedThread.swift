#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own for long or blocking work (a receive loop, a job that waits on child processes),
/// as Foundation's Thread.detachNewThread made one: pthread_create with the default attributes, detached.
public enum DetachedThread {
    /// Starts `body` on a new thread; false (and `body` not run) if the system refused a thread.
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

/// The closure handed through pthread_create's one pointer argument.
private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
