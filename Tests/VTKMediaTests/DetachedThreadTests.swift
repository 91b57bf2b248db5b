import Dispatch
import Foundation
import Testing
import VTKMedia

@Suite("DetachedThread")
struct DetachedThreadTests {
    @Test("Each body runs once, on a thread other than the caller's, all at the same time")
    func runsConcurrently() {
        let count = 8
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let threads = Locked<[UInt]>([])
        let caller = UInt(pthread_self())
        for _ in 0..<count {
            #expect(DetachedThread.start {
                threads.withLock { $0.append(UInt(pthread_self())) }
                started.signal()
                release.wait()  // every body waits here until all have started: they run side by side
                finished.signal()
            })
        }
        for _ in 0..<count { #expect(started.wait(timeout: .now() + 60) == .success) }
        for _ in 0..<count { release.signal() }
        for _ in 0..<count { #expect(finished.wait(timeout: .now() + 60) == .success) }
        let seen = threads.withLock { $0 }
        #expect(seen.count == count && Set(seen).count == count && !seen.contains(caller))
    }
}
