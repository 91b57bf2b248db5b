import DecompressionSession
import Foundation
import H264Bitstream
import H264Decoding
import H265Bitstream
import H265Decoding
import NALStream
import Playback
import Testing
import VideoDisplay
import VTKMedia
import VTKTestSupport

/// The Annex B source against two oracles. Rules of comparison:
/// - access units: the whole-file assembler (`accessUnits(in:)`) over the same bytes gives the same pictures, NAL
///   unit for NAL unit, with the same offsets, whatever size the chunks are read in;
/// - display positions: a sync sample's time must be the display position (in the whole stream's display order,
///   from the VA-free decoding process run over all of it: `DisplayOrder`) of the first picture that the same
///   process outputs when it starts at that sync sample.
@Suite("Annex B playback source")
struct AnnexBPlaybackSourceTests {
    static var ready: Bool { ProcessRunner.hasFFmpeg }

    static let h264 = GeneratedStream.standard[1]  // B-pyramid, keyint 20: IDRs at 0 and 20
    /// Open GOPs: frame 15 is a CRA whose RASL pictures (12 to 14) follow it in decoding order.
    static let h265 = GeneratedStream(name: "x265-bpyramid-opengop-320x240", width: 320, height: 240, frames: 30,
                                      encoderOptions: ["-c:v", "libx265", "-x265-params",
                                                       "log-level=error:bframes=3:b-pyramid=1:keyint=15:min-keyint=15:scenecut=0:open-gop=1"],
                                      muxer: "hevc")

    static func samples<Codec: AnnexBPlaybackCodec>(_ source: AnnexBPlaybackSource<Codec>) throws -> [PlaybackSample] {
        var out: [PlaybackSample] = []
        while let sample = try source.next() { out.append(sample) }
        return out
    }

    @Test("H.264: the access units of a source read in 97-byte chunks are the whole-file assembler's, and each sync sample starts where a decode from it shows its first picture",
          .enabled(if: ready))
    func h264() throws {
        let url = try Self.h264.url()
        let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: url))).filter(\.hasPicture)
        let source = try AnnexBPlaybackSource<H264Codec>(path: url.path, frameRate: (25, 1), loops: false, chunkSize: 97)
        let samples = try Self.samples(source)
        #expect(samples.map { ($0.accessUnit as? AccessUnit)?.nalUnits } == units.map(\.nalUnits))
        let display = DisplayOrder.of(h264: units)
        var syncs = 0
        for (index, sample) in samples.enumerated() {
            #expect(abs(sample.decodeTime.seconds - Double(index) / 25) < 1e-9)
            guard sample.isSync else { #expect(!sample.presentationTime.isNumeric); continue }
            syncs += 1
            var process = H264DecodingProcess()
            var first: Int?
            for (offset, unit) in units[index...].enumerated() where first == nil {
                for case .output(let picture) in process.decode(unit, presentationTime: MediaTime(value: Int64(index + offset), timescale: 1)) where first == nil {
                    first = Int(picture.presentationTime.value)
                }
            }
            let firstShown = try #require(first)
            let expected = try #require(display[firstShown])
            #expect(abs(sample.presentationTime.seconds - Double(expected) / 25) < 1e-9, "sync sample \(index): first picture shown \(expected)")
        }
        #expect(syncs == 2)
    }

    @Test("H.265 with open GOPs: the CRA's sample starts at display position 15 (after its RASL pictures), the stream's first at 0; access units match in 61-byte chunks",
          .enabled(if: ready))
    func h265() throws {
        let url = try Self.h265.url()
        let units = H265AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: url))).filter(\.hasPicture)
        let source = try AnnexBPlaybackSource<H265Codec>(path: url.path, frameRate: (25, 1), loops: false, chunkSize: 61)
        let samples = try Self.samples(source)
        #expect(samples.map { ($0.accessUnit as? H265AccessUnit)?.nalUnits } == units.map(\.nalUnits))
        let display = DisplayOrder.of(h265: units)
        let syncs = samples.enumerated().filter { $0.element.isSync }
        #expect(syncs.count >= 2)
        for (index, sample) in syncs {
            var process = H265DecodingProcess()
            var first: Int?
            for (offset, unit) in units[index...].enumerated() where first == nil {
                for case .output(let picture) in process.decode(unit, presentationTime: MediaTime(value: Int64(index + offset), timescale: 1)) where first == nil {
                    first = Int(picture.presentationTime.value)
                }
            }
            let firstShown = try #require(first)
            let expected = try #require(display[firstShown])
            #expect(abs(sample.presentationTime.seconds - Double(expected) / 25) < 1e-9, "sync sample \(index): first picture shown \(expected)")
        }
        #expect(syncs.map { Int(($0.element.presentationTime.seconds * 25).rounded()) }.prefix(2) == [0, 15])
    }

    @Test("seek lands on the last sync sample at or before the target, before and after the stream was read through, and next() goes on from it",
          .enabled(if: ready))
    func seek() throws {
        let url = try Self.h265.url()
        let source = try AnnexBPlaybackSource<H265Codec>(path: url.path, frameRate: (25, 1), loops: false, chunkSize: 500)
        // Not read yet: the source reads ahead to find the sync samples.
        #expect(abs(try source.seek(to: 0.84) - 0.6) < 1e-9)
        let cra = try #require(try source.next())
        #expect(cra.isSync && abs(cra.presentationTime.seconds - 0.6) < 1e-9 && abs(cra.decodeTime.seconds - 12.0 / 25) < 1e-9)
        #expect(abs(try source.seek(to: 0.3) - 0) < 1e-9)
        #expect(try source.next()?.decodeTime.seconds == 0)
        _ = try Self.samples(source)
        #expect(abs(try source.seek(to: 5) - 0.6) < 1e-9)
        #expect(source.pictureCount == 30)
    }

    @Test("looping repeats the samples with their times shifted by the pass; a missing file and a file without pictures are errors")
    func loopingAndErrors() throws {
        #expect(throws: PlaybackError.self) { try AnnexBPlaybackSource<H264Codec>(path: "/nonexistent/vtk.264", frameRate: nil, loops: false) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-playback-empty-\(getpid()).264")
        try Data([0, 0, 0, 1, 0x09, 0x10]).write(to: empty)  // an access unit delimiter only
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: PlaybackError.self) { try AnnexBPlaybackSource<H264Codec>(path: empty.path, frameRate: nil, loops: false) }
        guard Self.ready else { return }
        let source = try AnnexBPlaybackSource<H264Codec>(path: try Self.h264.url().path, frameRate: (25, 1), loops: true)
        var samples: [PlaybackSample] = []
        for _ in 0..<45 { samples.append(try #require(try source.next())) }
        #expect(abs(samples[40].decodeTime.seconds - 40.0 / 25) < 1e-9 && samples[40].isSync && abs(samples[40].presentationTime.seconds - 40.0 / 25) < 1e-9)
    }
}
