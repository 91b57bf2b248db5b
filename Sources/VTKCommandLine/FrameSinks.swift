import DecompressionSession
import Dispatch
import H264Bitstream
import PixelConversion
import Y4M
import VTKMedia

/// Where decoded frames go: checksums, a raw or Y4M file, PNG pictures. Each sink sees every frame in
/// display order.
protocol FrameSink: AnyObject {
    func take(_ frame: PixelBuffer, index: Int) throws(CommandFailure)
    func finish() throws(CommandFailure)
}

extension PixelFormat {
    /// The planar layout checksums and Y4M use: I420, or yuv420p10le (16-bit samples) for 10-bit frames.
    var planarLayout: PixelFormat { is10Bit ? .yuv420p10 : .i420 }
}

/// MD5 of the whole output written as planar I420 (yuv420p10le for 10-bit), cropped, in display order
/// (reference.tsv, `ffmpeg -f md5`).
/// Frames are hashed on a second thread while the next ones decode: MD5 runs at about the decoder's own
/// speed, so done in line it nearly doubles the time of `decode --md5`.
final class WholeMD5Sink: FrameSink {
    private let hasher = BackgroundMD5()
    private(set) var digest: String?
    private let print: Bool

    init(print: Bool) { self.print = print }

    func take(_ frame: PixelBuffer, index: Int) { hasher.add(frame) }

    func finish() {
        digest = hasher.finalize()
        if print, let digest { StandardStreams.out("MD5=\(digest)\n") }
    }
}

/// An MD5 over frames (as planar I420) computed on a serial background queue, in the order given; at
/// most `depth` frames wait, so memory stays bounded when the hashing is slower than the decoding.
final class BackgroundMD5: Sendable {
    private struct State: Sendable {
        var md5 = MD5()
        /// I420 scratch reused from frame to frame for NV12 input (no allocation per frame).
        var scratch: PixelBuffer?
    }
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "vtk.md5")
    private let slots: DispatchSemaphore

    init(depth: Int = 4) { slots = DispatchSemaphore(value: depth) }

    func add(_ frame: PixelBuffer) {
        slots.wait()
        queue.async { [self] in
            state.withLock { s in
                // The planes are hashed where they are: the same bytes as packedBytes, without concatenating them.
                PixelConverter.convert(frame, to: frame.format.planarLayout, reusing: &s.scratch).forEachPackedPlane { s.md5.update($0) }
            }
            slots.signal()
        }
    }

    /// The digest once every frame added is hashed.
    func finalize() -> String {
        queue.sync {}
        return state.withLock { $0.md5.finalize() }
    }
}

/// One line per frame: display index, tab, MD5 of that frame's I420 bytes (../shared framemd5 files).
final class FrameMD5Sink: FrameSink {
    private(set) var lines: [String] = []
    private var scratch: PixelBuffer?
    func take(_ frame: PixelBuffer, index: Int) {
        var md5 = MD5()
        PixelConverter.convert(frame, to: frame.format.planarLayout, reusing: &scratch).forEachPackedPlane { md5.update($0) }
        let line = "\(index)\t\(md5.finalize())"
        lines.append(line)
        StandardStreams.out(line + "\n")
    }
    func finish() {}
}

/// A sink that can take an 8-bit NV12 frame where it is, in a mapped surface, rather than a copy of it.
protocol MappedNV12Sink: FrameSink {
    /// Whether this sink, as configured, takes mapped NV12 frames.
    var takesMappedNV12: Bool { get }
    func take(_ picture: MappedNV12Picture, index: Int) throws(CommandFailure)
}

/// Raw frames, NV12 or I420, no header.
final class RawFrameSink: MappedNV12Sink {
    private let file: OutputFile
    private let format: PixelFormat
    private var scratch: PixelBuffer?
    init(file: OutputFile, format: PixelFormat) {
        self.file = file
        self.format = format
    }

    var takesMappedNV12: Bool { format == .nv12 }

