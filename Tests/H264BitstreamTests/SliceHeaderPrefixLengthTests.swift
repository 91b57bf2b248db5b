import Foundation
import Testing
import VTKTestSupport
@testable import H264Bitstream

/// A slice header is parsed from the first 128 payload bytes, and again from 4 KiB only when it does not end
/// well inside them. The oracle is the 4 KiB parse itself: for every prefix length tried first, from one byte
/// to past the header's end (so the cut falls before, inside and after the header, and on its emulation
/// prevention bytes), the header (fields, length and ``SliceDataPosition``) must be the 4 KiB one.
@Suite("Slice header parsed from a short prefix")
struct SliceHeaderPrefixLengthTests {
    static func check(_ bytes: [UInt8]) throws -> (slices: Int, withEPB: Int) {
        var sets = ParameterSets()
        var slices = 0, withEPB = 0
        for unit in AnnexBScanner.nalUnits(in: bytes) {
            if try sets.store(unit) { continue }
            guard unit.type.isSlice else { continue }
            let whole = try SliceHeader.parse(unit, sets, tryingFirst: SliceHeader.longPrefix)
            #expect(try SliceHeader(nalUnit: unit, parameterSets: sets) == whole, "slice at \(unit.offset)")
            let headerBytes = whole.headerBitLengthInRBSP / 8 + 1 + whole.sliceDataPosition.emulationPreventionBytesInHeader
            for short in 1...(headerBytes + 2 * SliceHeader.shortPrefixMargin) {
                #expect(try SliceHeader.parse(unit, sets, tryingFirst: short) == whole, "slice at \(unit.offset), \(short) bytes first")
            }
            slices += 1
            if whole.sliceDataPosition.emulationPreventionBytesInHeader > 0 { withEPB += 1 }
        }
        return (slices, withEPB)
    }

    @Test("Headers with emulation prevention bytes (IDR headers of edited streams): every first prefix gives the 4 KiB parse",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: EditedStream.emulationPrevention)
    func emulationPrevention(stream: EditedStream) throws {
        let result = try Self.check([UInt8](try Data(contentsOf: try stream.url())))
        #expect(result.slices >= stream.base.frames)
        #expect(result.withEPB > 1, "the stream has headers with emulation prevention bytes")
    }

    @Test("Long headers (16 references, weighted prediction): every first prefix gives the 4 KiB parse",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.emulationPreventionInSliceHeaders)
    func longHeaders(stream: GeneratedStream) throws {
        let result = try Self.check([UInt8](try Data(contentsOf: try stream.url())))
        #expect(result.slices >= stream.frames)
    }
}
