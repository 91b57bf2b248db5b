import CLibVA

/// A VA image: the VAImage description handed to the client and the buffer that holds its pixels.
struct Image {
    var description: VAImage
    /// The surface whose memory the buffer aliases (vaDeriveImage), if any.
    let derivedFrom: VASurfaceID?
}
