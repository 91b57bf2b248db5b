import Foundation
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
final class WholeMD5Sink: FrameSink {
    private var md5 = MD5()
    private(set) var digest: String?
    private let print: Bool
    /// I420 scratch reused from frame to frame (no allocation per frame).
    private var scratch: PixelBuffer?

    init(print: Bool) { self.print = print }

    func take(_ frame: PixelBuffer, index: Int) {
        // The planes are hashed where they are: the same bytes as packedBytes, without concatenating them.
        PixelConverter.convert(frame, to: frame.format.planarLayout, reusing: &scratch).forEachPackedPlane { md5.update($0) }
    }

    func finish() {
        digest = md5.finalize()
        if print, let digest { StandardStreams.out("MD5=\(digest)\n") }
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

/// Raw frames, NV12 or I420, no header.
final class RawFrameSink: FrameSink {
    private let file: OutputFile
    private let format: PixelFormat
    private var scratch: PixelBuffer?
    init(file: OutputFile, format: PixelFormat) {
        self.file = file
        self.format = format
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
        var info = stat()
        if stat(directory, &info) != 0 {
            guard mkdir(directory, 0o755) == 0 else {
                throw CommandFailure(.output, "vtk \(command): cannot create directory '\(directory)': \(String(cString: strerror(errno)))")
            }
        } else if (info.st_mode & S_IFMT) != S_IFDIR {
            throw CommandFailure(.output, "vtk \(command): --frames \(directory) exists and is not a directory")
        }
    }
    func take(_ frame: PixelBuffer, index: Int) throws(CommandFailure) {
        var name = String(index)
        while name.count < 6 { name = "0" + name }
        let file = try OutputFile("\(directory)/frame-\(name).png", command: "decode")
        try file.write(PNGWriter.png(rgb: PixelConverter.rgb(frame), width: frame.width, height: frame.height))
    }
    func finish() {}
}

#if canImport(Glibc)
import Glibc
#endif

/// Y4M output (I420), its header from the first frame's size and the stream's frame rate and SAR.
final class Y4MFrameSink: FrameSink {
    private let writer: Y4MWriter
    private let path: String
    private var scratch: PixelBuffer?

    convenience init(path: String, frame: PixelBuffer, format: FormatDescription?, command: String) throws(CommandFailure) {
        try self.init(path: path, frame: frame, frameRate: format?.frameRate, sampleAspectRatio: format?.sampleAspectRatio, command: command)
    }

    /// The header says C420p10 for 10-bit frames.
    init(path: String, frame: PixelBuffer, frameRate: (numerator: Int, denominator: Int)?, sampleAspectRatio: (width: Int, height: Int)?,
         command: String) throws(CommandFailure) {
        self.path = path
        let rate = frameRate.map { Y4MHeader.Ratio($0.numerator, $0.denominator) } ?? Y4MHeader.Ratio(25, 1)
        let sar = sampleAspectRatio.map { Y4MHeader.Ratio($0.width, $0.height) } ?? Y4MHeader.Ratio(1, 1)
        var header = Y4MHeader(width: frame.width, height: frame.height, frameRate: rate, sampleAspectRatio: sar)
        if frame.format.is10Bit { header.colorspace = .c420p10 }
        do {
            writer = path == "-" ? try Y4MWriter.standardOutput(header: header) : try Y4MWriter(url: URL(fileURLWithPath: path), header: header)
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
