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

    /// The same, converting a reference in another layout (NV12) to I420 in `scratch`, memory kept from
    /// frame to frame by the caller.
    init(reference: PixelBuffer, decoded: PixelBuffer, ssim: Bool, scratch: inout PixelBuffer?) {
        let a = PixelConverter.convert(reference, to: .i420, reusing: &scratch)
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
}

#if canImport(Glibc)
import Glibc
#endif
