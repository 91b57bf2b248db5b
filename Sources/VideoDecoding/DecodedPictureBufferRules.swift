/// What one codec adds to ``DecodedPictureBuffer``: when output is due before the buffer is full, what a
/// buffer full of references gives up, and any picture held back from output (H.264 C.4.5.3, H.265 C.5.2.2).
/// The value keeps the state those rules need.
public protocol DecodedPictureBufferRules: Sendable {
    associatedtype Picture: BufferedPicture
    /// A picture waiting for output that may not leave yet (H.264: a first field whose pair may still come).
    func holdsBack(_ picture: Picture) -> Bool
    /// Output is due although the buffer is not full (reorder and latency limits).
    func requiresOutput(_ buffer: DecodedPictureBuffer<Self>) -> Bool
    /// The reference picture a buffer full of references drops rather than fail: only a damaged stream
    /// holds more references than the buffer.
    func evictionCandidate(_ buffer: DecodedPictureBuffer<Self>) -> PictureID?
    /// The buffer was emptied (C.4.4, C.5.2.2): forget what was kept about its pictures.
    mutating func bufferEmptied()
}

extension DecodedPictureBufferRules {
    public func holdsBack(_ picture: Picture) -> Bool { false }
    public mutating func bufferEmptied() {}
}
