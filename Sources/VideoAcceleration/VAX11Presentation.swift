import CLibVA
import CX11
import VTKMedia
#if canImport(Glibc)
import Glibc
#endif

/// A connection to an X server, owned by the VA display that presents on it (closed after vaTerminate).
final class X11Connection: @unchecked Sendable {
    let display: OpaquePointer
    /// What was opened: the name given, else $DISPLAY.
    let name: String

    init(name: String?) throws(VADeviceError) {
        let shown = name ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        guard !shown.isEmpty else { throw .noX11Display("DISPLAY is not set") }
        guard let display = XOpenDisplay(shown) else { throw .noX11Display("cannot open X display \(shown)") }
        self.display = display
        self.name = shown
    }

    deinit { XCloseDisplay(display) }
}

/// A rectangle of a surface or of an X drawable, in pixels.
public struct PresentationRectangle: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int = 0, y: Int = 0, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The YUV-to-RGB matrix of a presentation (vaPutSurface's VA_SRC_* flags).
public enum PresentationMatrix: Sendable {
    case bt601, bt709

    var flag: UInt32 { self == .bt601 ? UInt32(VA_SRC_BT601) : UInt32(VA_SRC_BT709) }
}

/// VA's own presentation path on X11: a VA display opened on an X connection (libva-x11's vaGetDisplay),
/// usable for decoding like any other, and vaPutSurface onto any drawable of that server.
extension VADisplayConnection {
    /// Opens a VA display on a new connection to the X server `displayName` (nil: `$DISPLAY`). `automatic`
    /// takes the driver the X server names (DRI3/DRI2) when there is a render node and it can do `job`,
    /// else vtksoft; `software` and `softwarePersona` take vtksoft. A named DRM device cannot be chosen: X
    /// picks the device. Throws ``VADeviceError/noX11Display(_:)`` when the server cannot be reached.
    public static func openX11(_ choice: VADeviceChoice = .automatic, displayName: String? = nil,
                               for job: VADeviceJob = .any) throws -> VADisplayConnection {
        switch choice {
        case .path(let path):
            throw VADeviceError.cannotPresentOn(path)
        case .softwarePersona(let name):
            return try openX11Software(displayName: displayName, persona: name)
        case .software:
            return try openX11Software(displayName: displayName)
        case .automatic:
            var tried: [String] = []
            if !renderNodes().isEmpty {
                do {
                    let x11 = try X11Connection(name: displayName)
                    guard let display = vaGetDisplay(UnsafeMutableRawPointer(x11.display)) else {
                        throw VAError("vaGetDisplay(\(x11.name))", VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY))
                    }
                    let connection = try VADisplayConnection(display: display, devicePath: "x11:\(x11.name)", fd: -1, software: false, x11: x11)
                    if connection.canDo(job) { return connection }
                    tried.append("x11:\(x11.name): its driver cannot do \(job)")
                } catch let error as VADeviceError {
                    throw error  // no X server: vtksoft cannot present either
                } catch { tried.append("\(error)") }
            }
            do { return try openX11Software(displayName: displayName) } catch let error as VADeviceError {
                throw error
            } catch { tried.append("vtksoft: \(error)"); throw VADeviceError.noDriver(tried) }
        }
    }

    /// vtksoft on an X11 display (as `persona`, when given): libva-x11's display with the driver name replaced.
    private static func openX11Software(displayName: String?, persona: String? = nil) throws -> VADisplayConnection {
        try SoftwareDriverLocation.checkSearchPath()
        let x11 = try X11Connection(name: displayName)
        guard let display = vaGetDisplay(UnsafeMutableRawPointer(x11.display)) else {
            throw VAError("vaGetDisplay(\(x11.name))", VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY))
        }
        nameSoftwareDriver(in: display.assumingMemoryBound(to: VADisplayContext.self))
        return try VADisplayConnection(display: display, devicePath: "vtksoft", fd: -1, software: true, x11: x11, persona: persona)
    }

    /// The X display this VA display presents on (`:9`), or nil for a display opened without X.
    public var x11DisplayName: String? { x11?.name }

    /// Whether ``present(surface:to:source:destination:matrix:)`` can work: the display is on X11 and its
    /// driver implements vaPutSurface. Asked by presenting VA_INVALID_SURFACE, which a presenting driver
    /// refuses as an invalid surface and one that cannot present (nvidia-vaapi-driver) as unimplemented.
    public var canPresent: Bool {
        guard x11 != nil else { return false }
        let status = vaPutSurface(display, VASurfaceID(VA_INVALID_SURFACE), 0, 0, 0, 1, 1, 0, 0, 1, 1, nil, 0, 0)
        return status != VA_STATUS_ERROR_UNIMPLEMENTED
    }

    /// Shows `source` of a decoded surface in `destination` of X drawable `drawable` (a window or pixmap
    /// XID of this display's server, from any connection; scaled to fit), through vaPutSurface. The
    /// drawable must exist on the server (its creator has flushed).
    public func present(surface: VASurfaceID, to drawable: UInt, source: PresentationRectangle,
                        destination: PresentationRectangle, matrix: PresentationMatrix = .bt601) throws(VAError) {
        guard x11 != nil else {
            throw VAError("vaPutSurface", VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY), detail: "the VA display is not on X11 (use openX11)")
        }
        guard let s = Self.rectangle(source), let d = Self.rectangle(destination) else {
            throw VAError("vaPutSurface", VAStatus(VA_STATUS_ERROR_INVALID_PARAMETER),
                          detail: "rectangle out of range (source \(source), destination \(destination))")
        }
        try VAError.check(vaPutSurface(display, surface, drawable, s.x, s.y, s.width, s.height, d.x, d.y, d.width, d.height,
                                       nil, 0, matrix.flag),
                          "vaPutSurface(surface \(surface), drawable 0x\(String(drawable, radix: 16)))")
    }

    /// VA's 16-bit rectangle, or nil when a value does not fit.
    private static func rectangle(_ r: PresentationRectangle) -> VARectangle? {
        guard let x = Int16(exactly: r.x), let y = Int16(exactly: r.y),
              let width = UInt16(exactly: r.width), let height = UInt16(exactly: r.height) else { return nil }
        return VARectangle(x: x, y: y, width: width, height: height)
    }
}

