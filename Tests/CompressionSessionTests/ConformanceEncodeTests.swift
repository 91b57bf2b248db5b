import CompressionSession
import Foundation
import H264Bitstream
import Testing
import VTKMedia
import VTKTestSupport

@Suite("Encoded streams decode in FFmpeg with every frame at the display size")
struct ConformanceEncodeTests {
    @Test("Small clips (320x192 camera, 152x100 cropped), CQP 27, High",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func smallClips() throws {
        if TestPaths.shared == nil { print(TestPaths.sharedMissingMessage + " (using testsrc2 instead)") }
        for clip in try Sources.smallClips() {
            let run = try Encoder.run(clip, Encoder.properties(frameRate: clip.framesPerSecond), name: "small-\(clip.width)x\(clip.height)")
            #expect(try FFprobe.decodeErrors(run.file) == "", "\(clip)")
            #expect(try FFprobe.sizeAndFrames(run.file) == "\(clip.width),\(clip.height),\(clip.frames)", "\(clip)")
            #expect(run.formatDescription.displayWidth == clip.width && run.formatDescription.displayHeight == clip.height)
            #expect(run.samples.count == clip.frames)
            #expect(run.samples.first?.isSync == true)
            print("encode \(clip): \(run.samples.count) frames, \(run.bytes.count) bytes, \(run.formatDescription)")
        }
    }

    @Test("720p, 300 frames, CQP 27",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func hd() throws {
        let clip = try Sources.hd.get()
        let run = try Encoder.hdCQP.get()
        #expect(try FFprobe.decodeErrors(run.file) == "")
        #expect(try FFprobe.sizeAndFrames(run.file) == "1280,720,\(clip.frames)")
        #expect(run.samples.count == clip.frames)
        // Timing: PTS = DTS, increasing, one frame apart, duration from the expected rate.
        for (i, sample) in run.samples.enumerated() {
            #expect(sample.presentationTime == MediaTime(value: Int64(i), timescale: 30) && sample.decodeTime == sample.presentationTime)
            #expect(sample.duration == MediaTime(value: 1, timescale: 30))
        }
        // An SPS may carry no VUI timing (openh264's has none); where one does it must say 30 fps.
        if let rate = run.formatDescription.frameRate { #expect(rate.numerator == 30 * rate.denominator) }
        print("encode \(clip): \(run.samples.count) frames, \(run.bytes.count) bytes in \(String(format: "%.2f", run.seconds)) s, \(run.formatDescription)")
    }

    @Test("Profiles and entropy modes the driver has: what the SPS and PPS say matches what was asked",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"),
          arguments: [(CompressionProperties.Profile.constrainedBaseline, nil as CompressionProperties.EntropyMode?),
                      (.main, nil), (.main, .cavlc), (.high, nil), (.high, .cavlc)])
    func profiles(_ profile: CompressionProperties.Profile, _ entropy: CompressionProperties.EntropyMode?) throws {
        let clip = try #require(try Sources.smallClips().first)
        var properties = Encoder.properties(frameRate: clip.framesPerSecond, profile: profile)
        properties.entropyMode = entropy
        let run = try Encoder.run(clip, properties, name: "profile-\(profile.rawValue)-\(entropy?.rawValue ?? "default")".replacingOccurrences(of: " ", with: "_"))
        #expect(try FFprobe.decodeErrors(run.file) == "")
        #expect(try FFprobe.profile(run.file) == profile.rawValue)
        let sps = run.formatDescription.sps
        let pps = try PictureParameterSet(nalUnit: run.formatDescription.pictureParameterSets[0]) { _ in sps }
        #expect(pps.entropyCodingModeFlag == (entropy ?? (profile == .constrainedBaseline ? .cavlc : .cabac) == .cabac))
    }

    @Test("VBR with one frame in flight: each frame's sample comes back from its own call",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func vbrOneFrameInFlight() throws {
        let clip = try #require(try Sources.smallClips().first)
        var properties = Encoder.properties(.variableBitRate, bitRate: 300_000, frameRate: clip.framesPerSecond)
        properties.peakBitRate = 600_000
        properties.oneFrameInFlight = true
        let session = try CompressionSession(width: clip.width, height: clip.height, properties: properties, device: .software)
        #expect(session.framesInFlight == 1)
        let data = try Data(contentsOf: clip.url)
        var samples: [SampleBuffer] = []
        for i in 0..<clip.frames {
            let out = try session.encodeFrame(clip.frame(i, from: data))
            #expect(out.count == 1 && out.first?.presentationTime == clip.frame(i, from: data).presentationTime)
            samples += out
        }
        #expect(try session.completeFrames().isEmpty)
        let file = Sources.directory.appendingPathComponent("vbr-realtime.h264")
        try Data(try samples.annexBStream()).write(to: file)
        #expect(try FFprobe.decodeErrors(file) == "")
        #expect(try FFprobe.sizeAndFrames(file) == "\(clip.width),\(clip.height),\(clip.frames)")
    }
}
