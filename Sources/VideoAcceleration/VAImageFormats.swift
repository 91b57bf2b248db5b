import CLibVA

extension VADisplayConnection {
    /// The image formats the driver offers (vaQueryImageFormats).
    public func imageFormats() -> [VAImageFormat] {
        var list = [VAImageFormat](repeating: VAImageFormat(), count: Int(max(0, vaMaxNumImageFormats(display))))
        var count: Int32 = 0
        guard !list.isEmpty, vaQueryImageFormats(display, &list, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(list.prefix(Int(max(0, count))))
    }

    /// A vaCreateImage of the driver's own NV12 format, as vaQueryImageFormats gives it (byte order and
    /// bits per pixel as the driver states them, not guessed).
    public func createNV12Image(width: Int, height: Int) throws(VAError) -> VAImage {
        try createImage(fourcc: UInt32(VA_FOURCC_NV12), width: width, height: height)
    }

    /// An image of the driver's own format with that fourcc (NV12, P010 …), as vaQueryImageFormats lists it.
    public func createImage(fourcc: UInt32, width: Int, height: Int) throws(VAError) -> VAImage {
        guard var format = imageFormats().first(where: { $0.fourcc == fourcc }) else {
            throw VAError("vaQueryImageFormats", VAStatus(VA_STATUS_ERROR_INVALID_IMAGE_FORMAT),
                          detail: "the driver (\(vendor)) offers no \(FourCC.text(fourcc)) image format")
        }
        var image = VAImage()
        try VAError.check(vaCreateImage(display, &format, Int32(width), Int32(height), &image), "vaCreateImage(\(FourCC.text(fourcc)))")
        return image
    }
}

/// A fourcc as its four characters.
enum FourCC {
    static func text(_ fourcc: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }, as: UTF8.self)
    }
}
