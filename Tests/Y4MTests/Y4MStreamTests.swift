import Foundation
import Testing
import VTKMedia
import VTKTestSupport
import Y4M

/// A pipe fed by a background thread in small pieces, so that the reader sees short reads as from stdin.
final class TrickleFeeder: @unchecked Sendable {
    let pipe = Pipe()
    private let thread: Thread

    init(_ bytes: [UInt8], pieceSize: Int) {
        let handle = pipe.fileHandleForWriting
        thread = Thread {
            var at = 0
            while at < bytes.count {
                let end = min(bytes.count, at + pieceSize)
                handle.write(Data(bytes[at..<end]))
                at = end
            }
            try? handle.close()
        }
        thread.start()
    }

    var readDescriptor: Int32 { pipe.fileHandleForReading.fileDescriptor }
}

@Suite("Y4M streams against FFmpeg")
struct Y4MStreamTests {
    static let ffmpeg = ProcessRunner.hasFFmpeg
    static let ffmpegMessage: Comment = "ffmpeg/ffprobe are not installed: skipping the Y4M comparisons with FFmpeg"

    struct Source: Sendable, CustomStringConvertible {
        var size: String
        var rate: String
        var extraFilter: String?
        var description: String { "\(size)@\(rate)\(extraFilter.map { " " + $0 } ?? "")" }
        /// Width and height of the frames (after the scale).
        var dimensions: [Int] { extraFilter?.hasPrefix("scale") == true ? [33, 17] : size.split(separator: "x").compactMap { Int($0) } }
        var sar: String { extraFilter?.hasPrefix("setsar") == true ? "16:11" : "1:1" }
    }

    static let sources = [Source(size: "176x144", rate: "30000/1001"), Source(size: "202x130", rate: "25", extraFilter: "setsar=16/11"),
                          Source(size: "34x18", rate: "24000/1001", extraFilter: "scale=33:17,setsar=1")]

    /// ffmpeg's Y4M and raw I420 of the same testsrc2 frames.
    func make(_ source: Source, frames: Int = 5) throws -> (y4m: URL, raw: [UInt8]) {
        let name = "\(source.size)-\(source.rate.replacingOccurrences(of: "/", with: "_"))-\(source.extraFilter != nil)"
        let y4m = TestPaths.scratch.appendingPathComponent("ffmpeg-\(name).y4m")
        let raw = TestPaths.scratch.appendingPathComponent("ffmpeg-\(name).yuv")
        let input = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(source.size):rate=\(source.rate)", "-frames:v", "\(frames)"]
            + (source.extraFilter.map { ["-vf", $0] } ?? []) + ["-pix_fmt", "yuv420p"]
        for (url, format) in [(y4m, "yuv4mpegpipe"), (raw, "rawvideo")] {
            let result = try ProcessRunner.run("ffmpeg", input + ["-f", format, url.path])
            try #require(result.status == 0, "\(result.stderrText)")
        }
        return (y4m, [UInt8](try Data(contentsOf: raw)))
    }

