import CLibVA

/// vaPutSurface (va_x11.h): a decoded surface shown on an X11 drawable of the client's display.
extension Driver {
    /// Shows `source` of the surface scaled into `destination` of `drawable`, once its picture is done.
    /// `x11Display` is the driver context's native display when the client opened an X11 display (nil
    /// otherwise: nothing to draw on). Field flags are not honoured: the frame is shown.
    func putSurface(surfaceID: VASurfaceID, x11Display: OpaquePointer?, drawable: UInt, source: VARectangle, destination: VARectangle,
                    clip: [VARectangle], flags: UInt32) throws(VAError) {
        guard persona.presentation == .x11 else { throw VAError.unimplemented.because("the \(persona.name) persona cannot present") }
        let surface = try surfaces.get(surfaceID)
        guard let x11Display else { throw VAError(VA_STATUS_ERROR_INVALID_DISPLAY).because("vaPutSurface needs an X11 VA display") }
        guard drawable != 0 else { throw VAError.invalidParameter.because("no drawable") }
        waitUntilDone(surface)
        let picture = try PresentedPicture(surface: surface, source: source, width: Int(destination.width), height: Int(destination.height),
                                           bt709: flags & UInt32(VA_SRC_BT709) != 0)
        try X11Drawing.draw(picture, display: x11Display, drawable: drawable, x: Int(destination.x), y: Int(destination.y),
                            clip: clip, clear: flags & UInt32(VA_CLEAR_DRAWABLE) != 0)
    }
}