/// Shows decoded pictures through vaPutSurface: a surface of this display as it is, with no copy
/// (``present(surface:source:to:destination:matrix:)``), or NV12 pixel buffers, each written into one of two
/// surfaces of this presenter, in turn, and put on the drawable (GPU to CPU to GPU: for frames that are not
/// in a surface of this display). Calls from several threads take turns (the surfaces and the turn are
/// under a lock; the connection is immutable).
public final class VAFramePresenter: Sendable {
    private struct Surfaces {
        var set: VASurfaceSet?
        var next = 0
    }
    public let connection: VADisplayConnection
    private let surfaces = Locked(Surfaces())

    /// Throws INVALID_DISPLAY unless `connection.canPresent`.
    public init(connection: VADisplayConnection) throws(VAError) {
        guard connection.canPresent else {
            throw VAError("vaPutSurface", VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY),
                          detail: "\(connection.devicePath) (\(connection.vendor)) cannot present on X11")
        }
        self.connection = connection
    }

    /// Shows `source` of a surface of this presenter's display (a decoded picture, still where it was
    /// decoded) scaled into `destination` of `drawable`: vaPutSurface, no copy through the CPU.
    public func present(surface: VASurfaceID, source: PresentationRectangle, to drawable: UInt, destination: PresentationRectangle,
                        matrix: PresentationMatrix = .bt601) throws(VAError) {
        try connection.present(surface: surface, to: drawable, source: source, destination: destination, matrix: matrix)
    }

    /// Shows all of `buffer` (NV12) scaled into `destination` of `drawable`.
    public func present(_ buffer: PixelBuffer, to drawable: UInt, destination: PresentationRectangle,
                        matrix: PresentationMatrix = .bt601) throws(VAError) {
        guard buffer.format == .nv12 else {
            throw VAError("vaPutSurface", VAStatus(VA_STATUS_ERROR_INVALID_IMAGE_FORMAT), detail: "frames are presented from NV12, not \(buffer.format)")
        }
        try surfaces.withLock { (s: inout Surfaces) throws(VAError) in
            if s.set?.width != buffer.width || s.set?.height != buffer.height {
                s.set = nil
                s.set = try VASurfaceSet(connection, width: buffer.width, height: buffer.height, count: 2)
            }
            guard let set = s.set else { return }
            let surface = set.ids[s.next]
            s.next = (s.next + 1) % set.ids.count
            try VASurfaceWriter.writeNV12(connection, buffer, to: surface, surfaceWidth: buffer.width, surfaceHeight: buffer.height)
            try connection.present(surface: surface, to: drawable, source: PresentationRectangle(width: buffer.width, height: buffer.height),
                                   destination: destination, matrix: matrix)
        }
    }
}
