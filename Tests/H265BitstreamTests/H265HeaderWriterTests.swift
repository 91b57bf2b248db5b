import Foundation
import NALStream
import H265Bitstream
import Testing
import VTKTestSupport

/// The H.265 header writers (VPS, SPS, PPS, slice segment header) against two oracles: vtk's own parser
/// (write → parse gives back the same values) and FFmpeg (a stream whose every header vtk rewrote decodes
/// to the same pictures as the original, and FFmpeg's trace_headers reads the rewritten headers as vtk's
/// parser does).
///
/// Rules of comparison: the parsed structs must be equal after writing, except what the writer codes
/// differently by design and the parser records: a slice's `shortTermRefPicSetBits` and
/// `sliceDataByteOffset` (own short-term sets are always coded explicitly, not predicted). The structs do
/// not keep the profile constraint flags, HRD buffer values or VPS layer sets, which the writer codes as
/// zeros or minimal values; none of them changes decoding, which the MD5 comparison checks.
@Suite(.enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed: the header writer oracles cannot run"))
struct H265HeaderWriterTests {
    @Test("Rewritten VPS/SPS/PPS/slice headers parse back equal and decode as the original in FFmpeg", arguments: GeneratedStream.h265)
    func rewrite(_ stream: GeneratedStream) throws {
        let original = Array(try Data(contentsOf: try stream.url()))
        let (rewritten, counts) = try Self.rewriteHeaders(original)
        #expect(counts.parameterSets >= 3 && counts.slices >= stream.frames, "rewrote \(counts)")
        let url = TestPaths.scratch.appendingPathComponent("rewritten-\(stream.name).265")
        try Data(rewritten).write(to: url)
        let originalURL = try stream.url()
        let expected = try VTKSoftFFmpeg.softwareDecodeMD5(originalURL)
        let actual = try VTKSoftFFmpeg.softwareDecodeMD5(url)
        #expect(expected != nil && actual == expected, "FFmpeg decodes the rewritten stream to \(actual ?? "nothing"), the original to \(expected ?? "nothing")")
        let compared = try H265TraceHeadersOracleTests.check(url)
        #expect(compared > 400)
    }

    @Test func explicitShortTermSetInSliceHeaderRoundTrips() throws {
        var sps = H265SequenceParameterSet()
        sps.picWidthInLumaSamples = 64
        sps.picHeightInLumaSamples = 64
        sps.log2DiffMaxMinLumaCodingBlockSize = 1
        sps.log2DiffMaxMinLumaTransformBlockSize = 2
        sps.maxDecPicBufferingMinus1 = [3]
        sps.maxNumReorderPics = [1]
        sps.maxLatencyIncreasePlus1 = [0]
        sps.profileTierLevel.generalProfileIdc = 1
        sps.profileTierLevel.generalProfileCompatibilityFlags = 0x6000_0000
        sps.profileTierLevel.generalLevelIdc = 93
        sps.temporalMvpEnabledFlag = true
        sps.sampleAdaptiveOffsetEnabledFlag = true
        var set = ShortTermReferencePictureSet()
        set.deltaPocS0 = [-1, -3]
        set.usedByCurrPicS0 = [true, false]
        set.deltaPocS1 = [2]
        set.usedByCurrPicS1 = [true]
        sps.shortTermRefPicSets = [set]
        var pps = H265PictureParameterSet()
        pps.cabacInitPresentFlag = true
        pps.deblockingFilterControlPresentFlag = true
        pps.deblockingFilterOverrideEnabledFlag = true
        pps.loopFilterAcrossSlicesEnabledFlag = true
        var sets = H265ParameterSets()
        try sets.store(NALUnit(VideoParameterSet().nalUnit()))
        try sets.store(NALUnit(sps.nalUnit()))
        try sets.store(NALUnit(pps.nalUnit()))
        #expect(sets.sps[0] == sps)
        #expect(sets.pps[0] == pps)

        var header = H265SliceSegmentHeader()
        header.nalUnitType = .trailR
        header.firstSliceSegmentInPicFlag = false
        header.sliceSegmentAddress = 2
        header.sliceType = .b
        header.picOrderCntLsb = 5
        var own = ShortTermReferencePictureSet()
        own.deltaPocS0 = [-2]
        own.usedByCurrPicS0 = [true]
        own.deltaPocS1 = [1, 4]
        own.usedByCurrPicS1 = [true, true]
        header.shortTermRefPicSet = own
        header.temporalMvpEnabledFlag = true
        header.saoLumaFlag = true
        header.numRefIdxActiveOverrideFlag = true
        header.numRefIdxL0ActiveMinus1 = 1
        header.numRefIdxL1ActiveMinus1 = 2
        header.mvdL1ZeroFlag = true
        header.cabacInitFlag = true
        header.collocatedFromL0Flag = false
        header.collocatedRefIdx = 2
        header.fiveMinusMaxNumMergeCand = 3
        header.qpDelta = -4
        header.deblockingFilterOverrideFlag = true
        header.betaOffsetDiv2 = 2
        header.tcOffsetDiv2 = -1
        header.loopFilterAcrossSlicesEnabledFlag = true
        let bytes = header.headerBytes(sps: sps, pps: pps)
        let parsed = try H265SliceSegmentHeader(nalUnit: NALUnit(EmulationPrevention.insert(bytes) + [0x80]), parameterSets: sets)
        #expect(parsed.sliceDataByteOffset == bytes.count)
        #expect(Self.comparable(parsed) == Self.comparable(header))
    }

    static func comparable(_ header: H265SliceSegmentHeader) -> H265SliceSegmentHeader {
        var h = header
        h.shortTermRefPicSetBits = 0
        h.sliceDataByteOffset = 0
        return h
    }

    /// Parses every header of `stream`, checks that writing then parsing gives it back, and returns the
    /// stream with every VPS, SPS, PPS and slice segment header replaced by vtk's writing of it.
    static func rewriteHeaders(_ stream: [UInt8]) throws -> (bytes: [UInt8], counts: (parameterSets: Int, slices: Int)) {
        var sets = H265ParameterSets()
        var out: [UInt8] = []
        var parameterSets = 0, slices = 0
        var independent: H265SliceSegmentHeader?
        for unit in AnnexBScanner.nalUnits(in: stream) {
            let type = unit.h265Header.type
            var written = Array(unit.bytes)
            switch type.rawValue {
            case 32:
                let vps = try VideoParameterSet(nalUnit: unit)
                written = vps.nalUnit()
                #expect(try VideoParameterSet(nalUnit: NALUnit(written)) == vps)
                parameterSets += 1
            case 33:
                let sps = try H265SequenceParameterSet(nalUnit: unit)
                written = sps.nalUnit()
                #expect(try H265SequenceParameterSet(nalUnit: NALUnit(written)) == sps)
                parameterSets += 1
            case 34:
                let pps = try H265PictureParameterSet(nalUnit: unit)
                written = pps.nalUnit()
                #expect(try H265PictureParameterSet(nalUnit: NALUnit(written)) == pps)
                parameterSets += 1
            case 0...21:
                let header = try H265SliceSegmentHeader(nalUnit: unit, parameterSets: sets, independent: independent)
                if !header.dependentSliceSegmentFlag { independent = header }
                guard let pps = sets.pps[header.picParameterSetId], let sps = sets.sps[pps.seqParameterSetId] else {
                    Issue.record("slice without its parameter sets")
                    continue
                }
                let rbsp = EmulationPrevention.remove(unit.bytes.dropFirst(2))
                let data = Array(rbsp[(header.sliceDataByteOffset - 2)...])
                let headerBytes = header.headerBytes(sps: sps, pps: pps)
                written = Array(headerBytes.prefix(2)) + EmulationPrevention.insert(Array(headerBytes.dropFirst(2)) + data)
                let again = try H265SliceSegmentHeader(nalUnit: NALUnit(written), parameterSets: sets, independent: independent)
                #expect(comparable(again) == comparable(header))
                #expect(again.sliceDataByteOffset == headerBytes.count)
                slices += 1
            default:
                break
            }
            try sets.store(NALUnit(written))
            out += [0, 0, 0, 1] + written
        }
        return (out, (parameterSets, slices))
    }
}
