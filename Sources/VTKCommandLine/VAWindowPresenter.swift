import DecompressionSession
import PixelConversion
import VideoAcceleration
import VideoDisplay
import VTKMedia
import X11Display

/// VA's own presentation path for `vtk play`: vaPutSurface draws each picture into the player's window (the
/// driver converts and scales), on a VA display opened on the same X server. A picture still in a surface
/// of that display (a surface-backed frame) is shown from there, with no copy; any other goes back into a
/// VA surface first. Used when the device can present; otherwise the window puts RGB itself (XShm).
final class VAWindowPresenter: FramePresenter {
    let window: X11Window
    private let presenter: VAFramePresenter
    private var scratch: PixelBuffer?

    init(window: X11Window, connection: VADisplayConnection) throws(VAError) {
        self.window = window
        presenter = try VAFramePresenter(connection: connection)
    }

    func present(_ frame: DisplayFrame) throws(DisplayError) {
        try window.prepareForVA(width: frame.width, height: frame.height)
        do {
            let destination = PresentationRectangle(width: frame.width, height: frame.height)
            if let surface = frame.image.surface, surface.connection === presenter.connection {
                try presenter.present(surface: surface.id, source: surface.rectangle, to: window.windowID, destination: destination)
            } else {
                let picture = PixelConverter.convert(frame.pixelBuffer, to: .nv12, reusing: &scratch)
                try presenter.present(picture, to: window.windowID, destination: destination)
            }
        } catch {
            throw DisplayError.presentation("vaPutSurface on window 0x\(String(window.windowID, radix: 16)): \(error)")
        }
    }
}
