/// A value that is only reached under its own ``Lock``: the shape of `Synchronization.Mutex<Value>`
/// (`withLock { $0 … }`), over the lock ThreadSanitizer understands.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    // Only touched inside lock.withLock: that is what makes the class Sendable.
    private var value: Value

    public init(_ value: sending Value) { self.value = value }

    /// Runs `body` on the value, holding the lock. As with `Mutex`, what goes in and comes out is `sending`:
    /// a non-Sendable value cannot escape the lock still shared.
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
