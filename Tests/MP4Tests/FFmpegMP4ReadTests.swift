import Foundation
import Testing
import H264Bitstream
import MP4
import VTKMedia
import VTKTestSupport

/// Streams of ../shared decoded through MP4 (the rest are compared sample by sample only, to keep the
/// suite short): the B-frame ones, CABAC, several references, scaling lists, a SAR in the VUI.
let conformanceDecodeSubset = ["Cisco_Men_whisper_640x320_CABAC_Bframe_9.264", "test_qcif_cabac.264", "MR1_BT_A.h264",
                               "BA1_Sony_D.jsv", "test_scalinglist_jm.264", "SarVui.264"]

/// The samples' times, sizes and sync flags equal ffprobe's packets. FFmpeg's demuxer leaves out leading
/// samples that the edit list puts wholly before the presentation (FFmpeg's remux of a raw B-frame stream
/// starts decode times below 0 without a composition offset); the reader gives every stored sample, so
/// those extra samples must be before time 0.
func compareWithFFprobe(_ samples: [MP4Sample], _ mp4: URL) throws {
    let probed = try FFprobe.packets(mp4)
    let hidden = samples.count - probed.count
    #expect(hidden >= 0 && samples.prefix(max(0, hidden)).allSatisfy { $0.presentationTime.value < 0 },
            "\(mp4.lastPathComponent): \(samples.count) samples, ffprobe shows \(probed.count)")
    let shown = Array(samples.dropFirst(max(0, hidden)).map(\.probed))
    #expect(shown == probed, "\(mp4.lastPathComponent): first differences \(zip(shown, probed).filter { $0 != $1 }.prefix(3))")
}

@Suite("MP4 files made by FFmpeg, read through MP4Reader")
struct FFmpegMP4ReadTests {
    /// Samples equal the elementary stream's access units; times and flags equal ffprobe's.
    func checkSamples(_ mp4: URL, against stream: URL, muxing: MP4Fixtures.Muxing) throws {
        let reader = try MP4Reader(url: mp4)
        #expect(reader.isFragmented == (muxing == .fragmented))
        let samples = try reader.readAll()
        let expected = try accessUnitSamples(stream)
        #expect(samples.count == expected.count, "\(mp4.lastPathComponent): \(samples.count) samples, \(expected.count) access units")
        let different = zip(samples, expected).enumerated().filter { $0.element.0.data != $0.element.1 }.map(\.offset)
        #expect(different.isEmpty, "\(mp4.lastPathComponent): samples that differ from the access units: \(different.prefix(10))")
        try compareWithFFprobe(samples, mp4)
    }

    @Test("Conformance streams remuxed by FFmpeg (plain, faststart, fragmented) give their access units and ffprobe's times",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          arguments: ConformanceStream.all)
    func conformanceSamples(stream: ConformanceStream) throws {
        for muxing in MP4Fixtures.Muxing.allCases {
            let mp4 = try MP4Fixtures.remux(stream.url, muxing)
            try checkSamples(mp4, against: stream.url, muxing: muxing)
            let reader = try MP4Reader(url: mp4)
            #expect(reader.format?.displayWidth == stream.width)
            #expect(reader.format?.displayHeight == stream.height)
        }
    }

    @Test("Conformance streams decode through MP4 and vtk's decoder to the reference MD5",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          .enabled(if: Availability.driver, Availability.driverMessage),
          arguments: conformanceDecodeSubset)
    func conformanceDecode(file: String) throws {
        let stream = try #require(ConformanceStream.all.first { $0.file == file }, "\(file) is not in reference.tsv")
        for muxing in [MP4Fixtures.Muxing.plain, .fragmented] {
            let decoded = try decodeThroughVTK(try MP4Reader(url: try MP4Fixtures.remux(stream.url, muxing)))
            #expect(decoded.frames == stream.frames, "\(file) \(muxing)")
            #expect(decoded.md5 == stream.md5, "\(file) \(muxing)")
        }
    }

    @Test("libx264 streams remuxed by FFmpeg give their access units, ffprobe's times, and decode bit-exactly",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          .enabled(if: Availability.driver, Availability.driverMessage),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        let url = try stream.url()
        for muxing in MP4Fixtures.Muxing.allCases {
            try checkSamples(try MP4Fixtures.remux(url, muxing), against: url, muxing: muxing)
        }
        let decoded = try decodeThroughVTK(try MP4Reader(url: try MP4Fixtures.remux(url, .fragmented)))
        #expect(decoded.frames == stream.frames)
        #expect(decoded.md5 == (try ffmpegMD5(url)))
    }

    @Test("libx264 with -bf 3 encoded straight to MP4 (ctts, edit list): ffprobe's times, bit-exact decode",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          .enabled(if: Availability.driver, Availability.driverMessage),
          arguments: MP4Fixtures.Muxing.allCases)
    func x264BFrames(muxing: MP4Fixtures.Muxing) throws {
        let mp4 = try MP4Fixtures.x264BFrames(muxing)
        let reader = try MP4Reader(url: mp4)
        let samples = try reader.readAll()
        #expect(samples.count == 40)
        try compareWithFFprobe(samples, mp4)
        if muxing != .fragmented {
            // The edit list moves the first presented frame to 0; decode times start before it. (FFmpeg
            // writes no edit list in fragmented files.)
            #expect(samples.map(\.presentationTime.value).min() == 0)
            #expect(samples[0].decodeTime.value < 0)
        }
        #expect(samples.contains { $0.presentationTime != $0.decodeTime })
        let decoded = try decodeThroughVTK(try MP4Reader(url: mp4))
        #expect(decoded.frames == 40)
        #expect(decoded.md5 == (try ffmpegMD5(mp4)))
    }

    @Test("An audio-only file names its codec as not supported yet",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func audioOnly() throws {
        let out = TestPaths.scratch.appendingPathComponent("audio-only.mp4")
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.2", "-c:a", "aac", out.path])
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(throws: MP4Error.self) { try MP4Reader(url: out) }
        do {
            _ = try MP4Reader(url: out)
        } catch {
            guard case .unsupportedCodec(let fourcc, _, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(fourcc == "mp4a")
            #expect(error.description.contains("not supported yet"))
        }
    }
}
