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
        guard var format = imageFormats().first(where: { $0.fourcc == UInt32(VA_FOURCC_NV12) }) else {
            throw VAError("vaQueryImageFormats", VAStatus(VA_STATUS_ERROR_INVALID_IMAGE_FORMAT), detail: "the driver (\(vendor)) offers no NV12 image format")
        }
        var image = VAImage()
        try VAError.check(vaCreateImage(display, &format, Int32(width), Int32(height), &image), "vaCreateImage(NV12)")
        return image
    }
}
