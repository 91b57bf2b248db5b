import Foundation
import Testing
import VTKTestSupport

@Suite("FFmpeg's VA-API hwaccel decodes through vtksoft")
struct DecodeConformanceTests {
    /// FFmpeg applies only right and bottom cropping to VA frames (a known limitation of its hwaccel), so
    /// for a stream also cropped on the left or top its output differs from the reference. Such a stream is
    /// compared with FFmpeg's own software output, decoded uncropped and cropped the same way.
    static let rightBottomCropOnly = [
        // 352x288 coded, crop 26 left, 26 right, 60 top, 60 bottom (frame_crop_*_offset 13, 13, 30, 30).
        "CVFC1_Sony_C.jsv": "crop=w=326:h=228:x=0:y=0",
    ]

    @Test("Every conformance stream decodes to the reference MD5",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.all.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func conformanceStreams() throws {
        let streams = ConformanceStream.all
        var matched: [String] = []
        for stream in streams {
            var expected: String? = stream.md5
            if let crop = Self.rightBottomCropOnly[stream.file] {
                expected = try VTKSoftFFmpeg.softwareDecodeMD5(stream.url, inputOptions: ["-apply_cropping", "0"], filter: crop)
            }
            let (md5, run) = try VTKSoftFFmpeg.hardwareDecodeMD5(stream.url)
            #expect(md5 != nil && md5 == expected, "\(stream.file): \(run.result.stderrText.prefix(400))")
            #expect(run.leakedObjects == 0, "\(stream.file): VA objects left at vaTerminate")
            if md5 == expected { matched.append(stream.file) }
        }
        print("vtksoft decode: \(matched.count)/\(streams.count) conformance streams match the reference MD5 "
              + "(\(Self.rightBottomCropOnly.count) against FFmpeg's software output cropped as its hwaccel crops)")
    }

    @Test("libx264 streams made at run time decode like FFmpeg's software decoder",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          arguments: GeneratedStream.standard)
    func generatedStreams(_ stream: GeneratedStream) throws {
        let url = try stream.url()
        let expected = try #require(try VTKSoftFFmpeg.softwareDecodeMD5(url))
        let (md5, run) = try VTKSoftFFmpeg.hardwareDecodeMD5(url)
        #expect(md5 == expected, "\(stream.name): \(run.result.stderrText.prefix(400))")
        #expect(run.leakedObjects == 0)
    }
}
