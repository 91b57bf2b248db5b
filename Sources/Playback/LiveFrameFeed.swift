import VideoDisplay

/// Decoded frames arriving from a live source (an RTP receiver on its own thread), in display order, for a
/// ``Player`` to show as they come.
public protocol LiveFrameFeed: AnyObject {
    /// The frames decoded since the last call.
    func takeFrames() -> [DisplayFrame]
    /// The reception ended and every frame was taken.
    var isFinished: Bool { get }
    /// Ends the reception (again: nothing).
    func stopReceiving()
    /// What the reception amounted to, for the player's summary ("N RTP packets, M lost, ..."), once stopped.
    var summary: String? { get }
}
