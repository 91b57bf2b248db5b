import Foundation
import Testing
import VTKTestSupport
@testable import H264Bitstream

@Suite("avcC records and format descriptions")
struct FormatDescriptionTests {
    /// The avcC box payload of an MP4 file: the bytes after the "avcC" type, for the box's size.
    static func avcCPayload(inMP4 data: [UInt8]) -> [UInt8]? {
        let tag: [UInt8] = Array("avcC".utf8)
        guard data.count > 8 else { return nil }
        for i in 4..<(data.count - 4) where data[i] == tag[0] && Array(data[i..<(i + 4)]) == tag {
            let size = Int(data[i - 4]) << 24 | Int(data[i - 3]) << 16 | Int(data[i - 2]) << 8 | Int(data[i - 1])
            guard size >= 8, i - 4 + size <= data.count else { continue }
            return Array(data[(i + 4)..<(i - 4 + size)])
        }
        return nil
    }

    @Test("The avcC vtk builds carries the same parameter sets, profile and level as the avcC FFmpeg writes in an MP4",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func avcCAgainstFFmpeg() throws {
        var compared = 0
        for url in try TestStreams.available() {
            let mp4 = TestPaths.scratch.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".mp4")
            let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-i", url.path, "-c", "copy", "-frames:v", "5", mp4.path])
            try #require(result.status == 0, "ffmpeg: \(result.stderrText)")
            let payload = try #require(Self.avcCPayload(inMP4: [UInt8](try Data(contentsOf: mp4))), "no avcC in \(mp4.lastPathComponent)")
            let theirs = try AVCDecoderConfigurationRecord(bytes: payload)
            // FFmpeg's record holds the stream's first SPS and PPS.
            let units = AnnexBScanner.nalUnits(in: [UInt8](try Data(contentsOf: url)))
            let sps = units.filter { $0.type == .sequenceParameterSet }.prefix(theirs.sequenceParameterSets.count)
            let pps = units.filter { $0.type == .pictureParameterSet }.prefix(theirs.pictureParameterSets.count)
            let ours = try AVCDecoderConfigurationRecord(sps: Array(sps), pps: Array(pps))
            // FFmpeg keeps the zero_byte of the 4-byte start code after a parameter set (B.1 makes it part of
            // the next unit's start code; 7.4.1 says a NAL unit never ends in 0x00): compare without it.
            func trimmed(_ units: [[UInt8]]) -> [[UInt8]] {
                units.map { var u = $0; while u.last == 0 { u.removeLast() }; return u }
            }
            #expect(ours.sequenceParameterSets == trimmed(theirs.sequenceParameterSets), "\(url.lastPathComponent)")
            #expect(ours.pictureParameterSets == trimmed(theirs.pictureParameterSets), "\(url.lastPathComponent)")
            #expect(ours.avcProfileIndication == theirs.avcProfileIndication)
            #expect(ours.profileCompatibility == theirs.profileCompatibility)
            #expect(ours.avcLevelIndication == theirs.avcLevelIndication)
            #expect(ours.nalUnitLengthSize == theirs.nalUnitLengthSize)
            // Parse -> build gives FFmpeg's bytes back.
            #expect(theirs.bytes == payload, "\(url.lastPathComponent)")
            // And a format description from either is the same.
            #expect(try H264FormatDescription(avcC: theirs) == H264FormatDescription(avcC: ours))
            compared += 1
        }
        #expect(compared > 0)
    }

    @Test("Malformed avcC records give errors with the byte offset")
    func malformedAVCC() throws {
        let sps = BadInputTests.sps().nalUnit()
        var pps = PictureParameterSet()
        pps.picParameterSetId = 0
        let good = try AVCDecoderConfigurationRecord(sps: [sps], pps: [pps.nalUnit(sps: BadInputTests.sps())]).bytes
        #expect(try AVCDecoderConfigurationRecord(bytes: good).bytes == good)
        for cut in 0..<(good.count - 1) {
            #expect(throws: BitstreamError.self, "cut at \(cut)") { _ = try AVCDecoderConfigurationRecord(bytes: Array(good.prefix(cut))) }
        }
        var badLength = good
        badLength[7] = 0xFF  // SPS length low byte
        #expect(throws: BitstreamError.malformedRecord(byteOffset: 6, reason: "SPS length \(Int(good[6]) << 8 | 0xFF) runs past the end (\(good.count - 8) bytes left)")) {
            _ = try AVCDecoderConfigurationRecord(bytes: badLength)
        }
        var version = good
        version[0] = 2
        #expect(throws: BitstreamError.self) { _ = try AVCDecoderConfigurationRecord(bytes: version) }
    }

    @Test("Format descriptions: size after cropping, SAR, and when a new SPS needs a new decoder")
    func formatChanges() throws {
        var sps = BadInputTests.sps(widthInMbsMinus1: 9, heightMinus1: 6)  // 160x112 coded
        sps.frameCroppingFlag = true
        sps.frameCropRightOffset = 4   // 8 luma columns
        sps.frameCropBottomOffset = 6  // 12 luma rows
        sps.vuiParametersPresentFlag = true
        sps.vui.aspectRatioInfoPresentFlag = true
        sps.vui.aspectRatioIdc = 255
        sps.vui.sarWidth = 4
        sps.vui.sarHeight = 3
        var pps = PictureParameterSet()
        let a = try H264FormatDescription(sequenceParameterSets: [sps.nalUnit()], pictureParameterSets: [pps.nalUnit(sps: sps)])
        #expect(a.displayWidth == 152 && a.displayHeight == 100)
        #expect(a.codedWidth == 160 && a.codedHeight == 112)
        #expect(a.sampleAspectRatio == (4, 3))
        #expect(a.profileName == "Constrained Baseline")

        // Only the PPS changes: not equal, but the decoder can stay.
        pps.chromaQpIndexOffset = 2
        let b = try H264FormatDescription(sequenceParameterSets: [sps.nalUnit()], pictureParameterSets: [pps.nalUnit(sps: sps)])
        #expect(a != b)
        #expect(!b.requiresNewDecoder(comparedTo: a))
        // A new size needs a new decoder.
        var bigger = sps
        bigger.picWidthInMbsMinus1 = 19
        let c = try H264FormatDescription(sequenceParameterSets: [bigger.nalUnit()], pictureParameterSets: [pps.nalUnit(sps: bigger)])
        #expect(c.requiresNewDecoder(comparedTo: a))
        // The same bytes are equal, whatever their source.
        #expect(try H264FormatDescription(avcC: a.avcC) == a)
        // A PPS naming an SPS that is not there is refused.
        var orphan = PictureParameterSet()
        orphan.seqParameterSetId = 5
        var other = sps
        other.seqParameterSetId = 5
        #expect(throws: BitstreamError.missingParameterSet(kind: "SPS", id: 5)) {
            _ = try H264FormatDescription(sequenceParameterSets: [sps.nalUnit()], pictureParameterSets: [orphan.nalUnit(sps: other)])
        }
    }
}
