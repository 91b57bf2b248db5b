import CLibYUV
import CX11
import PixelConversion
import VideoDisplay
import VTKMedia
#if canImport(Glibc)
import Glibc
#endif

/// A window on the X server named by DISPLAY that shows frames converted to 32-bit RGB by libyuv
/// (BT.601 limited range, as PixelConverter.rgb), put with XShmPutImage when the MIT-SHM extension works
/// and XPutImage otherwise. Its pixels can be read back from the server (``screenshot()``).
public final class X11Window: FramePresenter {
    /// Keys the window reports.
    public enum Key: Sendable, Equatable { case togglePause, seekBackward, seekForward, quit }

    public let displayName: String
    private let display: OpaquePointer
    private let screen: Int32
    private var window: Window = 0
    private var image: UnsafeMutablePointer<XImage>?
    private var sharedMemory = XShmSegmentInfo()
    private var usesSharedMemory: Bool
    private var scratch: PixelBuffer?
    private let title: String
    public private(set) var width = 0
    public private(set) var height = 0
    /// Set when another client draws the pictures into this window (VA's vaPutSurface): the window then never
    /// puts its own image, not even on Expose.
    public private(set) var drawnByVA = false

    /// Connects to DISPLAY; the window appears with the first frame, at its size.
    public init(title: String) throws(DisplayError) {
        guard let name = getenv("DISPLAY").map({ String(cString: $0) }), !name.isEmpty else {
            throw DisplayError.noDisplay("no X display: DISPLAY is not set")
        }
        vtk_x11_install_error_handler()
        guard let display = XOpenDisplay(nil) else { throw DisplayError.noDisplay("cannot open X display '\(name)'") }
        self.display = display
        displayName = name
        self.title = title
        screen = XDefaultScreen(display)
        usesSharedMemory = XShmQueryExtension(display) != 0 && getenv("VTK_NO_XSHM") == nil
        let visual = XDefaultVisual(display, screen)
        let depth = XDefaultDepth(display, screen)
        guard let visual, depth == 24 || depth == 32, visual.pointee.red_mask == 0xFF0000, visual.pointee.blue_mask == 0xFF else {
            XCloseDisplay(display)
            throw DisplayError.noDisplay("X display '\(name)' has no 24-bit TrueColor visual (depth \(depth))")
        }
    }

    deinit {
        releaseImage()
        if window != 0 { XDestroyWindow(display, window) }
        XCloseDisplay(display)
    }

    /// The X window's id (0 before the first frame), for xwd and xdotool.
    public var windowID: UInt { UInt(window) }
    /// "XShm" or "XPutImage".
    public var method: String { drawnByVA ? "vaPutSurface" : usesSharedMemory ? "XShm" : "XPutImage" }

    /// Makes the window `width` x `height` for pictures drawn into it by VA (``drawnByVA``), without drawing.
    public func prepareForVA(width: Int, height: Int) throws(DisplayError) {
        drawnByVA = true
        if window == 0 { try createWindow(width: width, height: height) }
        if width != self.width || height != self.height { try makeImage(width: width, height: height) }
    }

    /// Waits until the X server has done every request so far of this connection.
    public func synchronize() { XSync(display, 0) }

    public func present(_ frame: DisplayFrame) throws(DisplayError) {
        let picture = frame.pixelBuffer
        if window == 0 { try createWindow(width: picture.width, height: picture.height) }
        if image == nil || picture.width != width || picture.height != height { try makeImage(width: picture.width, height: picture.height) }
        guard let image else { return }
        let planar = PixelConverter.convert(picture, to: .i420, reusing: &scratch)
        let p = planar.planes
        _ = I420ToARGB(p[0].bytes, Int32(p[0].bytesPerRow), p[1].bytes, Int32(p[1].bytesPerRow), p[2].bytes, Int32(p[2].bytesPerRow),
                       UnsafeMutableRawPointer(image.pointee.data).assumingMemoryBound(to: UInt8.self), image.pointee.bytes_per_line,
                       Int32(width), Int32(height))
        try put()
    }

