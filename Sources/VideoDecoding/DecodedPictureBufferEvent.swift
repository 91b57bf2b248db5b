/// What a change to the decoded picture buffer did, in order.
public enum DecodedPictureBufferEvent<Picture: Hashable & Sendable>: Hashable, Sendable {
    /// Output in display order.
    case output(Picture)
    /// Dropped without output (no_output_of_prior_pics_flag, NoOutputOfPriorPicsFlag).
    case discarded(Picture)
    /// The picture left the DPB: its surface can be reused once any output of it is done.
    case removed(PictureID)
}

extension DecoderEvent where PictureID == VideoDecoding.PictureID {
    /// The decoding process's event for a DPB event: a picture that left the DPB is released. Inlinable: each codec's
    /// decoding process turns every DPB event through it, and across the module it ran unspecialised (generic metadata
    /// looked up per event).
    @inlinable
    public init(_ event: DecodedPictureBufferEvent<Picture>) {
        switch event {
        case .output(let picture): self = .output(picture)
        case .discarded(let picture): self = .discarded(picture)
        case .removed(let id): self = .released(id)
        }
    }
}
