import CLibVA
#if canImport(Glibc)
import Glibc
#endif

/// A libva call that failed: which call, and the VAStatus it returned.
public struct VAError: Error, Hashable, Sendable, CustomStringConvertible {
    public let function: String
    public let status: VAStatus
    public let detail: String?

    public init(_ function: String, _ status: VAStatus, detail: String? = nil) {
        self.function = function
        self.status = status
        self.detail = detail
    }

    public var description: String {
        let text = vaErrorStr(status).map { String(cString: $0) } ?? "unknown"
        return "\(function) failed: \(text) (VAStatus 0x\(String(status, radix: 16)))" + (detail.map { ": \($0)" } ?? "")
    }

    /// Throws unless `status` is VA_STATUS_SUCCESS.
    @inline(__always) @usableFromInline
    static func check(_ status: VAStatus, _ function: @autoclosure () -> String) throws(VAError) {
        if status != VA_STATUS_SUCCESS { throw VAError(function(), status) }
    }
}

/// Opening a VA device failed before any VA call could report a status.
public enum VADeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    case deviceNotFound(String)
    case cannotOpen(String, errno: Int32)
    case noDriver([String])
    case driverNotFound(String)
    /// No X server to present on: DISPLAY unset, or the server cannot be reached.
    case noX11Display(String)
    /// A named DRM device was asked to present on X11, where the X server chooses the device.
    case cannotPresentOn(String)
    /// vtksoft is in `directory`, but libva's driver search path (LIBVA_DRIVERS_PATH, read at vaInitialize)
    /// would not load it from there; `needed` is the value that would.
    case driverNotOnSearchPath(directory: String, current: String?, needed: String)

    public var description: String {
        switch self {
        case .deviceNotFound(let path): return "VA device \(path) does not exist"
        case let .cannotOpen(path, code): return "cannot open \(path): \(String(cString: strerror(code)))"
        case .noDriver(let tried): return "no VA device could be initialised (tried: \(tried.joined(separator: "; ")))"
        case .driverNotFound(let where_): return "vtksoft driver (libvtksoft_drv_video.so) not found in \(where_)"
        case .noX11Display(let reason): return "no X display: \(reason)"
        case .cannotPresentOn(let path): return "VA device \(path) cannot be chosen for X11 presentation (the X server picks the device; use auto or soft)"
        case let .driverNotOnSearchPath(directory, current, needed):
            return "libva would not load vtksoft from \(directory): LIBVA_DRIVERS_PATH is \(current.map { "'\($0)'" } ?? "unset")"
                + " (set LIBVA_DRIVERS_PATH=\(needed) before the program starts, as vtk's main does)"
        }
    }
}
