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

    /// C.5.2.2: an IRAP picture with NoRaslOutputFlag 1 starts a sequence under its own SPS, and the DPB's output
    /// rules are that SPS's sps_max_num_reorder_pics and SpsMaxLatencyPictures, even when nothing else changes
    /// (no new decoder is needed). The stream is libx265's three times over, the middle copy with an SPS whose
    /// reorder limit is raised to sps_max_dec_pic_buffering_minus1 and whose latency limit changes; the oracle is the
    /// rewritten SPS itself, and every frame is still output once, in POC order within each sequence.
    @Test("an IDR whose new SPS changes only the reorder and latency limits applies them to the DPB (C.5.2.2)")
    func reorderLimitChangeAtIDR() throws {
        let units = try Self.units()
        let spsUnit = try #require(units.first?.nalUnits.first { $0.h265Header.type == .sps })
        let original = try H265SequenceParameterSet(nalUnit: spsUnit)
        var raised = original
        let reorder = original.maxDecPicBuffering - 1
        try #require(reorder > original.highestMaxNumReorderPics, "libx265's SPS leaves no room to raise the reorder limit")
        raised.maxNumReorderPics = raised.maxNumReorderPics.map { _ in reorder }
        raised.maxLatencyIncreasePlus1 = raised.maxLatencyIncreasePlus1.map { _ in 3 }
        #expect(raised.highestMaxNumReorderPics == reorder && raised.maxLatencyPictures == reorder + 2)
        let rewritten = NALUnit(raised.nalUnit())
        #expect(try H265SequenceParameterSet(nalUnit: rewritten) == raised)
        let copy = units.flatMap(\.nalUnits)
        let middle = copy.map { $0.h265Header.type == .sps ? rewritten : $0 }
        let bytes = AnnexBScanner.byteStream(copy + middle + copy)

        var process = H265DecodingProcess()
        var limits: [[Int?]] = [], outputs: [H265DecodedPicture] = []
        for unit in H265AccessUnitAssembler.accessUnits(in: bytes) {
            for event in process.decode(unit) { if case .output(let picture) = event { outputs.append(picture) } }
            limits.append([process.dpb.maxNumReorder, process.dpb.maxLatency])
        }
        for event in process.flush() { if case .output(let picture) = event { outputs.append(picture) } }
        let frames = Self.stream.frames
        let before: [Int?] = [original.highestMaxNumReorderPics, original.maxLatencyPictures]
        let after: [Int?] = [reorder, reorder + 2]
        #expect(limits == Array(repeating: before, count: frames) + Array(repeating: after, count: frames)
                + Array(repeating: before, count: frames))
        #expect(outputs.count == 3 * frames)
        // The limits change when pictures come out, not their order: each copy's pictures come out together, in
        // the first copy's order, which is increasing POC within each closed GOP (an IDR every 6 frames).
        let pocs = (0..<3).map { copyIndex in outputs.count == 3 * frames ? outputs[copyIndex * frames ..< (copyIndex + 1) * frames].map(\.poc) : [] }
        #expect(pocs[1] == pocs[0] && pocs[2] == pocs[0])
        #expect(pocs[0] == Array(0..<6) + Array(0..<6))
    }
}
