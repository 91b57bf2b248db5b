import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// SliceDataPosition places slice_data() as VA wants it, and SliceRewriter (which makes the test streams
/// with emulation prevention in slice headers and with MMCO 5) keeps every slice's data.
@Suite("Where slice_data() starts; slices rewritten with their data")
struct SliceDataPositionTests {
    /// Slice NAL units that do not come back byte for byte when their header is parsed and written again
    /// with their slice data.
    static func roundTripDifferences(_ bytes: [UInt8]) throws -> (slices: Int, differing: [String]) {
        let original = AnnexBScanner.nalUnits(in: bytes)
        let rewritten = AnnexBScanner.nalUnits(in: try SliceRewriter.rewrite(bytes) { _ in })
        #expect(original.count == rewritten.count)
        var slices = 0, differing: [String] = []
        for (a, b) in zip(original, rewritten) where a.type.isSlice {
            slices += 1
            if !a.bytes.elementsEqual(b.bytes) { differing.append("slice at byte \(a.offset)") }
        }
        return (slices, differing)
    }

    @Test("Conformance streams: every slice NAL unit rewritten unchanged is the same bytes",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformanceRoundTrip(stream: ConformanceStream) throws {
        let (slices, differing) = try Self.roundTripDifferences([UInt8](try Data(contentsOf: stream.url)))
        #expect(slices > 0)
        #expect(differing.isEmpty, "\(differing.count) of \(slices) differ; first: \(differing.prefix(3))")
    }

    @Test("libx264 streams: every slice NAL unit rewritten unchanged is the same bytes",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"), arguments: GeneratedStream.standard)
    func generatedRoundTrip(stream: GeneratedStream) throws {
        let (slices, differing) = try Self.roundTripDifferences([UInt8](try Data(contentsOf: try stream.url())))
        #expect(slices > 0)
        #expect(differing.isEmpty, "\(differing.count) of \(slices) differ; first: \(differing.prefix(3))")
    }

    /// An IDR slice header written with a 16-bit frame_num 0 and idr_pic_id 65535 (31 zero bits in a row)
    /// needs an emulation prevention byte; VA's offset leaves it out, the escaped one counts it.
    @Test("slice_data_bit_offset leaves out an emulation prevention byte in the header")
    func offsetWithoutEmulationPrevention() throws {
        var sps = SequenceParameterSet()
        sps.profileIdc = 66
        sps.log2MaxFrameNumMinus4 = 12
        sps.picOrderCntType = 2
        sps.maxNumRefFrames = 1
        sps.picWidthInMbsMinus1 = 3
        sps.picHeightInMapUnitsMinus1 = 3
        sps.frameMbsOnlyFlag = true
        var pps = PictureParameterSet()
        var header = SliceHeader()
        header.nalUnitType = .idrSlice
        header.nalRefIdc = 3
        header.sliceTypeRaw = 7
        header.idrPicId = 65535
        header.decRefPicMarking = DecRefPicMarking()
        var w = BitWriter()
        header.writeHeaderRBSP(&w, sps: sps, pps: pps)
        let headerBits = w.bitCount
        w.u(8, 0xA5)  // stand-in slice data
        w.rbspTrailingBits()
        let escaped = EmulationPrevention.insert(w.bytes)
        #expect(escaped.count > w.bytes.count, "the header needs an emulation prevention byte")
        let unit = NALUnit([NALUnitHeader(nalRefIdc: 3, nalUnitType: .idrSlice).byte] + escaped)
        var sets = ParameterSets()
        try sets.store(sps.nalUnit())
        pps.seqParameterSetId = sps.seqParameterSetId
        try sets.store(pps.nalUnit(sps: sps))
        let parsed = try SliceHeader(nalUnit: unit, parameterSets: sets)
        #expect(parsed.idrPicId == 65535)
        #expect(parsed.headerBitLengthInRBSP == headerBits)
        #expect(parsed.sliceDataPosition.emulationPreventionBytesInHeader == 1)
        #expect(parsed.sliceDataPosition.vaBitOffset == 8 + headerBits)
        #expect(parsed.sliceDataPosition.escapedBitOffset == 16 + headerBits)
    }

    @Test("Edited streams carry emulation prevention bytes in their IDR slice headers and decode like their base",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: EditedStream.emulationPrevention + [EditedStream.mmco5])
    func editedStreams(stream: EditedStream) throws {
        let bytes = [UInt8](try Data(contentsOf: try stream.url()))
        var sets = ParameterSets()
        var idrSlices = 0, withEPB = 0, mmco5 = 0
        for unit in AnnexBScanner.nalUnits(in: bytes) {
            if try sets.store(unit) { continue }
            guard unit.type.isSlice else { continue }
            let header = try SliceHeader(nalUnit: unit, parameterSets: sets)
            if header.idrPicFlag { idrSlices += 1 }
            if header.idrPicFlag, header.sliceDataPosition.emulationPreventionBytesInHeader > 0 { withEPB += 1 }
            if header.decRefPicMarking?.operations.contains(where: { $0.operation == 5 }) == true { mmco5 += 1 }
        }
        switch stream.edit {
        case .emulationPreventionInSliceHeaders:
            #expect(idrSlices > 1 && withEPB == idrSlices, "\(withEPB) of \(idrSlices) IDR slices have an EPB in the header")
        case .mmco5(let pictures):
            #expect(mmco5 == pictures.count * 2, "2 slices per picture")
        }
        // The edits keep the decoding process's result: FFmpeg decodes the edited stream to the base's pictures.
        let base = try #require(try VTKSoftFFmpeg.softwareDecodeMD5(try stream.base.url()))
        #expect(try VTKSoftFFmpeg.softwareDecodeMD5(try stream.url()) == base)
    }
}
