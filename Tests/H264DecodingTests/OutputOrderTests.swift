import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
@testable import H264Decoding
import VideoDecoding

/// Runs the decoding process over a whole stream and records what it asked for.
struct DecodingRun {
    var outputs: [DecodedPicture] = []
    var decodes: [PictureDecodeRequest] = []
    var problems: [DecodingError] = []
    var sequences = 0
    var maxLivePictures = 0
    var accessUnits: [AccessUnit] = []

    init(bytes: [UInt8]) {
        accessUnits = AccessUnitAssembler.accessUnits(in: bytes).filter(\.hasPicture)
        var process = H264DecodingProcess()
        var live = Set<PictureID>()
        func handle(_ events: [H264DecoderEvent]) {
            for event in events {
                switch event {
                case .newSequence: sequences += 1
                case .decode(let request): decodes.append(request); live.insert(request.picture.id)
                case .output(let picture): outputs.append(picture)
                case .discarded: break
                case .released(let id): live.remove(id)
                case .problem(let problem): problems.append(problem)
                }
                maxLivePictures = max(maxLivePictures, live.count)
            }
        }
        for (index, unit) in accessUnits.enumerated() {
            handle(process.decode(unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)))
        }
        handle(process.flush())
    }
}

@Suite("H.264 decoding process: output order and DPB")
struct OutputOrderTests {
    /// FFmpeg's display order as indices of access units in decoding order (ffprobe's pkt_pos of each
    /// output frame is the offset of its access unit's first start code).
    static func ffprobeDisplayOrder(_ url: URL, accessUnits: [AccessUnit]) throws -> [Int] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_frames", "-show_entries", "frame=pkt_pos", "-of", "csv=p=0", url.path])
        // Side-data names may follow the position on the same line ("0,H.26[45] User Data ...").
        let positions = result.stdoutText.split(separator: "\n").compactMap { line in
            Int(line.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
        }
        let starts = accessUnits.map(\.offset)
        return positions.map { pos in starts.firstIndex { $0 > pos && $0 <= pos + 5 } ?? -1 }
    }

    static func check(_ url: URL, frames: Int) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let run = DecodingRun(bytes: bytes)
        #expect(run.problems.isEmpty, "\(run.problems.prefix(3))")
        #expect(run.decodes.count == frames)
        #expect(run.outputs.count == frames)
        let order = run.outputs.map(\.decodeIndex)
        let expected = try ffprobeDisplayOrder(url, accessUnits: run.accessUnits)
        #expect(order == expected, "display order differs from FFmpeg's")
        // The presentation time travels with the picture.
        #expect(run.outputs.allSatisfy { $0.presentationTime == MediaTime(value: Int64($0.decodeIndex), timescale: 25) })
        // The DPB never holds more than its capacity (+1 for the picture being decoded).
        let capacity = H264DecodedPictureBuffer.capacity(for: try #require(run.accessUnits.first?.parameterSets.sps.values.first))
        #expect(run.maxLivePictures <= capacity + 1)
    }

    @Test("Conformance streams: every picture is output once, in FFmpeg's display order",
          .enabled(if: !ConformanceStream.all.isEmpty && ProcessRunner.hasFFmpeg, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        try Self.check(stream.url, frames: stream.frames)
    }

    @Test("libx264 streams (B-pyramid, MMCO, several references): FFmpeg's display order",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        try Self.check(try stream.url(), frames: stream.frames)
    }

    /// Interlaced streams: a frame store is output once both its fields are decoded, in FFmpeg's display
    /// order. Each store carries the presentation time (here the access-unit index) of its first field.
    @Test("Interlaced conformance streams (fields, PAFF, MBAFF): FFmpeg's display order, one output per frame",
          .enabled(if: !ConformanceStream.interlaced.isEmpty && ProcessRunner.hasFFmpeg, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.interlaced)
    func interlaced(stream: ConformanceStream) throws {
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        let run = DecodingRun(bytes: bytes)
        #expect(run.problems.isEmpty, "\(run.problems.prefix(3))")
        #expect(run.outputs.count == stream.frames)
        let order = run.outputs.map { Int($0.presentationTime.value) }
        let expected = try Self.ffprobeDisplayOrder(stream.url, accessUnits: run.accessUnits)
        #expect(order == expected, "display order differs from FFmpeg's")
        let capacity = H264DecodedPictureBuffer.capacity(for: try #require(run.accessUnits.first?.parameterSets.sps.values.first))
        #expect(run.maxLivePictures <= capacity + 1)
    }

    /// A stream made here from BA1_Sony_D (QCIF, 99 macroblocks, level 1.2, one IDR, I pictures only): the stream,
    /// then the stream again with its SPS saying level 1.0, then the stream as it was. Only level_idc changes, so no
    /// new decoder is needed, but the DPB size does (A.3.1 item h, Table A-1: MaxDpbMbs 2376 / 99 = 24, at most 16
    /// frames, at level 1.2; 396 / 99 = 4 at level 1.0): each IDR starts a sequence with its own DPB size, told to the
    /// session (which sizes its surfaces from it) in a new-sequence event.
    @Test("An IDR whose new SPS changes only level_idc re-sizes the DPB and starts a new sequence (A.3.1 h, Table A-1)",
          .enabled(if: ConformanceStream.all.contains { $0.file == "BA1_Sony_D.jsv" }, Comment(rawValue: TestPaths.sharedMissingMessage)))
    func levelChangeAtIDR() throws {
        let stream = try #require(ConformanceStream.all.first { $0.file == "BA1_Sony_D.jsv" })
        let original = [UInt8](try Data(contentsOf: stream.url))
        // The SPS NAL unit is the first after the stream's first start code: header byte 0x27 (nal_unit_type 7), then
        // profile_idc, the constraint flags and level_idc (7.3.2.1.1).
        #expect(Array(original.prefix(5)) == [0, 0, 0, 1, 0x27])
        #expect(original[7] == 12, "level 1.2")
        var relevelled = original
        relevelled[7] = 10
        let units = AccessUnitAssembler.accessUnits(in: original + relevelled + original).filter(\.hasPicture)
        #expect(units.count == 3 * stream.frames)
        let sps = try #require(units.first?.parameterSets.sps[0])
        // Preconditions of the hand-worked sizes: no VUI max_dec_frame_buffering, at most 4 reference frames.
        #expect(!(sps.vuiParametersPresentFlag && sps.vui.bitstreamRestrictionFlag))
        #expect(sps.maxNumRefFrames <= 4)

        var process = H264DecodingProcess()
        var capacities: [Int] = [], sequences: [Int] = [], outputs = 0, problems: [DecodingError] = []
        for unit in units {
            for event in process.decode(unit) {
                switch event {
                case .newSequence(_, let dpbCapacity): sequences.append(dpbCapacity)
                case .output: outputs += 1
                case .problem(let problem): problems.append(problem)
                default: break
                }
            }
            capacities.append(process.dpb.capacity)
        }
        for event in process.flush() { if case .output = event { outputs += 1 } }
        #expect(sequences == [16, 4, 16])
        let frames = stream.frames
        #expect(capacities == Array(repeating: 16, count: frames) + Array(repeating: 4, count: frames) + Array(repeating: 16, count: frames))
        #expect(outputs == 3 * frames)
        #expect(problems.isEmpty, "\(problems.prefix(3))")
    }
}
