import CLibYUV
import VTKMedia

/// Conversions between pixel layouts, through libyuv's SIMD kernels.
public enum PixelConverter {
    /// The same image in `format` (the buffer itself when it already is).
    public static func convert(_ buffer: PixelBuffer, to format: PixelFormat) -> PixelBuffer {
        guard buffer.format != format else { return buffer }
        var out = PixelBuffer(uninitializedFormat: format, width: buffer.width, height: buffer.height)
        write(buffer, into: &out)
        return out
    }

    /// The same image in `format`, written into `storage`'s memory when it already has that format and
    /// size with unpadded rows and nobody else holds it (a frame-to-frame scratch buffer), so that a
    /// stream of frames is converted without allocating per frame. Returns `buffer` itself when it
    /// already is in `format`.
    public static func convert(_ buffer: PixelBuffer, to format: PixelFormat, reusing storage: inout PixelBuffer?) -> PixelBuffer {
        guard buffer.format != format else { return buffer }
        var out: PixelBuffer
        if storage?.hasPackedLayout(format: format, width: buffer.width, height: buffer.height) == true {
            out = storage.take()!  // moved out, so that `out` is the only reference and writing to it does not copy
        } else {
            storage = nil
            out = PixelBuffer(uninitializedFormat: format, width: buffer.width, height: buffer.height)
        }
        write(buffer, into: &out)
        storage = out
        return out
    }

    /// An I420 buffer of `width` x `height` from NV12 planes in memory (a mapped VA surface, say), in one
    /// pass: the chroma is de-interleaved while it is copied out.
    public static func i420(nv12Luma luma: UnsafeRawPointer, lumaPitch: Int, chroma: UnsafeRawPointer, chromaPitch: Int,
                            width: Int, height: Int) -> PixelBuffer {
        var out = PixelBuffer(uninitializedFormat: .i420, width: width, height: height)
        let strides = out.planes.map { Int32($0.bytesPerRow) }
        out.planes.withUnsafeMutableBufferPointer { planes in
            planes[0].bytes.withUnsafeMutableBufferPointer { dy in
                planes[1].bytes.withUnsafeMutableBufferPointer { du in
                    planes[2].bytes.withUnsafeMutableBufferPointer { dv in
                        _ = NV12ToI420(luma.assumingMemoryBound(to: UInt8.self), Int32(lumaPitch),
                                       chroma.assumingMemoryBound(to: UInt8.self), Int32(chromaPitch),
                                       dy.baseAddress, strides[0], du.baseAddress, strides[1], dv.baseAddress, strides[2],
                                       Int32(width), Int32(height))
                    }
                }
            }
        }
        return out
    }

    /// Writes the I420 `buffer` as NV12 into planes in memory (a mapped VA surface, say): its luma rows
    /// `lumaPitch` bytes apart, its interleaved chroma rows `chromaPitch` apart.
    public static func writeNV12(_ buffer: PixelBuffer, luma: UnsafeMutableRawPointer, lumaPitch: Int,
                                 chroma: UnsafeMutableRawPointer, chromaPitch: Int) {
        precondition(buffer.format == .i420)
        let src = buffer.planes
        _ = I420ToNV12(src[0].bytes, Int32(src[0].bytesPerRow), src[1].bytes, Int32(src[1].bytesPerRow), src[2].bytes, Int32(src[2].bytesPerRow),
                       luma.assumingMemoryBound(to: UInt8.self), Int32(lumaPitch), chroma.assumingMemoryBound(to: UInt8.self), Int32(chromaPitch),
                       Int32(buffer.width), Int32(buffer.height))
    }

    /// Converts `buffer` into `out` (same size, the other format), writing the planes in place.
    private static func write(_ buffer: PixelBuffer, into out: inout PixelBuffer) {
        out.presentationTime = buffer.presentationTime
        out.duration = buffer.duration
        let w = Int32(buffer.width), h = Int32(buffer.height)
        let src = buffer.planes
        let strides = out.planes.map { Int32($0.bytesPerRow) }
        switch (buffer.format, out.format) {
        case (.nv12, .i420):
            out.planes.withUnsafeMutableBufferPointer { planes in
                planes[0].bytes.withUnsafeMutableBufferPointer { dy in
                    planes[1].bytes.withUnsafeMutableBufferPointer { du in
                        planes[2].bytes.withUnsafeMutableBufferPointer { dv in
                            _ = NV12ToI420(src[0].bytes, Int32(src[0].bytesPerRow), src[1].bytes, Int32(src[1].bytesPerRow),
                                           dy.baseAddress, strides[0], du.baseAddress, strides[1], dv.baseAddress, strides[2], w, h)
                        }
                    }
                }
            }
        case (.i420, .nv12):
            out.planes.withUnsafeMutableBufferPointer { planes in
                planes[0].bytes.withUnsafeMutableBufferPointer { dy in
                    planes[1].bytes.withUnsafeMutableBufferPointer { duv in
                        _ = I420ToNV12(src[0].bytes, Int32(src[0].bytesPerRow), src[1].bytes, Int32(src[1].bytesPerRow),
                                       src[2].bytes, Int32(src[2].bytesPerRow), dy.baseAddress, strides[0], duv.baseAddress, strides[1], w, h)
                    }
                }
            }
        default:
            TenBitConversion.write(buffer, into: &out)
        }
    }
}

extension PixelConverter {
    /// Packed 8-bit R, G, B bytes (BT.601 limited range, as libyuv's I420ToRAW), for pictures.
    public static func rgb(_ buffer: PixelBuffer) -> [UInt8] {
        let source = convert(buffer, to: .i420)
        let rgbCount = buffer.width * buffer.height * 3
        var rgb = [UInt8](unsafeUninitializedCapacity: rgbCount) { _, initialized in initialized = rgbCount }
        let p = source.planes
        rgb.withUnsafeMutableBufferPointer { out in
            _ = I420ToRAW(p[0].bytes, Int32(p[0].bytesPerRow), p[1].bytes, Int32(p[1].bytesPerRow), p[2].bytes, Int32(p[2].bytesPerRow),
                          out.baseAddress, Int32(buffer.width * 3), Int32(buffer.width), Int32(buffer.height))
        }
        return rgb
    }
}
