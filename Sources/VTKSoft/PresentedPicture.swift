import CLibVA
import CLibYUV

/// What vaPutSurface draws: a rectangle of a surface converted to 32-bit RGB by libyuv (its "ARGB", bytes
/// B, G, R, X: the pixel layout of a 24- and 32-bit TrueColor X drawable) and scaled to the destination size.
struct PresentedPicture {
    let width: Int
    let height: Int
    /// `width * 4` bytes a row.
    private(set) var pixels: [UInt8]

    /// Sizes beyond this are refused rather than allocated (a 16-bit VA rectangle reaches 65535).
    static let maxSide = 8192

    /// `source` of `surface` (clamped to the picture) at `width` x `height`, with the BT.709 matrix when
    /// `bt709` (VA_SRC_BT709), else BT.601; limited range, as VA decodes.
    init(surface: Surface, source: VARectangle, width: Int, height: Int, bt709: Bool) throws(VAError) {
        guard (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height) else { throw VAError.invalidParameter.because("destination \(width)x\(height)") }
        // 4:2:0 chroma: the crop starts on an even sample.
        let x = max(Int(source.x), 0) & ~1, y = max(Int(source.y), 0) & ~1
        let cropWidth = min(Int(source.x) + Int(source.width), surface.width) - x
        let cropHeight = min(Int(source.y) + Int(source.height), surface.height) - y
        guard cropWidth > 0, cropHeight > 0 else { throw VAError.invalidParameter.because("source rectangle outside the \(surface.width)x\(surface.height) surface") }
        self.width = width
        self.height = height
        let matrix = bt709 ? vtk_yuv_bt709() : vtk_yuv_bt601()
        var converted = [UInt8](repeating: 0, count: cropWidth * cropHeight * 4)
        converted.withUnsafeMutableBufferPointer { out in
            let rgb = out.baseAddress, rgbStride = Int32(cropWidth * 4)
            switch surface.format {
            case .nv12:
                _ = NV12ToARGBMatrix(surface.luma + y * surface.pitch + x, Int32(surface.pitch),
                                     surface.chroma + y / 2 * surface.pitch + x, Int32(surface.pitch),
                                     rgb, rgbStride, matrix, Int32(cropWidth), Int32(cropHeight))
            case .p010:
                // libyuv's 16-bit strides count samples.
                let samples = surface.pitch / 2
                let luma = UnsafeRawPointer(surface.luma).assumingMemoryBound(to: UInt16.self)
                let chroma = UnsafeRawPointer(surface.chroma).assumingMemoryBound(to: UInt16.self)
                _ = P010ToARGBMatrix(luma + y * samples + x, Int32(samples), chroma + y / 2 * samples + x, Int32(samples),
                                     rgb, rgbStride, matrix, Int32(cropWidth), Int32(cropHeight))
            }
        }
        guard cropWidth != width || cropHeight != height else {
            pixels = converted
            return
        }
        var scaled = [UInt8](repeating: 0, count: width * height * 4)
        scaled.withUnsafeMutableBufferPointer { out in
            _ = ARGBScale(converted, Int32(cropWidth * 4), Int32(cropWidth), Int32(cropHeight),
                          out.baseAddress, Int32(width * 4), Int32(width), Int32(height), kFilterBilinear)
        }
        pixels = scaled
    }
}
