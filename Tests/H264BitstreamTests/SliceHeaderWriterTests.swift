import Foundation
import Testing
import VTKTestSupport
@testable import H264Bitstream

/// The slice-header writer is the inverse of the parser: every slice header of real streams, written
/// back, gives the stream's own header bits (the oracle is the stream's encoder: JM, x264 …).
@Suite("Slice header writer")
struct SliceHeaderWriterTests {
    static func checkStream(_ bytes: [UInt8]) throws -> Int {
        var checked = 0
        for unit in AccessUnitAssembler.accessUnits(in: bytes) {
            for slice in unit.slices {
                let ps = unit.parameterSets
                let pps = try #require(ps.pps[slice.header.picParameterSetId])
                let sps = try #require(ps.sps[pps.seqParameterSetId])
                var w = BitWriter()
                slice.header.write(&w, sps: sps, pps: pps)
                let bits = 8 + slice.header.headerBitLengthInRBSP
                #expect(w.bitCount == bits, "slice at \(slice.nalUnit.offset): \(w.bitCount) bits written, \(bits) in the stream")
                let rbsp = [slice.nalUnit.bytes[slice.nalUnit.bytes.startIndex]] + EmulationPrevention.remove(slice.nalUnit.bytes.dropFirst())
                w.alignWithZeros()
                // Compare the header's bits; the last byte only as far as the header reaches.
                let whole = bits / 8
                #expect(Array(w.bytes.prefix(whole)) == Array(rbsp.prefix(whole)), "slice at \(slice.nalUnit.offset)")
                if bits % 8 != 0 {
                    let mask = UInt8(0xFF) << UInt8(8 - bits % 8)
                    #expect(w.bytes[whole] & mask == rbsp[whole] & mask, "slice at \(slice.nalUnit.offset): last header byte")
                }
                checked += 1
            }
        }
        return checked
    }

    @Test("Conformance streams: every slice header written back equals the stream's",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        let checked = try Self.checkStream([UInt8](try Data(contentsOf: stream.url)))
        #expect(checked >= stream.frames)
    }

    @Test("libx264 streams (B-pyramid, MMCO, slices, weighted prediction): headers written back equal the stream's",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        let checked = try Self.checkStream([UInt8](try Data(contentsOf: try stream.url())))
        #expect(checked >= stream.frames)
    }
}
