import Foundation

/// Packed 8-bit R, G, B pixels, row by row.
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// The rectangle at (`x`, `y`) of `width` x `height`; nil when it does not fit.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> RGBImage? {
        guard x >= 0, y >= 0, x + width <= self.width, y + height <= self.height else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(width * height * 3)
        for row in y..<(y + height) { out += bytes[(row * self.width + x) * 3..<(row * self.width + x + width) * 3] }
        return RGBImage(width: width, height: height, bytes: out)
    }

    /// PSNR of the luma (BT.601 weights of R, G, B) against `other`, same size; 100 when identical.
    public func lumaPSNR(_ other: RGBImage) -> Double {
        guard width == other.width, height == other.height, !bytes.isEmpty else { return 0 }
        func luma(_ b: [UInt8], _ i: Int) -> Double { 0.299 * Double(b[i]) + 0.587 * Double(b[i + 1]) + 0.114 * Double(b[i + 2]) }
        var squared = 0.0
        for i in stride(from: 0, to: bytes.count, by: 3) {
            let d = luma(bytes, i) - luma(other.bytes, i)
            squared += d * d
        }
        let mse = squared / Double(width * height)
        return mse == 0 ? 100 : min(100, 10 * log10(255 * 255 / mse))
    }

    /// Frame `index` of a stream decoded by FFmpeg's software decoder and converted to RGB by its swscale
    /// (BT.601, limited range): an oracle independent of vtksoft and libyuv.
    public static func ffmpegFrame(_ stream: URL, index: Int, width: Int, height: Int) throws -> RGBImage? {
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", stream.path, "-vf", "select=eq(n\\,\(index))",
                                                      "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
        guard result.status == 0, result.stdout.count == width * height * 3 else { return nil }
        return RGBImage(width: width, height: height, bytes: [UInt8](result.stdout))
    }
}

/// Screenshots of an X server with `xwd` (x11-apps), read from its XWD file (X11/XWDFile.h).
public enum X11Screenshot {
    public static var isInstalled: Bool { ProcessRunner.which("xwd") != nil }

    /// The root window of `display`, or nil when xwd fails or writes a layout other than 8-bit TrueColor channels.
    public static func root(display: String) -> RGBImage? {
        guard let result = try? ProcessRunner.run("xwd", ["-silent", "-root", "-display", display]), result.status == 0 else { return nil }
        return parse([UInt8](result.stdout))
    }

    /// An XWD file's pixels: a header of big-endian 32-bit fields, the colormap, then the image. Xvfb's depth 24
    /// comes as 24 or 32 bits a pixel, B, G, R first in LSBFirst order.
    static func parse(_ file: [UInt8]) -> RGBImage? {
        func field(_ n: Int) -> Int? {
            guard file.count >= (n + 1) * 4 else { return nil }
            return (0..<4).reduce(0) { $0 << 8 | Int(file[n * 4 + $1]) }
        }
        guard let headerSize = field(0), field(2) == 2,  // ZPixmap
              let width = field(4), let height = field(5), let byteOrder = field(7),
              let bitsPerPixel = field(11), bitsPerPixel == 24 || bitsPerPixel == 32, let rowBytes = field(12),
              field(14) == 0xFF0000, field(15) == 0xFF00, field(16) == 0xFF, let colors = field(19) else { return nil }
        let start = headerSize + colors * 12, step = bitsPerPixel / 8
        guard width > 0, height > 0, rowBytes >= width * step, file.count >= start + rowBytes * height else { return nil }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let p = start + y * rowBytes + x * step, o = (y * width + x) * 3
                // The pixel's value 0xRRGGBB, least significant byte first (LSBFirst) or last.
                let (r, g, b) = byteOrder == 0 ? (file[p + 2], file[p + 1], file[p]) : (file[p + step - 3], file[p + step - 2], file[p + step - 1])
                rgb[o] = r
                rgb[o + 1] = g
                rgb[o + 2] = b
            }
        }
        return RGBImage(width: width, height: height, bytes: rgb)
    }
}
