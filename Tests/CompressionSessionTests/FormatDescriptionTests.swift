import CompressionSession
import DecompressionSession
import Foundation
import H264Bitstream
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

@Suite("The format description and avcC")
struct FormatDescriptionTests {
    /// The payload of the first `avcC` box in an MP4 file.
    static func avcC(inMP4 bytes: [UInt8]) -> [UInt8]? {
        let tag: [UInt8] = Array("avcC".utf8)
        guard bytes.count > 8 else { return nil }
        for i in 4..<(bytes.count - 4) where bytes[i] == tag[0] && Array(bytes[i..<(i + 4)]) == tag {
            let size = bytes[(i - 4)..<i].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, i - 4 + size <= bytes.count else { continue }
            return Array(bytes[(i + 4)..<(i - 4 + size)])
        }
        return nil
    }

    @Test("equals the avcC FFmpeg writes when it muxes the stream into MP4, and the stream's own SPS/PPS",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func avcCMatchesFFmpeg() throws {
        let clips = try Sources.smallClips()
        for clip in clips {
            let run = try Encoder.run(clip, Encoder.properties(frameRate: clip.framesPerSecond), name: "avcc-\(clip.width)x\(clip.height)")
            let mp4 = Sources.directory.appendingPathComponent("avcc-\(clip.width)x\(clip.height).mp4")
            let mux = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-r", "\(clip.framesPerSecond)", "-i", run.file.path,
                                                       "-c", "copy", mp4.path])
            try #require(mux.status == 0, "\(mux.stderrText.prefix(400))")
            let theirs = try #require(Self.avcC(inMP4: Array(try Data(contentsOf: mp4))), "no avcC box in FFmpeg's MP4")
            let theirRecord = try AVCDecoderConfigurationRecord(bytes: theirs)
            let ours = run.formatDescription.avcC
            // Compared through H264FormatDescription, which drops a trailing zero byte some writers keep.
            #expect(try H264FormatDescription(avcC: theirRecord) == H264FormatDescription(avcC: ours), "\(clip)")
            #expect(theirRecord.avcProfileIndication == ours.avcProfileIndication && theirRecord.avcLevelIndication == ours.avcLevelIndication)
            #expect(theirRecord.nalUnitLengthSize == 4)
            // Our record parses back to itself.
            #expect(try AVCDecoderConfigurationRecord(bytes: ours.bytes) == ours)
            // The parameter sets in the Annex B stream are the description's.
            let units = AnnexBScanner.nalUnits(in: run.bytes)
            let sps = Set(units.filter { $0.type == .sequenceParameterSet }.map { Array($0.bytes) })
            let pps = Set(units.filter { $0.type == .pictureParameterSet }.map { Array($0.bytes) })
            #expect(sps == Set(run.formatDescription.sequenceParameterSets.map { Array($0.bytes) }))
            #expect(pps == Set(run.formatDescription.pictureParameterSets.map { Array($0.bytes) }))
            print("avcC \(clip): \(ours.bytes.count) bytes, equal to FFmpeg's MP4 avcC (\(theirs.count) bytes)")
        }
    }

    @Test("Samples decode through H264DecompressionSession (vtksoft) from the avcC alone",
          .enabled(if: !Sources.ffmpegMissing, "\(Sources.ffmpegMissingMessage)"))
    func decodeWithOurDecoder() throws {
        let clip = try #require(try Sources.smallClips().last)  // the cropped one
        let run = try Encoder.run(clip, Encoder.properties(frameRate: clip.framesPerSecond), name: "roundtrip-\(clip.width)x\(clip.height)")
        let description = try H264FormatDescription(avcC: AVCDecoderConfigurationRecord(bytes: run.formatDescription.avcC.bytes))
        let decoder = try H264DecompressionSession(formatDescription: description, device: .software)
        var frames: [DecodedFrame] = []
        for sample in run.samples {
            frames += try decoder.decode(sample)
        }
        frames += try decoder.finishDelayedFrames()
        #expect(frames.count == clip.frames)
        #expect(frames.allSatisfy { $0.pixelBuffer.width == clip.width && $0.pixelBuffer.height == clip.height && !$0.isDamaged })
        #expect(frames.map(\.presentationTime) == run.samples.map(\.presentationTime))
    }
}
