import DecompressionSession
import VTKMedia

/// A decoded picture on the layer's timeline: its pixels, or the VA surface holding it, and when it is to be seen.
public struct DisplayFrame: Sendable {
    /// Where the picture is: in memory, or in a decoder's surface (shown there by a VA presenter).
    public var image: FrameImage
    /// Seconds on the media timeline.
    public var presentationTime: Double
    /// Seconds the picture lasts (until the next one).
    public var duration: Double

    public init(pixelBuffer: PixelBuffer, presentationTime: Double, duration: Double) {
        self.init(image: .pixels(pixelBuffer), presentationTime: presentationTime, duration: duration)
    }

    public init(image: FrameImage, presentationTime: Double, duration: Double) {
        self.image = image
        self.presentationTime = presentationTime
        self.duration = duration
    }

    /// The pixels: read back now when the picture is in a surface (see ``FrameImage/pixelBuffer``).
    public var pixelBuffer: PixelBuffer {
        get { image.pixelBuffer }
        set { image = .pixels(newValue) }
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
}

/// What the layer puts pictures on: an X11 window (XShm/XPutImage, or VA's own vaPutSurface), or a test's recorder.
public protocol FramePresenter: AnyObject {
    func present(_ frame: DisplayFrame) throws(DisplayError)
}

public enum DisplayError: Error, CustomStringConvertible, Equatable {
    /// No display to show on (DISPLAY unset, or the server refused).
    case noDisplay(String)
    /// The display server refused a request.
    case presentation(String)
    /// A sample could not be decoded.
    case decode(String)

    public var description: String {
        switch self {
        case .noDisplay(let why), .presentation(let why), .decode(let why): why
        }
    }
}
