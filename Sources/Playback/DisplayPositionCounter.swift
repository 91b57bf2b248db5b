/// Where decoding from a sync sample shows its first picture, in display positions of the whole stream,
/// counted from the pictures' roles as an Annex B stream is read, without decoding anything: the decoder's
/// own output order (POC and bumping) puts the frames after it, one position each.
///
/// Every picture decoded before a random access point is output before it (H.264 8.2.1 for IDR pictures;
/// H.265 7.4.2.2), so a sync sample's first position is the number of pictures output before it in decoding
/// order, plus the leading pictures that are skipped when decoding starts there (RASL, H.265 8.1.3), which
/// come before its other leading pictures in output order (H.265 7.4.2.2).
/// Pictures before the first sync sample and the RASL pictures of a random access point that starts the
/// stream are never output and hold no position.
public struct DisplayPositionCounter: Sendable {
    /// Pictures output before the next one, in a decode from the start of the stream.
    private(set) var outputBefore = 0
    private var started = false
    /// The leading pictures of the first random access point are being read: its RASL pictures are never output.
    private var inFirstLeading = false

    public init() {}

    /// Notes the next picture in decoding order. For a sync sample, returns the display position of the first
    /// picture decoding from it shows; `skippedLeading` counts the RASL pictures that follow it.
    public mutating func add(_ role: PictureRole, skippedLeading: Int = 0) -> Int? {
        guard started else {
            guard role.isSync else { return nil }  // never output: the decoder waits for a sync sample
            started = true
            inFirstLeading = role == .randomAccessPoint
            outputBefore += 1
            return 0
        }
        if inFirstLeading {
            if role == .skippedLeading { return nil }
            if !role.isLeading { inFirstLeading = false }
        }
        defer { outputBefore += 1 }
        guard role.isSync else { return nil }
        return outputBefore + (role == .randomAccessPoint ? skippedLeading : 0)
    }
}
