import CompressionSession
import DecompressionSession
import Foundation
import H264Bitstream
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

/// The session with B-frames through vtksoft's native engine (list-1 references, packed headers), and
/// bit-rate changes mid-stream through the openh264 engine.
@Suite("CompressionSession: B-frames, samples as CMSampleBuffers, mid-stream changes",
       .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
struct FrameReorderingSessionTests {
    /// A session on a vtksoft display switched to `engine` ("native" or "openh264").
    static func session(_ clip: RawClip, _ properties: CompressionProperties, engine: String) throws -> CompressionSession {
        let connection = try VADisplayConnection.open(.software)
        try #require(VTKSoftCounters.setEncoder(engine, in: connection.display), "vtksoft_display_set_encoder")
        return try CompressionSession(width: clip.width, height: clip.height, properties: properties, connection: connection)
    }

    static func encode(_ session: CompressionSession, _ clip: RawClip, frames: Int, forced: Set<Int> = [],
                       change: (Int, CompressionSession) throws -> Void = { _, _ in }) throws -> [SampleBuffer] {
        let data = try Data(contentsOf: clip.url, options: .alwaysMapped)
        var samples: [SampleBuffer] = []
        for i in 0..<frames {
            try change(i, session)
            samples += try session.encodeFrame(clip.frame(i, from: data), forceKeyFrame: forced.contains(i))
        }
        return samples + (try session.completeFrames())
    }

    @Test("B-frames: decoding order out, PTS and DTS, attachments; the decoder takes the samples as they are")
    func samplesWithBFrames() throws {
        let clip = try Sources.synthetic("testsrc2-160x96-30", width: 160, height: 96, frames: 30, rate: 30)
        var p = Encoder.properties(frameRate: 30)
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 2
        p.maxKeyFrameInterval = 12
        let session = try Self.session(clip, p, engine: "native")
        #expect(session.bFrames == 2 && session.reorderDepth == 1 && session.warnings.isEmpty)
        #expect(session.packedHeadersDescription == "SEQUENCE|SLICE|MISC")
        // Packed headers: the format description is vtk's own, known before the first frame.
        let format = try #require(session.formatDescription)
        #expect(format.sps.vui.maxNumReorderFrames == 1)
        let samples = try Self.encode(session, clip, frames: clip.frames, forced: [20])
        #expect(samples.count == clip.frames)
        let frame = MediaTime(value: 1, timescale: 30)
        // Decode times: one frame behind the display-order times, increasing, never after the presentation time.
        #expect(samples.map(\.decodeTime) == (0..<clip.frames).map { MediaTime(value: Int64($0 - 1), timescale: 30) })
        #expect(samples.allSatisfy { $0.decodeTime <= $0.presentationTime && $0.duration == frame })
        #expect(Set(samples.map(\.presentationTime)) == Set((0..<clip.frames).map { MediaTime(value: Int64($0), timescale: 30) }))
        // IDRs at 0, 12 and the forced 20, the only sync samples; B pictures depend on others and are not depended on.
        let syncs = samples.filter(\.isSync).map { Int($0.presentationTime.value) }
        #expect(syncs == [0, 12, 20])
        #expect(samples.filter { $0.attachments.forcedKeyFrame }.map { Int($0.presentationTime.value) } == [20])
        let bs = samples.filter { $0.attachments.isDependedOnByOthers == false }
        #expect(!bs.isEmpty && bs.allSatisfy { $0.attachments.dependsOnOthers == true && !$0.isSync })

        // The decoder is made from the encoder's format description and takes the samples straight.
        let decoder = try H264DecompressionSession(formatDescription: format, device: .software)
        var decoded: [DecodedFrame] = []
        for sample in samples { decoded += try decoder.decode(sample) }
        decoded += try decoder.finishDelayedFrames()
        #expect(decoded.map(\.presentationTime) == (0..<clip.frames).map { MediaTime(value: Int64($0), timescale: 30) })
        #expect(decoded.allSatisfy { !$0.isDamaged })

        // And FFmpeg reads the Annex B stream with no error and every frame.
        let file = Sources.directory.appendingPathComponent("session-bframes.h264")
        try Data(try samples.annexBStream()).write(to: file)
        #expect(try FFprobe.decodeErrors(file) == "")
        #expect(try FFprobe.sizeAndFrames(file) == "160,96,\(clip.frames)")
    }

    @Test("A bit-rate change mid-stream shows in the following windows' rates")
    func bitRateChange() throws {
        let clip = try Sources.synthetic("testsrc2-320x240-30x120", width: 320, height: 240, frames: 120, rate: 30)
        var p = Encoder.properties(.constantBitRate, bitRate: 300_000, frameRate: 30)
        p.maxKeyFrameInterval = 0
        let session = try Self.session(clip, p, engine: "openh264")
        let samples = try Self.encode(session, clip, frames: clip.frames) { i, session in
            if i == 60 { try session.setAverageBitRate(900_000) }
        }
        // Bits per one-second window, by presentation time.
        var windows = [Int](repeating: 0, count: 4)
        for s in samples { windows[Int(s.presentationTime.value) / 30] += 8 * s.data.count }
        print("bit rate change 300k -> 900k at 2 s: windows \(windows) bit/s")
        #expect(abs(Double(windows[1]) / 300_000 - 1) < 0.25, "\(windows)")
        #expect(Double(windows[3]) / Double(windows[1]) > 2, "\(windows)")
        #expect(throws: CompressionError.self) { try session.setAverageBitRate(0) }
    }
}
