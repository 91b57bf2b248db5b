import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
@testable import DecompressionSession

@Suite("H264DecompressionSession on damaged and changing streams", .serialized)
struct RobustnessDecodeTests {
    @Test("A lost P picture: frames before it exact, damaged ones flagged, exact again from the next IDR",
          .enabled(if: !ConformanceStream.robustness.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message))
    func lostPicture() throws {
        let damaged = try #require(ConformanceStream.robustness.first { $0.lastPathComponent == "BA_MW_D_P_LOST.264" })
        let original = try #require(ConformanceStream.all.first { $0.file == "BA_MW_D.264" })
        let result = try StreamDecode(url: damaged)
        let reference = original.frameMD5s
        #expect(result.frameMD5s.count == 99)
        #expect(result.statistics.problems.contains { $0.contains("lost") }, "the loss is reported: \(result.statistics.problems)")
        // Which picture was lost: the first frame whose MD5 is not the reference's at the same index.
        let lost = try #require(result.frameMD5s.indices.first { result.frameMD5s[$0] != reference[$0] })
        #expect(lost > 0, "frames before the loss are exact")
        #expect(Array(result.frameMD5s.prefix(lost)) == Array(reference.prefix(lost)))
        // After the loss, frame k of the damaged stream is frame k + 1 of the original.
        var exactAgain: Int?
        for k in lost..<result.frameMD5s.count {
            let right = result.frameMD5s[k] == reference[k + 1]
            // A frame not flagged as damaged must be right.
            if !result.damaged[k] { #expect(right, "frame \(k) is not flagged damaged but differs from the reference") }
            if right && exactAgain == nil && !result.damaged[k] { exactAgain = k }
        }
        let recovered = try #require(exactAgain, "decoding never recovered")
        // The next IDR of BA_MW_D after the loss is where exactness must be back at the latest.
        let idrs = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: original.url))).enumerated().filter { $0.element.isIDR }.map(\.offset)
        let nextIDR = try #require(idrs.first { $0 > lost }) - 1
        #expect(recovered <= nextIDR)
        #expect(Array(result.frameMD5s[nextIDR...]) == Array(reference[(nextIDR + 1)...]), "every frame from the next IDR on is exact")
        #expect(result.damaged.filter { $0 }.count >= 1)
    }

    @Test("Joining a stream mid-way at a recovery point SEI (no IDR): decoding starts there and is exact once recovered",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message))
    func recoveryPoint() throws {
        // Periodic intra refresh: one IDR, then recovery point SEIs instead of keyframes.
        let stream = GeneratedStream(name: "x264-intra-refresh-nob-176x144", width: 176, height: 144, frames: 40,
                                     encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params", "intra-refresh=1:keyint=10:bframes=0:ref=1"])
        let url = try stream.url()
        let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: url)))
        #expect(units.filter(\.isIDR).count == 1)
        let start = try #require(units.indices.first { $0 > 12 && units[$0].recoveryPoint != nil }, "no recovery point SEI after frame 12")
        // Parameter sets, then the stream from the recovery point on: what a receiver joining late sees.
        let parameterSets = units[0].nalUnits.filter { $0.type == .sequenceParameterSet || $0.type == .pictureParameterSet }
        let joined = AnnexBScanner.byteStream(parameterSets + units[start...].flatMap(\.nalUnits))
        let file = TestPaths.scratch.appendingPathComponent("joined-at-recovery-point.264")
        try Data(joined).write(to: file)
        let result = try StreamDecode(url: file)
        let reference = Array(try ffmpegFrameMD5s(url)[start...])
        #expect(result.frameMD5s.count == reference.count, "every access unit from the recovery point on gives a frame")
        // Frames not flagged as damaged are exact; the last ones (after recovery_frame_cnt) are not flagged.
        for (k, digest) in result.frameMD5s.enumerated() where !result.damaged[k] {
            #expect(digest == reference[k], "frame \(k) after the recovery point is not flagged but differs")
        }
        let recoveryFrames = units[start].recoveryPoint?.recoveryFrameCnt ?? 0
        #expect(result.damaged.prefix(recoveryFrames).allSatisfy { $0 })
        #expect(!result.damaged.suffix(from: recoveryFrames).contains(true))
        #expect(result.frameMD5s.suffix(from: recoveryFrames).elementsEqual(reference.suffix(from: recoveryFrames)))
    }

    @Test("A stream whose size changes mid-way: the session drains, re-creates its context, and loses nothing",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message))
    func formatChange() throws {
        let first = GeneratedStream.standard[1]  // 320x240, B-pyramid
        let second = GeneratedStream.standard[2] // 202x130, slices
        let joined = TestPaths.scratch.appendingPathComponent("joined.264")
        try (Data(contentsOf: try first.url()) + Data(contentsOf: try second.url())).write(to: joined)
        let result = try StreamDecode(url: joined)
        #expect(result.frameMD5s.count == first.frames + second.frames)
        #expect(result.sizes == ["\(first.width)x\(first.height)", "\(second.width)x\(second.height)"])
        let expected = try ffmpegFrameMD5s(try first.url()) + ffmpegFrameMD5s(try second.url())
        #expect(result.frameMD5s == expected)
        #expect(result.liveObjectsAfterInvalidate == 0)
    }

    @Test("Asynchronous decoding delivers the same frames, in order, through the handler and the AsyncSequence",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message))
    func asynchronous() async throws {
        let url = try GeneratedStream.standard[1].url()
        let bytes = [UInt8](try Data(contentsOf: url))
        let units = AccessUnitAssembler.accessUnits(in: bytes)
        let format = try H264FormatDescription(parameterSets: try #require(units.first).parameterSets)
        let session = try H264DecompressionSession(formatDescription: format, device: .software, outputFormat: .i420)
        #expect(session.canAccept(format))
        let frames = session.frames
        let collector = Task {
            var times: [MediaTime] = []
            var digests: [String] = []
            for await frame in frames {
                times.append(frame.presentationTime)
                digests.append(MD5.hex(frame.pixelBuffer.packedBytes))
            }
            return (times, digests)
        }
        // Samples as an MP4 would carry them: length-prefixed, one access unit each.
        for (index, unit) in units.enumerated() where unit.hasPicture {
            let sample = try LengthPrefixedSample.sample(unit.nalUnits)
            session.decodeAsync(SampleBuffer(data: sample, framing: .lengthPrefixed(4), presentationTime: MediaTime(value: Int64(index), timescale: 25)))
        }
        session.finishDelayedFramesAsync()
        session.waitForAsynchronousFrames()
        session.invalidate()
        let (times, digests) = await collector.value
        #expect(digests == (try ffmpegFrameMD5s(url)))
        // Display order: presentation times rise (they were given in decoding order).
        #expect(times.count == GeneratedStream.standard[1].frames)
        #expect(Set(times).count == times.count)
        // A format of another size is not accepted without a new session.
        let other = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: try GeneratedStream.standard[2].url())))
        #expect(!session.canAccept(try H264FormatDescription(parameterSets: try #require(other.first).parameterSets)))
        #expect(throws: DecompressionError.self) { _ = try session.decode(SampleBuffer(data: [0, 0, 0, 1, 0x65])) }
    }
}
