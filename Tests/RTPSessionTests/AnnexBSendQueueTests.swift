import DecompressionSession
import Foundation
import H264Bitstream
import RTPSession
import Testing
import VTKTestSupport

/// Sending order and display positions of an Annex B stream read in chunks. The oracle for display order is
/// ffprobe: its frames come in display order, and their picture types must be the stream's pictures (decoding
/// order, types read from the slice headers) put in the positions the queue gave them.
@Suite("Annex B streaming for vtk send")
struct AnnexBSendQueueTests {
    static var ready: Bool { ProcessRunner.hasFFmpeg }

    static func drain(_ stream: [UInt8], chunk: Int, measure: Bool = false) -> (units: [AnnexBSendQueue<H264Codec>.Unit], queue: AnnexBSendQueue<H264Codec>, maxHeld: Int) {
        var queue = AnnexBSendQueue<H264Codec>()
        var units: [AnnexBSendQueue<H264Codec>.Unit] = []
        var start = 0
        var maxHeld = 0
        while start < stream.count {
            units += queue.append(Array(stream[start..<min(stream.count, start + chunk)]))
            start += chunk
            guard measure else { continue }
            let pictures = units.filter(\.hasPicture).count
            let seen = AccessUnitAssembler.accessUnits(in: Array(stream[..<min(stream.count, start)])).filter(\.hasPicture).count
            maxHeld = max(maxHeld, seen - pictures)
        }
        units += queue.finish()
        return (units, queue, maxHeld)
    }

    @Test("B-pyramid: display positions as ffprobe shows the frames, the same for any chunk size; units in decoding order, byte for byte",
          .enabled(if: ready, "needs ffmpeg (libx264) and ffprobe"))
    func displayOrder() throws {
        let url = try GeneratedStream.standard[1].url()  // bframes=3, b-pyramid, 40 frames
        let stream = try Array(Data(contentsOf: url))
        let whole = AccessUnitAssembler.accessUnits(in: stream)
        let (units, queue, maxHeld) = Self.drain(stream, chunk: 997, measure: true)
        #expect(units.map(\.nalUnits) == whole.map { $0.nalUnits.map { Array($0.bytes) } })
        #expect(queue.sawPicture)
        #expect(queue.parameterSets.count == 2, "SPS and PPS for the SDP")
        #expect(queue.frameRate == 25)
        let pictures = units.filter(\.hasPicture)
        let positions = pictures.compactMap(\.displayPosition)
        #expect(positions.sorted() == Array(0..<pictures.count), "a permutation: every picture shown once")
        #expect(maxHeld < 10, "streamed: a few pictures held at a time, not the whole file (held \(maxHeld))")

        let types = whole.filter(\.hasPicture).map { $0.slices.first.map { "\($0.header.sliceType)" } ?? "?" }
        var shown = Array(repeating: "", count: pictures.count)
        for (index, picture) in pictures.enumerated() { shown[picture.displayPosition ?? index] = types[index] }
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pict_type", "-of", "csv=p=0", url.path])
        let oracle = probe.stdoutText.split(whereSeparator: \.isNewline).map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
        #expect(shown == oracle)
        #expect(oracle.contains("B"), "the stream has B-frames, so display order differs from decoding order")

        for chunk in [7, 4096, stream.count] {
            #expect(Self.drain(stream, chunk: chunk).units.map(\.displayPosition) == units.map(\.displayPosition), "chunk \(chunk)")
        }
    }

    @Test("No picture: nothing is released, and the caller learns it")
    func noPictures() {
        var queue = AnnexBSendQueue<H264Codec>()
        // An AUD and an SEI-like unit, no slice.
        let step1 = queue.append([0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x06, 0x05, 0x01, 0x00, 0x80])
        #expect(step1.isEmpty)
        let step2 = queue.finish()
        #expect(step2.isEmpty)
        #expect(!queue.sawPicture)
    }
}
