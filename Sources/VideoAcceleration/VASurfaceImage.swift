import CLibVA

/// A surface's pixels as a VA image of one layout, for reading them out or writing them in: the surface's
/// own memory where the driver can derive it in that layout (vaDeriveImage), else an image of its own,
/// filled from the surface (vaGetImage) for reading, or put back into it (``put(into:width:height:)``,
/// vaPutImage) after writing. The one place the derive-or-create choice is made.
struct VASurfaceImage {
    enum Use { case reading, writing }

    /// The first two planes of a mapped image (luma and interleaved chroma): where they start, and their pitches.
    struct Planes {
        let base: UnsafeMutableRawPointer
        let offsets: (Int, Int)
        let pitches: (Int, Int)
    }

    let image: VAImage
    /// The surface's own memory: what is written there needs no vaPutImage.
    let isDerived: Bool
    private let connection: VADisplayConnection

    /// `derive: false` takes the vaCreateImage path even where vaDeriveImage works (for tests).
    init(_ connection: VADisplayConnection, surface: VASurfaceID, fourcc: UInt32, width: Int, height: Int,
         for use: Use, derive: Bool = true) throws(VAError) {
        self.connection = connection
        let display = connection.display
        var image = VAImage()
        var derived = derive && vaDeriveImage(display, surface, &image) == VA_STATUS_SUCCESS
        if derived && image.format.fourcc != fourcc {
            vaDestroyImage(display, image.image_id)
            derived = false
        }
        if !derived {
            image = try connection.createImage(fourcc: fourcc, width: width, height: height)
            if use == .reading {
                let status = vaGetImage(display, surface, 0, 0, UInt32(width), UInt32(height), image.image_id)
                if status != VA_STATUS_SUCCESS {
                    vaDestroyImage(display, image.image_id)
                    throw VAError("vaGetImage(surface \(surface))", status)
                }
            }
        }
        self.image = image
        self.isDerived = derived
    }

    func destroy() { vaDestroyImage(connection.display, image.image_id) }

    /// Maps the image's buffer; ``unmap()`` when done.
    func map() throws(VAError) -> Planes {
        var mapped: UnsafeMutableRawPointer?
        try VAError.check(vaMapBuffer(connection.display, image.buf, &mapped), "vaMapBuffer(image \(image.image_id))")
        guard let base = mapped else {
            vaUnmapBuffer(connection.display, image.buf)
            throw VAError("vaMapBuffer(image \(image.image_id))", VAStatus(VA_STATUS_ERROR_OPERATION_FAILED), detail: "no address")
        }
        let pitches = withUnsafeBytes(of: image.pitches) { ($0.load(fromByteOffset: 0, as: UInt32.self), $0.load(fromByteOffset: 4, as: UInt32.self)) }
        let offsets = withUnsafeBytes(of: image.offsets) { ($0.load(fromByteOffset: 0, as: UInt32.self), $0.load(fromByteOffset: 4, as: UInt32.self)) }
        return Planes(base: base, offsets: (Int(offsets.0), Int(offsets.1)), pitches: (Int(pitches.0), Int(pitches.1)))
    }

    func unmap() { vaUnmapBuffer(connection.display, image.buf) }

    /// Copies the image's top left `width` x `height` into `surface` (for an image that is not derived).
    func put(into surface: VASurfaceID, width: Int, height: Int) throws(VAError) {
        try VAError.check(vaPutImage(connection.display, surface, image.image_id, 0, 0, UInt32(width), UInt32(height),
                                     0, 0, UInt32(width), UInt32(height)), "vaPutImage(surface \(surface))")
    }
}
