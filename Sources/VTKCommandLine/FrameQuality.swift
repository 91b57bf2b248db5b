import CLibYUV
import PixelConversion
import VTKMedia

/// Sum of squared error, PSNR and SSIM of a frame against its source, per plane, through libyuv's SIMD
/// kernels (ComputeSumSquareErrorPlane, CalcFrameSsim).
struct FrameQuality {
    /// Squared error and sample count of Y, U, V.
    var squaredError: [UInt64]
    var samples: [Int]
    var ssimY: Double?

    /// PSNR is capped at this value: identical planes (zero error) get it instead of infinity.
    static let maximumPSNR = 100.0

    static func psnr(squaredError: Double, samples: Double) -> Double {
        guard samples > 0 else { return maximumPSNR }
        let mse = squaredError / samples
        guard mse > 0 else { return maximumPSNR }
        return min(maximumPSNR, 10 * log10(255.0 * 255.0 / mse))
    }

    var psnr: [Double] { (0..<3).map { Self.psnr(squaredError: Double(squaredError[$0]), samples: Double(samples[$0])) } }

    /// 6:1:1 weighted PSNR of Y, U and V (the convention of HEVC/VVC common test conditions).
    var weightedPSNR: Double {
        let p = psnr
        return (6 * p[0] + p[1] + p[2]) / 8
    }

    init(reference: PixelBuffer, decoded: PixelBuffer, ssim: Bool) {
        var scratch: PixelBuffer?
        self.init(reference: reference, decoded: decoded, ssim: ssim, scratch: &scratch)
    }

    /// The same, with the reference's chroma (NV12, interleaved) split into `scratch`, memory kept from frame
    /// to frame by the caller; its luma is measured where it is.
    init(reference: PixelBuffer, decoded: PixelBuffer, ssim: Bool, scratch: inout PixelBuffer?) {
        let a = Self.planar(reference, scratch: &scratch)
        let b = PixelConverter.convert(decoded, to: .i420)
        var errors: [UInt64] = []
        var counts: [Int] = []
        for plane in 0..<3 {
            let pa = a.planes[plane], pb = b.planes[plane]
            let width = plane == 0 ? a.width : a.chromaWidth
            let height = plane == 0 ? a.height : a.chromaHeight
            errors.append(ComputeSumSquareErrorPlane(pa.bytes, Int32(pa.bytesPerRow), pb.bytes, Int32(pb.bytesPerRow), Int32(width), Int32(height)))
            counts.append(width * height)
        }
        squaredError = errors
        samples = counts
        if ssim {
            ssimY = CalcFrameSsim(a.planes[0].bytes, Int32(a.planes[0].bytesPerRow), b.planes[0].bytes, Int32(b.planes[0].bytesPerRow),
                                  Int32(a.width), Int32(a.height))
        }
    }

    /// `buffer` as three planes (Y, U, V) of an I420 picture: itself when it is I420; for NV12, its own luma
    /// beside its chroma split into `scratch`; any other layout converted.
    private static func planar(_ buffer: PixelBuffer, scratch: inout PixelBuffer?) -> PixelBuffer {
        guard buffer.format == .nv12 else { return PixelConverter.convert(buffer, to: .i420) }
        var out = scratch.take().flatMap { $0.hasPackedLayout(format: .i420, width: buffer.width, height: buffer.height) ? $0 : nil }
            ?? PixelBuffer(uninitializedFormat: .i420, width: buffer.width, height: buffer.height)
        // The chroma planes are taken out while written (one access each), then put back.
        var u: [UInt8] = [], v: [UInt8] = []
        swap(&u, &out.planes[1].bytes)
        swap(&v, &out.planes[2].bytes)
        let uStride = out.planes[1].bytesPerRow, vStride = out.planes[2].bytesPerRow, interleaved = buffer.planes[1]
        u.withUnsafeMutableBufferPointer { uOut in
            v.withUnsafeMutableBufferPointer { vOut in
                interleaved.bytes.withUnsafeBufferPointer { uv in
                    SplitUVPlane(uv.baseAddress, Int32(interleaved.bytesPerRow), uOut.baseAddress, Int32(uStride), vOut.baseAddress, Int32(vStride),
                                 Int32(buffer.chromaWidth), Int32(buffer.chromaHeight))
                }
            }
        }
        swap(&u, &out.planes[1].bytes)
        swap(&v, &out.planes[2].bytes)
        scratch = out
        // The luma is the reference's own (only the planes' bytes are read from here on).
        out.planes[0] = buffer.planes[0]
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
