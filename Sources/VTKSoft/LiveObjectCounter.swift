import VTKMedia
import CLibVA
import Glibc

/// Counts VA objects (configs, contexts, surfaces, buffers, images) across every open vtksoft display,
/// so that tests can assert a client released everything it created.
enum LiveObjectCounter {
    private static let lock = Lock()
    nonisolated(unsafe) private static var live = 0
    nonisolated(unsafe) private static var leakedAtTerminate = 0

    static func created() { lock.withLock { live += 1 } }
    static func destroyed(_ count: Int = 1) { lock.withLock { live -= count } }
    static var liveCount: Int { lock.withLock { live } }
    static var leakedCount: Int { lock.withLock { leakedAtTerminate } }

    /// Called by vaTerminate with the objects the client left behind (which the driver then frees).
    static func terminated(leftOver: Int) {
        lock.withLock { leakedAtTerminate += leftOver }
        if leftOver > 0 {
            let message = "vtksoft: warning: \(leftOver) VA object(s) still alive at vaTerminate\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        if let path = getenv("VTKSOFT_LEAK_REPORT"), let file = fopen(path, "w") {
            fputs("\(leftOver)\n", file)
            fclose(file)
        }
    }
}

/// Objects alive right now, in every open vtksoft display.
@_cdecl("vtksoft_live_object_count")
public func vtksoftLiveObjectCount() -> Int32 { Int32(LiveObjectCounter.liveCount) }

/// Objects that clients had not destroyed when they called vaTerminate, summed since the driver was loaded.
@_cdecl("vtksoft_leaked_object_count")
public func vtksoftLeakedObjectCount() -> Int32 { Int32(LiveObjectCounter.leakedCount) }

/// Objects alive in one display, so that a client sharing the process with others can check its own.
/// `display` is the VADisplay (a VADisplayContextP); -1 when it is not a vtksoft display.
@_cdecl("vtksoft_display_live_object_count")
public func vtksoftDisplayLiveObjectCount(_ display: UnsafeMutableRawPointer?) -> Int32 {
    guard let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    return Int32(driver.lock.withLock { driver.liveObjectCount })
}
