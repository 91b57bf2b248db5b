import VideoDisplay
import VTKMedia

/// What a player plays from a file: samples in decoding order with their times, from any point (a seek), and
/// again and again when looping. Implementations read their input as they go (``MP4PlaybackSource``,
/// ``AnnexBPlaybackSource``), never all of it into memory.
public protocol PlaybackSource: AnyObject {
    /// How long one frame lasts.
    var frameDuration: MediaTime { get }
    /// The time of the first frame of a pass.
    var firstTime: Double { get }
    /// The next sample in decoding order, times shifted for the pass; nil at the end (never when looping).
    func next() throws(PlaybackError) -> PlaybackSample?
    /// Goes to the last sync sample at or before `time` (the first one when none is), in the pass `time` falls
    /// in when looping; returns the time decoding starts from.
    @discardableResult
    func seek(to time: Double) throws(PlaybackError) -> Double
}

/// Why a file cannot be played.
public enum PlaybackError: Error, CustomStringConvertible, Equatable {
    /// The file cannot be opened or read.
    case unreadable(String)
    /// Nothing to play: no sample, or no coded picture.
    case empty(String)
    /// The container is damaged.
    case container(String)

    public var description: String {
        switch self {
        case .unreadable(let why), .empty(let why), .container(let why): why
        }
    }
}
