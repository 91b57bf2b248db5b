import Foundation
import Testing
import VTKTestSupport

@Suite("FFmpeg's VA-API hwaccel decodes through vtksoft")
struct DecodeConformanceTests {
    /// FFmpeg applies only right/bottom cropping to VA frames, and its software decoder (which made the
    /// references) skips a left crop that would misalign the planes: for streams cropped on the top
    /// or left, the test crops the downloaded frames as the software decoder did.
    static let ffmpegSideCrop = ["CVFC1_Sony_C.jsv": "crop=w=iw:h=ih-60:x=0:y=60"]

    @Test("Every conformance stream decodes to the reference MD5",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.all.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func conformanceStreams() throws {
        let streams = ConformanceStream.all
        var matched: [String] = []
        for stream in streams {
            let (md5, run) = try VTKSoftFFmpeg.hardwareDecodeMD5(stream.url, extraFilter: Self.ffmpegSideCrop[stream.file])
            #expect(md5 == stream.md5, "\(stream.file): \(run.result.stderrText.prefix(400))")
            #expect(run.leakedObjects == 0, "\(stream.file): VA objects left at vaTerminate")
            if md5 == stream.md5 { matched.append(stream.file) }
        }
        print("vtksoft decode: \(matched.count)/\(streams.count) conformance streams match the reference MD5")
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
