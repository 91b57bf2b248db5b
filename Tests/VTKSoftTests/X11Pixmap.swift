import CX11
import VTKTestSupport

/// A 24-bit pixmap on the test's Xvfb, made on the test's own X connection: vaPutSurface draws on it from the VA
/// display's connection, and its pixels are read back with XGetImage (no window, so nothing can obscure it).
final class X11Pixmap {
    let display: OpaquePointer
    let pixmap: Pixmap
    let width: Int, height: Int

    /// Filled with `fill` (0xRRGGBB), so that what vaPutSurface did not touch can be told apart.
    init?(width: Int, height: Int, fill: UInt32, on server: Xvfb) {
        guard let display = XOpenDisplay(server.display) else { return nil }
        self.display = display
        self.width = width
        self.height = height
        pixmap = XCreatePixmap(display, XDefaultRootWindow(display), UInt32(width), UInt32(height), 24)
        let gc = XCreateGC(display, pixmap, 0, nil)
        XSetForeground(display, gc, UInt(fill))
        XFillRectangle(display, pixmap, gc, 0, 0, UInt32(width), UInt32(height))
        XFreeGC(display, gc)
        XSync(display, 0)  // the pixmap exists on the server before another connection draws on it
    }

    deinit {
        XFreePixmap(display, pixmap)
        XCloseDisplay(display)
    }

    /// The drawable's XID, as VADisplayConnection.present takes it.
    var drawable: UInt { UInt(pixmap) }

    /// Every pixel as 0xRRGGBB, row by row.
    func pixels() -> [UInt32] {
        guard let image = XGetImage(display, pixmap, 0, 0, UInt32(width), UInt32(height), ~0, ZPixmap) else { return [] }
        defer { _ = image.pointee.f.destroy_image(image) }
        // A 24-bit ZPixmap on Xvfb: 32 bits a pixel, in the server's (and this machine's) little-endian order.
        guard image.pointee.bits_per_pixel == 32, image.pointee.byte_order == LSBFirst, let data = image.pointee.data else { return [] }
        let rowBytes = Int(image.pointee.bytes_per_line)
        var out: [UInt32] = []
        out.reserveCapacity(width * height)
        let bytes = UnsafeRawPointer(data)
        for y in 0..<height {
            for x in 0..<width { out.append(bytes.loadUnaligned(fromByteOffset: y * rowBytes + x * 4, as: UInt32.self) & 0xFF_FFFF) }
        }
        return out
    }
}