    /// The window's pixels as the server has them, packed R, G, B.
    public func screenshot() throws(DisplayError) -> (rgb: [UInt8], width: Int, height: Int) {
        guard window != 0 else { throw DisplayError.presentation("no frame has been shown yet") }
        XSync(display, 0)
        _ = vtk_x11_take_error()
        guard let shot = XGetImage(display, window, 0, 0, UInt32(width), UInt32(height), ~0, ZPixmap) else {
            throw DisplayError.presentation("XGetImage of window 0x\(String(windowID, radix: 16)) failed (X error \(vtk_x11_take_error()))")
        }
        defer { vtk_x11_destroy_image(shot) }
        guard shot.pointee.bits_per_pixel == 32 else {
            throw DisplayError.presentation("XGetImage gave \(shot.pointee.bits_per_pixel) bits per pixel; 32 expected")
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { out in
            _ = ARGBToRAW(UnsafeRawPointer(shot.pointee.data).assumingMemoryBound(to: UInt8.self), shot.pointee.bytes_per_line,
                          out.baseAddress, Int32(width * 3), Int32(width), Int32(height))
        }
        return (rgb, width, height)
    }

    /// Handles window events until a key arrives or `seconds` pass (nil: until an event); returns the keys.
    public func waitForKeys(seconds: Double?) -> [Key] {
        XFlush(display)
        if XPending(display) == 0 {
            var descriptor = pollfd(fd: XConnectionNumber(display), events: Int16(POLLIN), revents: 0)
            let milliseconds = seconds.map { Int32(max(0, min($0, 3600)) * 1000) } ?? -1
            _ = poll(&descriptor, 1, milliseconds)
        }
        var keys: [Key] = []
        while XPending(display) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            switch event.type {
            case Expose where image != nil && !drawnByVA: try? put()
            case KeyPress:
                switch Int32(XLookupKeysym(&event.xkey, 0)) {
                case XK_space: keys.append(.togglePause)
                case XK_Left: keys.append(.seekBackward)
                case XK_Right: keys.append(.seekForward)
                case XK_q, XK_Escape: keys.append(.quit)
                default: break
                }
            default: break
            }
        }
        return keys
    }

    private func createWindow(width: Int, height: Int) throws(DisplayError) {
        let black = XBlackPixel(display, screen)
        window = XCreateSimpleWindow(display, XRootWindow(display, screen), 0, 0, UInt32(width), UInt32(height), 0, black, black)
        XStoreName(display, window, title)
        // Kept by the server when covered (Xvfb +bs), so that a read back shows this window whatever lies on top.
        var attributes = XSetWindowAttributes()
        attributes.backing_store = Always
        XChangeWindowAttributes(display, window, UInt(CWBackingStore), &attributes)
        XSelectInput(display, window, KeyPressMask | ExposureMask | StructureNotifyMask)
        XMapWindow(display, window)
        // Mapped before the first picture, so that it is not lost.
        var event = XEvent()
        repeat { XWindowEvent(display, window, StructureNotifyMask, &event) } while event.type != MapNotify
        if vtk_x11_take_error() != 0 { throw DisplayError.presentation("the X server refused the window on '\(displayName)'") }
    }

    private func makeImage(width: Int, height: Int) throws(DisplayError) {
        releaseImage()
        if XResizeWindow(display, window, UInt32(width), UInt32(height)) == 0 {}
        self.width = width
        self.height = height
        let visual = XDefaultVisual(display, screen)
        let depth = UInt32(XDefaultDepth(display, screen))
        if usesSharedMemory, let shared = XShmCreateImage(display, visual, depth, ZPixmap, nil, &sharedMemory, UInt32(width), UInt32(height)) {
            let size = Int(shared.pointee.bytes_per_line) * height
            sharedMemory.shmid = shmget(IPC_PRIVATE, size, IPC_CREAT | 0o600)
            if sharedMemory.shmid >= 0, let address = shmat(sharedMemory.shmid, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) {
                sharedMemory.shmaddr = address.assumingMemoryBound(to: CChar.self)
                shared.pointee.data = sharedMemory.shmaddr
                sharedMemory.readOnly = 0
                _ = vtk_x11_take_error()
                XShmAttach(display, &sharedMemory)
                XSync(display, 0)
                shmctl(sharedMemory.shmid, IPC_RMID, nil)  // freed once both sides detach
                if vtk_x11_take_error() == 0 {
                    image = shared
                    return
                }
                shmdt(address)
            } else if sharedMemory.shmid >= 0 {
                shmctl(sharedMemory.shmid, IPC_RMID, nil)
            }
            shared.pointee.data = nil
            vtk_x11_destroy_image(shared)
            usesSharedMemory = false  // a remote server, or no SysV shared memory: plain XPutImage
        }
        let stride = width * 4
        guard let pixels = malloc(stride * height),
              let plain = XCreateImage(display, visual, depth, ZPixmap, 0, pixels.assumingMemoryBound(to: CChar.self),
                                       UInt32(width), UInt32(height), 32, Int32(stride)) else {
            throw DisplayError.presentation("cannot make a \(width)x\(height) XImage")
        }
        image = plain  // XDestroyImage frees the pixels
    }

    private func put() throws(DisplayError) {
        guard let image else { return }
        let gc = XDefaultGC(display, screen)
        if usesSharedMemory {
            XShmPutImage(display, window, gc, image, 0, 0, 0, 0, UInt32(width), UInt32(height), 0)
        } else {
            XPutImage(display, window, gc, image, 0, 0, 0, 0, UInt32(width), UInt32(height))
        }
        XSync(display, 0)
        let error = vtk_x11_take_error()
        if error != 0 { throw DisplayError.presentation("the X server refused the picture (X error \(error))") }
    }

    private func releaseImage() {
        guard let image else { return }
        if usesSharedMemory {
            XShmDetach(display, &sharedMemory)
            XSync(display, 0)
            shmdt(sharedMemory.shmaddr)
            image.pointee.data = nil
        }
        vtk_x11_destroy_image(image)
        self.image = nil
    }
}
