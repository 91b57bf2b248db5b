import CLibVA
import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
import VideoAcceleration
@testable import DecompressionSession

/// vtksoft decodes a picture's luma straight into its render target, so libavcodec's references live in
/// surface memory. A client that writes a surface libavcodec still refers to (vaPutImage over each frame
/// once it is read, while the surface may still be a reference) must not change any later picture.
/// Rules of the comparison:
/// - The oracle is FFmpeg's software decode of the same stream, frame by frame (framemd5, I420).
/// - Each frame is read (I420 MD5) before the client overwrites its surface, so only pictures decoded
///   later can show damage, and they would if libavcodec predicted from the overwritten memory.
/// - The session lends one surface frame, so surfaces go back to the pool (most recently freed first)
///   and are chosen again as render targets while libavcodec may still hold them.
@Suite("vtksoft: a client writing surfaces libavcodec still refers to", .serialized)
struct HeldSurfaceWriteTests {
    @Test("vaPutImage over each surface after its frame is read leaves every later frame as FFmpeg decodes it",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: [GeneratedStream.standard[0], GeneratedStream.standard[1]])
    func putImageOverReferences(stream: GeneratedStream) throws {
        let url = try stream.url()
        let expected = try ffmpegFrameMD5s(url)
        let session = try H264DecompressionSession(formatDescription: nil, device: .software, outputFormat: .i420)
        session.surfaceFrameLimit = 1
        session.surfaceFramesFallBackToPixels = true
        let display = session.connection.display
        var md5s: [String] = []
        var overwritten = 0
        func take(_ frames: [DecodedFrame]) throws {
            for frame in frames {
                md5s.append(MD5.hex(try frame.pixels().packedBytes))
                guard let surface = frame.surface else { continue }
                try Self.overwrite(display, surface.id, width: surface.width & ~1, height: surface.height & ~1)
                overwritten += 1
            }
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        for (index, unit) in AccessUnitAssembler.accessUnits(in: bytes).enumerated() {
            try take(try session.decode(accessUnit: unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)))
        }
        try take(try session.finishDelayedFrames())
        session.invalidate()
        #expect(overwritten > stream.frames / 2, "surface frames overwritten: \(overwritten)")
        #expect(md5s.count == expected.count)
        let wrong = zip(md5s, expected).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(wrong.isEmpty, "\(stream.name): frames with a wrong MD5: \(wrong.prefix(10)) of \(expected.count)")
    }

    /// vaPutImage of a flat NV12 image (luma 0x35, chroma 0xA0) over the surface's top-left `width` x `height`.
    static func overwrite(_ display: VADisplay, _ surface: VASurfaceID, width: Int, height: Int) throws {
        var format = VAImageFormat()
        format.fourcc = UInt32(VA_FOURCC_NV12)
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = 12
        var image = VAImage()
        try #require(vaCreateImage(display, &format, Int32(width), Int32(height), &image) == VA_STATUS_SUCCESS)
        defer { vaDestroyImage(display, image.image_id) }
        var pointer: UnsafeMutableRawPointer?
        try #require(vaMapBuffer(display, image.buf, &pointer) == VA_STATUS_SUCCESS)
        let base = try #require(pointer)
        base.initializeMemory(as: UInt8.self, repeating: 0x35, count: Int(image.offsets.1))
        (base + Int(image.offsets.1)).initializeMemory(as: UInt8.self, repeating: 0xA0, count: Int(image.data_size) - Int(image.offsets.1))
        try #require(vaUnmapBuffer(display, image.buf) == VA_STATUS_SUCCESS)
        let status = vaPutImage(display, surface, image.image_id, 0, 0, UInt32(width), UInt32(height), 0, 0, UInt32(width), UInt32(height))
        try #require(status == VA_STATUS_SUCCESS, "vaPutImage: \(String(cString: vaErrorStr(status)))")
    }
}
