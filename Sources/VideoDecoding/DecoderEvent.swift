/// What a decoding process (H.264 or H.265, clause 8 and Annex C) asks of whoever carries it out, in
/// order. The events are the same for every codec; only the types they carry are the codec's own.
public enum DecoderEvent<Format: Hashable & Sendable, Request: Hashable & Sendable, Picture: Hashable & Sendable,
                         PictureID: Hashable & Sendable, Problem: Hashable & Sendable>: Hashable, Sendable {
    /// A new sequence begins (first picture, or parameter sets that need a new decoder): size the surface
    /// pool for `dpbCapacity` pictures plus the output queue.
    ///
    /// This case and ``decode(_:)`` carry their payload boxed (`indirect`): a format or request holds whole
    /// parameter sets (H.264's request was 688 bytes), and inline they sized every event, so that a picture's
    /// few events took an allocation too large for malloc's per-thread cache.
    indirect case newSequence(Format, dpbCapacity: Int)
    /// Decode this picture into a new surface for `request.picture.id`.
    indirect case decode(Request)
    /// Show this picture (display order).
    case output(Picture)
    /// The picture was dropped without output (no_output_of_prior_pics_flag, or skipped before a keyframe).
    case discarded(Picture)
    /// The picture left the DPB: its surface can return to the pool once its output is done.
    case released(PictureID)
    /// Something was wrong with the input; decoding continues.
    case problem(Problem)
}
