import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
import VideoAcceleration
@testable import DecompressionSession

/// Decodes a whole Annex B stream through a session on vtksoft; returns per-frame MD5s of the I420 output.
struct StreamDecode {
    var frameMD5s: [String] = []
    var wholeMD5 = ""
    var statistics = DecodeStatistics()
    var damaged: [Bool] = []
    var sizes: Set<String> = []
    /// vtksoft's count of VA objects still alive in the session's display after invalidate().
    var liveObjectsAfterInvalidate: Int?

    /// On vtksoft's own display, or on `connection` when given.
    init(url: URL, connection: VADisplayConnection? = nil) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let session = try connection.map { try H264DecompressionSession(formatDescription: nil, connection: $0, outputFormat: .i420) }
            ?? H264DecompressionSession(formatDescription: nil, device: .software, outputFormat: .i420)
        var whole = MD5()
        func take(_ frames: [DecodedFrame]) {
            for frame in frames {
                let packed = frame.pixelBuffer.packedBytes
                frameMD5s.append(MD5.hex(packed))
                whole.update(packed)
                damaged.append(frame.isDamaged)
                sizes.insert("\(frame.pixelBuffer.width)x\(frame.pixelBuffer.height)")
            }
        }
        for (index, unit) in AccessUnitAssembler.accessUnits(in: bytes).enumerated() {
            take(try session.decode(accessUnit: unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)))
        }
        take(try session.finishDelayedFrames())
        statistics = session.statistics
        session.invalidate()
        liveObjectsAfterInvalidate = VTKSoftCounters.live(in: session.connection.display)
        wholeMD5 = whole.finalize()
    }
}

enum VTKSoftAvailability {
    static let driverFound: Bool = (try? SoftwareDriverLocation.directory()) != nil
    static let message: Comment = "libvtksoft_drv_video.so was not found beside the test binary: build the package first"
}

@Suite("H264DecompressionSession through vtksoft", .serialized)
struct ConformanceDecodeTests {
    @Test("Conformance streams decode to the reference per-frame MD5s",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        let result = try StreamDecode(url: stream.url)
        #expect(result.frameMD5s.count == stream.frames)
        #expect(result.sizes == ["\(stream.width)x\(stream.height)"])
        #expect(result.statistics.problems.isEmpty, "\(result.statistics.problems.prefix(3))")
        #expect(!result.damaged.contains(true))
        #expect(result.liveObjectsAfterInvalidate == 0, "VA objects left after invalidate()")
        let expected = stream.frameMD5s
        let wrong = zip(result.frameMD5s, expected).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(wrong.isEmpty, "frames with a wrong MD5: \(wrong.prefix(10)) of \(expected.count)")
        #expect(result.wholeMD5 == stream.md5)
    }

    @Test("libx264 streams decode bit-exactly against FFmpeg's software decoder",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        let url = try stream.url()
        let result = try StreamDecode(url: url)
        let expected = try ffmpegFrameMD5s(url)
        #expect(result.frameMD5s.count == stream.frames)
        #expect(result.frameMD5s == expected)
        #expect(result.sizes == ["\(stream.width)x\(stream.height)"])
    }

    /// Field pictures, PAFF, MBAFF and 4:0:0: both fields of a frame decode into one surface and come out
    /// woven, one frame per field pair, equal to fluster's MD5s frame by frame.
    @Test("Interlaced conformance streams decode to the reference per-frame MD5s",
          .enabled(if: !ConformanceStream.interlaced.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: ConformanceStream.interlaced)
    func interlaced(stream: ConformanceStream) throws {
        try conformance(stream: stream)
    }

    @Test("libx264 MBAFF streams (top and bottom field first, CAVLC and CABAC, B-frames) decode bit-exactly against FFmpeg's software decoder",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: GeneratedStream.mbaff)
    func mbaff(stream: GeneratedStream) throws {
        try generated(stream: stream)
    }

    @Test("A session runs on a VA display opened on X11 (VADisplayConnection.openX11), bit-exactly",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          .enabled(if: Xvfb.isInstalled && Xvfb.shared != nil, "no Xvfb: skipping the decode on an X11 VA display"))
    func onX11Display() throws {
        let stream = try #require(GeneratedStream.standard.first)
        let url = try stream.url()
        let connection = try VADisplayConnection.openX11(.software, displayName: try #require(Xvfb.shared).display)
        #expect(connection.canPresent)
        let result = try StreamDecode(url: url, connection: connection)
        #expect(result.frameMD5s == (try ffmpegFrameMD5s(url)))
        #expect(result.frameMD5s.count == stream.frames)
    }
}

/// FFmpeg's software decoder's per-frame MD5s of I420 output (`-f framemd5`).
func ffmpegFrameMD5s(_ url: URL) throws -> [String] {
    let reference = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", url.path, "-pix_fmt", "yuv420p", "-f", "framemd5", "-"])
    return reference.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
        .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
}
