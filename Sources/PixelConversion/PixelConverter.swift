import CLibYUV
import VTKMedia

/// Conversions between pixel layouts, through libyuv's SIMD kernels.
public enum PixelConverter {
    /// The same image in `format` (the buffer itself when it already is).
    public static func convert(_ buffer: PixelBuffer, to format: PixelFormat) -> PixelBuffer {
        guard buffer.format != format else { return buffer }
        var out = PixelBuffer(format: format, width: buffer.width, height: buffer.height)
        out.presentationTime = buffer.presentationTime
        out.duration = buffer.duration
        let w = Int32(buffer.width), h = Int32(buffer.height)
        let src = buffer.planes
        var d0 = out.planes[0].bytes, d1 = out.planes[1].bytes, d2 = out.planes.count > 2 ? out.planes[2].bytes : []
        let strides = out.planes.map { Int32($0.bytesPerRow) }
        switch (buffer.format, format) {
        case (.nv12, .i420):
            d0.withUnsafeMutableBufferPointer { dy in
                d1.withUnsafeMutableBufferPointer { du in
                    d2.withUnsafeMutableBufferPointer { dv in
                        _ = NV12ToI420(src[0].bytes, Int32(src[0].bytesPerRow), src[1].bytes, Int32(src[1].bytesPerRow),
                                       dy.baseAddress, strides[0], du.baseAddress, strides[1], dv.baseAddress, strides[2], w, h)
                    }
                }
            }
        case (.i420, .nv12):
            d0.withUnsafeMutableBufferPointer { dy in
                d1.withUnsafeMutableBufferPointer { duv in
                    _ = I420ToNV12(src[0].bytes, Int32(src[0].bytesPerRow), src[1].bytes, Int32(src[1].bytesPerRow),
                                   src[2].bytes, Int32(src[2].bytesPerRow), dy.baseAddress, strides[0], duv.baseAddress, strides[1], w, h)
                }
            }
        default:
            break
        }
        out.planes[0].bytes = d0
        out.planes[1].bytes = d1
        if out.planes.count > 2 { out.planes[2].bytes = d2 }
        return out
    }
}

extension PixelConverter {
    /// Packed 8-bit R, G, B bytes (BT.601 limited range, as libyuv's I420ToRAW), for pictures.
    public static func rgb(_ buffer: PixelBuffer) -> [UInt8] {
        let source = convert(buffer, to: .i420)
        var rgb = [UInt8](repeating: 0, count: buffer.width * buffer.height * 3)
        let p = source.planes
        rgb.withUnsafeMutableBufferPointer { out in
            _ = I420ToRAW(p[0].bytes, Int32(p[0].bytesPerRow), p[1].bytes, Int32(p[1].bytesPerRow), p[2].bytes, Int32(p[2].bytesPerRow),
                          out.baseAddress, Int32(buffer.width * 3), Int32(buffer.width), Int32(buffer.height))
        }
        return rgb
    }
}
