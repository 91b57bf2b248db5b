import PixelConversion
import VideoAcceleration
import VideoDisplay
import VTKMedia
import X11Display

/// VA's own presentation path for `vtk play`: each decoded picture goes back into a VA surface and
/// vaPutSurface draws it into the player's window (the driver converts and scales), on a VA display opened
/// on the same X server. Used when the device can present; otherwise the window puts RGB itself (XShm).
final class VAWindowPresenter: FramePresenter {
    let window: X11Window
    private let presenter: VAFramePresenter
    private var scratch: PixelBuffer?

    init(window: X11Window, connection: VADisplayConnection) throws(VAError) {
        self.window = window
        presenter = try VAFramePresenter(connection: connection)
    }

    func present(_ frame: DisplayFrame) throws(DisplayError) {
        let picture = PixelConverter.convert(frame.pixelBuffer, to: .nv12, reusing: &scratch)
        try window.prepareForVA(width: picture.width, height: picture.height)
        do {
            try presenter.present(picture, to: window.windowID, destination: PresentationRectangle(width: picture.width, height: picture.height))
        } catch {
            throw DisplayError.presentation("vaPutSurface on window 0x\(String(window.windowID, radix: 16)): \(error)")
        }
    }
}
