import VTKMedia
import CLibVA
import CX11

/// Draws a ``PresentedPicture`` on an X drawable of the client's X connection with XPutImage: vaPutSurface's
/// window-system half.
enum X11Drawing {
    /// Puts `picture` at (`x`, `y`) of `drawable`, within `clip` (drawable coordinates) when it is not empty;
    /// with `clear` (VA_CLEAR_DRAWABLE) the rest of the drawable is painted black first. A drawable that is
    /// not one of the server's, or whose depth is not 24 or 32 bits TrueColor, is an invalid parameter.
    static func draw(_ picture: PresentedPicture, display: OpaquePointer, drawable: UInt, x: Int, y: Int,
                     clip: [VARectangle], clear: Bool) throws(VAError) {
        var refusal: VAError?
        let failed = X11ErrorTrap.run(on: display) {
            var root: Window = 0, left: Int32 = 0, top: Int32 = 0
            var width: UInt32 = 0, height: UInt32 = 0, border: UInt32 = 0, depth: UInt32 = 0
            guard XGetGeometry(display, drawable, &root, &left, &top, &width, &height, &border, &depth) != 0 else { return }
            guard depth == 24 || depth == 32 else {
                refusal = VAError.invalidParameter.because("drawable depth \(depth) (24 or 32 bits are drawn)")
                return
            }
            let gc = XCreateGC(display, drawable, 0, nil)
            defer { XFreeGC(display, gc) }
            if clear {
                XSetForeground(display, gc, 0)
                XFillRectangle(display, drawable, gc, 0, 0, width, height)
            }
            if !clip.isEmpty {
                var rectangles = clip.map { XRectangle(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
                XSetClipRectangles(display, gc, 0, 0, &rectangles, Int32(rectangles.count), Unsorted)
            }
            picture.withImage(depth: Int32(depth)) { image in
                _ = XPutImage(display, drawable, gc, image, 0, 0, Int32(x), Int32(y), UInt32(picture.width), UInt32(picture.height))
            }
        }
        if let refusal { throw refusal }
        if failed != 0 { throw VAError.invalidParameter.because("X error \(failed) drawing on drawable 0x\(String(drawable, radix: 16))") }
    }
}

extension PresentedPicture {
    /// The pixels as a ZPixmap XImage of `depth` (32 bits a pixel, little-endian), valid inside `body`.
    func withImage(depth: Int32, _ body: (UnsafeMutablePointer<XImage>) -> Void) {
        var bytes = pixels
        bytes.withUnsafeMutableBytes { raw in
            var image = XImage()
            image.width = Int32(width)
            image.height = Int32(height)
            image.format = ZPixmap
            image.data = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            image.byte_order = LSBFirst
            image.bitmap_unit = 32
            image.bitmap_bit_order = LSBFirst
            image.bitmap_pad = 32
            image.depth = depth
            image.bytes_per_line = Int32(width * 4)
            image.bits_per_pixel = 32
            image.red_mask = 0xFF0000
            image.green_mask = 0xFF00
            image.blue_mask = 0xFF
            guard XInitImage(&image) != 0 else { return }
            body(&image)
        }
    }
}

/// Catches the X errors of requests made on one display (a destroyed or foreign drawable) instead of letting
/// Xlib's default handler exit the client. The handler is process-wide: it is swapped in for the requests
/// and the XSync that flushes them, under a lock, and errors of other displays go to the handler it replaced.
enum X11ErrorTrap {
    private static let lock = Lock()
    nonisolated(unsafe) private static var trappedDisplay: OpaquePointer?
    nonisolated(unsafe) private static var firstError: UInt8 = 0
    nonisolated(unsafe) private static var previousHandler: XErrorHandler?

    /// Runs `body`'s requests and waits for the server to process them; returns the first X error code (0: none).
    static func run(on display: OpaquePointer, _ body: () -> Void) -> UInt8 {
        lock.withLock {
            trappedDisplay = display
            firstError = 0
            previousHandler = XSetErrorHandler { display, event in
                guard display == X11ErrorTrap.trappedDisplay else { return X11ErrorTrap.previousHandler?(display, event) ?? 0 }
                if X11ErrorTrap.firstError == 0 { X11ErrorTrap.firstError = event?.pointee.error_code ?? 1 }
                return 0
            }
            body()
            XSync(display, 0)
            XSetErrorHandler(previousHandler)
            trappedDisplay = nil
            return firstError
        }
    }
}
