import DecompressionSession
import VTKMedia

/// A decoded picture on the layer's timeline: the decoder's own image (its pixels, or the VA surface holding
/// it), which carries when it is to be seen, and how long it lasts. Times stay ``MediaTime``s; the layer turns
/// them into seconds only where it schedules against its clock.
public struct DisplayFrame: Sendable {
    /// Where the picture is (in memory, or in a decoder's surface, shown there by a VA presenter), and its
    /// presentation time.
    public var image: FrameImage
    /// How long the picture lasts (until the next one).
    public var duration: MediaTime

    /// `image` at its own presentation time.
    public init(image: FrameImage, duration: MediaTime) {
        self.image = image
        self.duration = duration
    }

    /// `image` restamped at `presentationTime` (a stream whose frames the player times).
    public init(image: FrameImage, presentationTime: MediaTime, duration: MediaTime) {
        self.image = image
        self.image.presentationTime = presentationTime
        self.duration = duration
    }

    public init(pixelBuffer: PixelBuffer, presentationTime: MediaTime, duration: MediaTime) {
        self.init(image: .pixels(pixelBuffer), presentationTime: presentationTime, duration: duration)
    }

    /// The decoder's frame, at its own presentation time.
    public init(_ frame: DecodedFrame, duration: MediaTime) {
        self.init(image: frame.image, duration: duration)
    }

    /// When the picture is to be seen: the image's own time.
    public var presentationTime: MediaTime {
        get { image.presentationTime }
        set { image.presentationTime = newValue }
    }

    /// The pixels: read back now when the picture is in a surface (see ``FrameImage/pixelBuffer``). Pixels set
    /// here keep the frame's presentation time.
    public var pixelBuffer: PixelBuffer {
        get { image.pixelBuffer }
        set {
            let time = presentationTime
            image = .pixels(newValue)
            image.presentationTime = time
        }
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