    /// NV12 rows written from the mapped surface: the same bytes as from a read-back copy, without the copy.
    func take(_ picture: MappedNV12Picture, index: Int) throws(CommandFailure) {
        try file.write(rows: picture.luma, pitch: picture.lumaPitch, rowBytes: picture.width, count: picture.height)
        try file.write(rows: picture.chroma, pitch: picture.chromaPitch, rowBytes: picture.chromaRowBytes, count: picture.chromaHeight)
    }
    func take(_ frame: PixelBuffer, index: Int) throws(CommandFailure) {
        // Converted into a reused buffer (if at all), then each plane written from where it is.
        let converted = PixelConverter.convert(frame, to: format, reusing: &scratch)
        for plane in converted.planes {
            if plane.bytesPerRow == plane.rowLength {
                try file.write(plane.bytes.prefix(plane.rowLength * plane.rows))
            } else {
                for row in 0..<plane.rows { try file.write(plane.bytes[(row * plane.bytesPerRow)..<(row * plane.bytesPerRow + plane.rowLength)]) }
            }
        }
    }
    func finish() {}
}

/// PNG pictures, frame-000000.png onwards.
final class PNGFrameSink: FrameSink {
    private let directory: String
    init(directory: String, command: String) throws(CommandFailure) {
        self.directory = directory
        // Missing parents are created too, as `mkdir -p` does.
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            var info = stat()
            if stat(prefix, &info) != 0 {
                guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                    throw CommandFailure(.output, "vtk \(command): cannot create directory '\(prefix)': \(String(cString: strerror(errno)))")
                }
            } else if (info.st_mode & S_IFMT) != S_IFDIR {
                throw CommandFailure(.output, "vtk \(command): --png-dir \(directory): '\(prefix)' exists and is not a directory")
            }
            prefix += "/"
        }
    }
    func take(_ frame: PixelBuffer, index: Int) throws(CommandFailure) {
        var name = String(index)
        while name.count < 6 { name = "0" + name }
        let file = try OutputFile("\(directory)/frame-\(name).png", command: "decode")
        try file.write(try PNGWriter.png(rgb: PixelConverter.rgb(frame), width: frame.width, height: frame.height))
    }
    func finish() {}
}

#if canImport(Glibc)
import Glibc
#endif

/// Y4M output (I420), its header from the first frame's size and the stream's frame rate and SAR.
final class Y4MFrameSink: FrameSink {
    private let writer: Y4MWriter
    let path: String
    private var scratch: PixelBuffer?

    /// `frameRate`: the container's or the stream's, in lowest terms; 25 when neither says.
    convenience init(path: String, frame: PixelBuffer, frameRate: (Int, Int)?, format: H264FormatDescription?,
                     interlace: Y4MHeader.Interlace = .progressive, command: String) throws(CommandFailure) {
        try self.init(path: path, frame: frame, frameRate: frameRate, sampleAspectRatio: format?.sampleAspectRatio, interlace: interlace, command: command)
    }

    /// The header says C420p10 for 10-bit frames (H.265 Main 10), and It/Ib for interlaced frames.
    init(path: String, frame: PixelBuffer, frameRate: (Int, Int)?, sampleAspectRatio: (width: Int, height: Int)?,
         interlace: Y4MHeader.Interlace = .progressive, command: String) throws(CommandFailure) {
        self.path = path
        let rate = frameRate.map { Y4MHeader.Ratio($0.0, $0.1) } ?? Y4MHeader.Ratio(25, 1)
        let sar = sampleAspectRatio.map { Y4MHeader.Ratio($0.width, $0.height) } ?? Y4MHeader.Ratio(1, 1)
        var header = Y4MHeader(width: frame.width, height: frame.height, frameRate: rate, sampleAspectRatio: sar, interlace: interlace)
        if frame.format.is10Bit { header.colorspace = .c420p10 }
        do {
            writer = path == "-" ? try Y4MWriter.standardOutput(header: header) : try Y4MWriter(path: path, header: header)
        } catch {
            throw CommandFailure(.output, "vtk \(command): cannot write '\(path)': \(error)")
        }
    }

    func take(_ frame: PixelBuffer, index: Int) throws(CommandFailure) {
        do { try writer.write(PixelConverter.convert(frame, to: frame.format.planarLayout, reusing: &scratch)) } catch {
            throw CommandFailure(.output, "vtk: writing '\(path)' failed at frame \(index): \(error)")
        }
    }

    func finish() throws(CommandFailure) {
        do { try writer.close() } catch { throw CommandFailure(.output, "vtk: closing '\(path)': \(error)") }
    }
}
