import Foundation
import H264Bitstream
import H265Bitstream
import H265Decoding
import VideoDecoding
import Testing
import VTKTestSupport

/// End of sequence and end of bitstream NAL units (7.4.3.6, 7.4.3.7): the access unit they are in outputs
/// and releases everything in the DPB, and the next picture starts a coded video sequence. The streams are
/// libx265's, edited at run time; the oracle is the number of frames libx265 coded (every one is output,
/// as FFmpeg outputs them), and the decoding process's own rule: every picture decoded is released once.
struct H265EndOfSequenceTests {
    /// 12 frames, closed GOPs of 6 (an IDR every 6), 3 B-frames: pictures wait in the DPB for reordering.
    static let stream = GeneratedStream(name: "x265-closed-gop6-bframes-208x120", width: 208, height: 120, frames: 12,
                                        encoderOptions: ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=6:min-keyint=6:open-gop=0:bframes=3:scenecut=0"],
                                        muxer: "hevc")
    static let endOfSequence = NALUnit([0x48, 0x01])  // nal_unit_type 36, layer 0, TemporalId 0
    static let endOfBitstream = NALUnit([0x4A, 0x01])  // nal_unit_type 37

    static func units() throws -> [H265AccessUnit] {
        guard ProcessRunner.hasFFmpeg else { try Test.cancel("ffmpeg with libx265 is needed to make the stream") }
        return H265AccessUnitAssembler.accessUnits(in: Array(try Data(contentsOf: try stream.url())))
    }

    /// Runs the process; returns the pictures output, and records a failure for any picture not released once.
    static func decode(_ bytes: [UInt8]) -> [H265DecodedPicture] {
        var process = H265DecodingProcess()
        var events: [H265DecoderEvent] = []
        for unit in H265AccessUnitAssembler.accessUnits(in: bytes) { events += process.decode(unit) }
        events += process.flush()
        var decoded = Set<PictureID>(), released = Set<PictureID>()
        var outputs: [H265DecodedPicture] = []
        for event in events {
            switch event {
            case .decode(let request): decoded.insert(request.picture.id)
            case .released(let id): #expect(released.insert(id).inserted, "\(id) released twice")
            case .output(let picture): outputs.append(picture)
            default: break
            }
        }
        #expect(decoded == released, "decoded but never released: \(decoded.subtracting(released).sorted { $0.rawValue < $1.rawValue })")
        return outputs
    }

    @Test("an end of sequence NAL unit before the second IDR: all 12 frames are output, every picture released")
    func endOfSequenceMidStream() throws {
        let units = try Self.units()
        let irap = units.indices.filter { units[$0].slices.first?.header.nalUnitType.isIRAP == true }
        try #require(irap.count >= 2, "libx265 made \(irap.count) IRAP pictures")
        var nalUnits: [NALUnit] = []
        for (index, unit) in units.enumerated() {
            if index == irap[1] { nalUnits.append(Self.endOfSequence) }  // the last NAL unit of the access unit before it
            nalUnits += unit.nalUnits
        }
        let outputs = Self.decode(AnnexBScanner.byteStream(nalUnits))
        #expect(outputs.count == Self.stream.frames)
        // Within each sequence, output in increasing POC order.
        let first = outputs.prefix(while: { !$0.nalUnitType.isIDR || $0.decodeIndex == 0 })
        #expect(first.map(\.poc) == first.map(\.poc).sorted())
    }

    @Test("an end of bitstream NAL unit inside the access unit of the only picture (the shape fuzz-hevc found): its frame is output")
    func endOfBitstreamBeforeThePicture() throws {
        let units = try Self.units()
        let first = try #require(units.first)
        // VPS, EOB, then the rest of the access unit (SPS, PPS, SEI, the IDR's slices): one access unit.
        var nalUnits = first.nalUnits
        let vps = try #require(nalUnits.firstIndex { $0.h265Header.type == .vps })
        nalUnits.insert(Self.endOfBitstream, at: vps + 1)
        let outputs = Self.decode(AnnexBScanner.byteStream(nalUnits))
        #expect(outputs.count == 1)
    }

    @Test("../shared/conformance/h265-robustness/unreleased-picture.265: every picture decoded is released and output")
    func unreleasedPictureFile() throws {
        guard let shared = TestPaths.shared else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let url = shared.appendingPathComponent("conformance/h265-robustness/unreleased-picture.265")
        guard FileManager.default.fileExists(atPath: url.path) else { try Test.cancel("\(url.path) is absent: skipping") }
        let outputs = Self.decode(Array(try Data(contentsOf: url)))
        // FFmpeg decodes one frame from it.
        #expect(outputs.count == 1)
    }
}
