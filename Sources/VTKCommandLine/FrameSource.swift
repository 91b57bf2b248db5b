#if canImport(Glibc)
import Glibc
#endif
import VTKMedia
import Y4M

/// Raw frames for encoding, from a raw file, a Y4M file or pipe, or the built-in clip.
protocol FrameSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Frames per second (numerator, denominator).
    var frameRate: (Int, Int) { get }
    var displayName: String { get }
    /// The next frame, or nil at the end.
    func next() throws(CommandFailure) -> PixelBuffer?
    /// Bytes left over at the end that did not make a whole frame (raw input only).
    var partialFrameBytes: Int { get }
    /// Fraction of the input read, when known.
    var fractionDone: Double? { get }
    /// The layout of the frames (8-bit I420/NV12, or a 10-bit one).
    var pixelFormat: PixelFormat { get }
}

extension FrameSource {
    var pixelFormat: PixelFormat { .i420 }
}

/// Frames of a headerless raw file: NV12 or I420 at a size the user gives.
final class RawFrameSource: FrameSource {
    let width: Int
    let height: Int
    let frameRate: (Int, Int)
    let format: PixelFormat
    private let input: InputFile
    private(set) var partialFrameBytes = 0
    private var index = 0

    init(input: InputFile, width: Int, height: Int, format: PixelFormat, frameRate: (Int, Int)) {
        self.input = input
        self.width = width
        self.height = height
        self.format = format
        self.frameRate = frameRate
    }

    var displayName: String { input.displayName }
    var fractionDone: Double? { input.fractionDone }
    var pixelFormat: PixelFormat { format }

    /// The frame returned last time, refilled in place once the caller has let go of it (copy on write
    /// keeps a frame the caller still holds intact).
    private var scratch: PixelBuffer?
    /// Where a caller that keeps frames for a while (`vtk roundtrip`) gives them back to be read into again.
    var recycler: FrameRecycler?

    func next() throws(CommandFailure) -> PixelBuffer? {
        var frame = scratch ?? recycler?.take(format: format, width: width, height: height)
            ?? PixelBuffer(uninitializedFormat: format, width: width, height: height)
        scratch = nil
        var total = 0
        for plane in frame.planes.indices {
            let wanted = frame.planes[plane].bytes.count
            var got = 0
            var failure: CommandFailure?
            frame.planes[plane].bytes.withUnsafeMutableBytes { buffer in
                do throws(CommandFailure) { got = try input.read(into: buffer) } catch { failure = error }
            }
            if let failure { throw failure }
            total += got
            if got < wanted {
                partialFrameBytes = total
                return nil
            }
        }
        frame.presentationTime = MediaTime(value: Int64(index) * Int64(frameRate.1), timescale: Int32(frameRate.0))
        index += 1
        // With a recycler, the caller keeps the frame and gives it back when done with it.
        if recycler == nil { scratch = frame }
        return frame
    }
}

/// Frames of a Y4M file or pipe: size, rate and aspect from its header.
final class Y4MFrameSource: FrameSource {
    private let reader: Y4MReader
    let displayName: String
    var width: Int { reader.header.width }
    var height: Int { reader.header.height }
    /// The header's rate in lowest terms (F60:2 is 30/1), 30 when it has none, or what --fps says.
    var frameRate: (Int, Int)
    let partialFrameBytes = 0
    var fractionDone: Double? { nil }
    var pixelFormat: PixelFormat { reader.header.colorspace.bytesPerSample == 2 ? .yuv420p10 : .i420 }

    init(path: String, command: String) throws(CommandFailure) {
        displayName = path == "-" ? "standard input" : path
        do {
            reader = path == "-" ? try Y4MReader.standardInput() : try Y4MReader(path: path)
        } catch {
            throw CommandFailure(.input, "vtk \(command): \(displayName): \(error)")
        }
        let r = reader.header.frameRate
        frameRate = r.numerator > 0 && r.denominator > 0 ? FrameRate.reduced(r.numerator, r.denominator) : (30, 1)
    }

    /// The frame returned last time, read into again once the caller has let go of it (copy on write keeps
    /// a frame the caller still holds intact).
    private var scratch: PixelBuffer?

    func next() throws(CommandFailure) -> PixelBuffer? {
        let index = reader.frameCount
        do {
            guard var frame = try reader.nextFrame(reusing: &scratch) else { return nil }
            frame.presentationTime = MediaTime(value: Int64(index) * Int64(frameRate.1), timescale: Int32(frameRate.0))
            frame.duration = MediaTime(value: Int64(frameRate.1), timescale: Int32(frameRate.0))
            return frame
        } catch {
            throw CommandFailure(.input, "vtk: \(displayName): frame \(reader.frameCount): \(error)")
        }
    }
}

/// The built-in clip: a moving test pattern vtk draws itself, so `vtk roundtrip --psnr` needs no file.
/// Smooth gradients, a moving box with sharp edges, a scrolling stripe pattern with fine detail, and a
/// bouncing disc: content that exercises intra and inter prediction at several scales.
final class TestPatternSource: FrameSource {
    let width: Int
    let height: Int
    let frameRate: (Int, Int) = (30, 1)
    let frameCount: Int
    let displayName = "built-in test pattern"
    let partialFrameBytes = 0
    private var index = 0

    init(width: Int = 640, height: Int = 360, frames: Int = 60) {
        self.width = width
        self.height = height
        self.frameCount = frames
    }

    var fractionDone: Double? { Double(index) / Double(frameCount) }

    func next() -> PixelBuffer? {
        guard index < frameCount else { return nil }
        let t = index
        index += 1
        var frame = PixelBuffer(format: .i420, width: width, height: height)
        frame.presentationTime = MediaTime(value: Int64(t), timescale: 30)
        let w = width, h = height
        var y = frame.planes[0].bytes
        let boxX = (t * 7) % max(1, w - w / 5), boxY = h / 3 + Int(Double(h / 6) * sin(Double(t) / 9))
        let discX = Double(w) / 2 + Double(w) / 3 * cos(Double(t) / 15), discY = Double(h) / 2 + Double(h) / 4 * sin(Double(t) / 11)
        let radius = Double(min(w, h)) / 8
        for row in 0..<h {
            for col in 0..<w {
                // Diagonal gradient drifting with time.
                var value = ((col + row + 2 * t) * 255 / (w + h)) & 0xFF
                // Fine stripes scrolling right in the lower quarter (detail for the encoder).
                if row > h * 3 / 4 { value = ((col + 3 * t) / 2) % 2 == 0 ? 40 : 220 }
                // A box with hard edges.
                if col >= boxX && col < boxX + w / 5 && row >= boxY && row < boxY + h / 5 { value = 235 }
                // A disc.
                let dx = Double(col) - discX, dy = Double(row) - discY
                if dx * dx + dy * dy < radius * radius { value = 16 + (col * 4 + row) % 64 }
                y[row * w + col] = UInt8(value)
            }
        }
        frame.planes[0].bytes = y
        let cw = frame.chromaWidth, ch = frame.chromaHeight
        var u = frame.planes[1].bytes, v = frame.planes[2].bytes
        for row in 0..<ch {
            for col in 0..<cw {
                u[row * cw + col] = UInt8(128 + Int(60 * sin(Double(col + t) / 20)))
                v[row * cw + col] = UInt8(128 + Int(60 * cos(Double(row - t) / 15)))
            }
        }
        frame.planes[1].bytes = u
        frame.planes[2].bytes = v
        return frame
    }
}
