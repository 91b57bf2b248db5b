import Foundation

/// vtksoft's exported object counters, reached with dlsym like any client would.
public enum VTKSoftCounters {
    private typealias Counter = @convention(c) () -> Int32
    private typealias DisplayCounter = @convention(c) (UnsafeMutableRawPointer?) -> Int32

    /// dlopen keeps the driver mapped (it is built NODELETE anyway) so the symbols stay valid.
    nonisolated(unsafe) private static let handle: UnsafeMutableRawPointer? = VTKSoftDriverLocation.library.flatMap { dlopen($0.path, RTLD_NOW) }

    private static func counter(_ name: String) -> Int? {
        guard let handle, let symbol = dlsym(handle, name) else { return nil }
        return Int(unsafeBitCast(symbol, to: Counter.self)())
    }

    /// Objects alive in every vtksoft display of the process.
    public static var live: Int? { counter("vtksoft_live_object_count") }
    /// Objects clients left behind at vaTerminate, summed since the driver was loaded.
    public static var leaked: Int? { counter("vtksoft_leaked_object_count") }

    /// Objects alive in one display (a VADisplay): not disturbed by other tests running at the same time.
    public static func live(in display: UnsafeMutableRawPointer?) -> Int? { displayCounter("vtksoft_display_live_object_count", display) }

    /// Decode parameters that contradicted their slice data in one display (a VADisplay).
    public static func violations(in display: UnsafeMutableRawPointer?) -> Int? { displayCounter("vtksoft_display_violation_count", display) }

    private static func displayCounter(_ name: String, _ display: UnsafeMutableRawPointer?) -> Int? {
        guard let handle, let symbol = dlsym(handle, name) else { return nil }
        return Int(unsafeBitCast(symbol, to: DisplayCounter.self)(display))
    }

    /// Encode violations vtksoft counted (bad calls coded anyway, as hardware), since it was loaded.
    public static var encodeViolations: Int? { counter("vtksoft_encode_violation_count") }

    /// Makes one display behave as vtksoft persona `name` (VTKSOFT_PERSONA, without the environment).
    public static func setPersona(_ name: String, in display: UnsafeMutableRawPointer?) -> Bool {
        typealias Setter = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
        guard let handle, let symbol = dlsym(handle, "vtksoft_display_set_persona") else { return false }
        return name.withCString { unsafeBitCast(symbol, to: Setter.self)(display, $0) } == 0
    }

    /// Holds or releases a display's picture worker (pictures stay VASurfaceRendering while held).
    public static func holdWorker(_ hold: Bool, in display: UnsafeMutableRawPointer?) -> Bool {
        typealias Setter = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
        guard let handle, let symbol = dlsym(handle, "vtksoft_display_hold_worker") else { return false }
        return unsafeBitCast(symbol, to: Setter.self)(display, hold ? 1 : 0) == 0
    }

    /// Client calls of one display now blocked waiting for its worker.
    public static func waitingCalls(in display: UnsafeMutableRawPointer?) -> Int? { displayCounter("vtksoft_display_waiting_calls", display) }

    /// Makes one display's new encode contexts use `engine` ("native" or "openh264").
    public static func setEncoder(_ engine: String, in display: UnsafeMutableRawPointer?) -> Bool {
        typealias Setter = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
        guard let handle, let symbol = dlsym(handle, "vtksoft_display_set_encoder") else { return false }
        return engine.withCString { unsafeBitCast(symbol, to: Setter.self)(display, $0) } == 0
    }
}