    /// Every frame's bytes. `reusing`: read through ``Y4MReader/nextFrame(reusing:)``, holding every other frame
    /// across the next read, which must leave the held frame as it was (copy on write).
    func readAll(_ reader: Y4MReader, reusing: Bool = false) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        var storage: PixelBuffer?
        var held: (frame: PixelBuffer, bytes: [UInt8])?
        while let frame = try reusing ? reader.nextFrame(reusing: &storage) : reader.nextFrame() {
            #expect(frame.format == .i420 && frame.width == reader.header.width && frame.height == reader.header.height)
            #expect(frame.presentationTime == MediaTime(value: Int64(index * reader.header.frameRate.denominator),
                                                        timescale: Int32(reader.header.frameRate.numerator)))
            if let held { #expect(held.frame.packedBytes == held.bytes, "frame \(index - 1) changed by the next read") }
            out += frame.packedBytes
            held = reusing && index % 2 == 0 ? (frame, frame.packedBytes) : nil
            index += 1
        }
        return out
    }

    @Test("FFmpeg's Y4M read by Y4MReader equals FFmpeg's rawvideo, from a file and from a trickling pipe",
          .enabled(if: ffmpeg, ffmpegMessage), arguments: sources)
    func readFFmpeg(source: Source) throws {
        let (y4m, raw) = try make(source)
        let reader = try Y4MReader(url: y4m)
        let dims = source.dimensions
        #expect(reader.header.width == dims[0] && reader.header.height == dims[1])
        let rate = source.rate.split(separator: "/").compactMap { Int($0) }
        #expect(reader.header.frameRate == .init(rate[0], rate.count > 1 ? rate[1] : 1))
        #expect(reader.header.sampleAspectRatio == (source.sar == "1:1" ? .init(1, 1) : .init(16, 11)))
        #expect(reader.header.colorspace == .c420jpeg)
        let bytes = try readAll(reader)
        #expect(reader.frameCount == 5)
        #expect(bytes == raw)

        // The same from a pipe written 1000 bytes at a time (and 7 bytes at a time for the smallest).
        let file = [UInt8](try Data(contentsOf: y4m))
        for piece in [1000, 7] where piece == 1000 || file.count < 20000 {
            let feeder = TrickleFeeder(file, pieceSize: piece)
            let piped = try Y4MReader(fileDescriptor: feeder.readDescriptor)
            #expect(piped.header == reader.header)
            #expect(try readAll(piped, reusing: true) == raw, "piece size \(piece)")
            withExtendedLifetime(feeder) {}
        }
    }

    @Test("Y4MWriter's output read by FFmpeg: same bytes, ffprobe's size, rate and SAR",
          .enabled(if: ffmpeg, ffmpegMessage), arguments: sources)
    func writeForFFmpeg(source: Source) throws {
        let (y4m, raw) = try make(source)
        let input = try Y4MReader(url: y4m)
        let out = TestPaths.scratch.appendingPathComponent("vtk-\(source.size).y4m")
        let writer = try Y4MWriter(url: out, header: input.header)
        while let frame = try input.nextFrame() { try writer.write(frame) }
        try writer.close()
        // Byte-identical to FFmpeg's own file (same header line, same frames).
        #expect([UInt8](try Data(contentsOf: out)) == [UInt8](try Data(contentsOf: y4m)))
        let decoded = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(decoded.status == 0 && decoded.stderrText.isEmpty, "\(decoded.stderrText)")
        #expect([UInt8](decoded.stdout) == raw)
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,r_frame_rate,sample_aspect_ratio",
                                                      "-of", "default=nw=1", out.path])
        let dims = source.dimensions
        let sar = source.sar
        let rate = source.rate.contains("/") ? source.rate : source.rate + "/1"
        #expect(probe.stdoutText == "width=\(dims[0])\nheight=\(dims[1])\nsample_aspect_ratio=\(sar)\nr_frame_rate=\(rate)\n")
    }

    @Test("A header written from scratch, NV12 frames, and a non-JPEG colorspace round trip through FFmpeg",
          .enabled(if: ffmpeg, ffmpegMessage))
    func fromScratch() throws {
        let header = Y4MHeader(width: 6, height: 4, frameRate: .init(50, 1), sampleAspectRatio: .init(4, 3),
                               interlace: .topFieldFirst, colorspace: .c420mpeg2, extensions: ["COLORRANGE=FULL"])
        let out = TestPaths.scratch.appendingPathComponent("vtk-scratch.y4m")
        let writer = try Y4MWriter(url: out, header: header)
        var nv12 = PixelBuffer(format: .nv12, width: 6, height: 4)
        nv12.planes[0].bytes = (0..<24).map { UInt8($0) }
        nv12.planes[1].bytes = (0..<12).map { UInt8(100 + $0) }  // U0 V0 U1 V1 ...
        try writer.write(nv12)
        try writer.close()
        let back = try Y4MReader(url: out)
        #expect(back.header == header)
        let frame = try #require(try back.nextFrame())
        #expect(frame.packedBytes == (0..<24).map { UInt8($0) } + [100, 102, 104, 106, 108, 110] + [101, 103, 105, 107, 109, 111])
        #expect(try back.nextFrame() == nil)
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,field_order,sample_aspect_ratio",
                                                      "-of", "default=nw=1", out.path])
        #expect(probe.stdoutText.contains("sample_aspect_ratio=4:3"), "\(probe.stdoutText)")
        #expect(probe.stdoutText.contains("field_order=tt"), "\(probe.stdoutText)")
    }

    @Test("Damaged streams: truncated frame, bad FRAME marker, header without newline")
    func damaged() throws {
        let good = Array("YUV4MPEG2 W4 H2 F25:1\nFRAME\n".utf8) + [UInt8](repeating: 7, count: 12)
        var feeders: [TrickleFeeder] = []  // the pipes must outlive their readers
        defer { _ = feeders }
        func reader(_ bytes: [UInt8]) throws -> Y4MReader {
            let feeder = TrickleFeeder(bytes, pieceSize: 5)
            feeders.append(feeder)
            return try Y4MReader(fileDescriptor: feeder.readDescriptor)
        }
        let ok = try reader(good + Array("FRAME Ixyz\n".utf8) + [UInt8](repeating: 9, count: 12))
        #expect(try ok.nextFrameBytes() == [UInt8](repeating: 7, count: 12))
        #expect(try ok.nextFrameBytes() == [UInt8](repeating: 9, count: 12))
        #expect(try ok.nextFrameBytes() == nil)
        let cut = try reader(Array(good.dropLast(3)))
        #expect(throws: Y4MError.truncatedFrame(frame: 0, byteOffset: 28, expected: 12, got: 9)) { try cut.nextFrameBytes() }
        let bad = try reader(good + Array("FRAMX\n".utf8))
        _ = try bad.nextFrameBytes()
        #expect(throws: Y4MError.badFrameHeader(frame: 1, byteOffset: 40)) { try bad.nextFrameBytes() }
        #expect(throws: Y4MError.lineTooLong(byteOffset: 0, limit: 4096)) {
            try reader(Array("YUV4MPEG2 W4 H2 ".utf8) + [UInt8](repeating: 0x41, count: 10000))
        }
        #expect(throws: Y4MError.notY4M(byteOffset: 0)) { try reader([]) }
    }
}
