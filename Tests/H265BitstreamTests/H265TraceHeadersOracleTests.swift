import Foundation
import NALStream
import H265Bitstream
import Testing
import VTKTestSupport

/// FFmpeg's `trace_headers` as the oracle for vtk's H.265 VPS, SPS, PPS and slice segment header parsers.
///
/// Rules of comparison: for every VPS, SPS, PPS and slice segment NAL unit of the stream, in stream order,
/// the elements vtk reads and the elements FFmpeg prints must be the same list: same names (array indices
/// left out, as the two spell them differently for nested arrays), same bit positions, same values. Left
/// out on FFmpeg's side only: the NAL unit header (vtk reads it as two bytes, not as syntax elements) and
/// rbsp_trailing_bits(); vtk stops at vps_extension_flag (FFmpeg prints nothing after it either when it is 0).
@Suite(.enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed: the trace_headers oracle cannot run"))
struct H265TraceHeadersOracleTests {
    static let headerNames: Set<String> = ["forbidden_zero_bit", "nal_unit_type", "nuh_layer_id", "nuh_temporal_id_plus1",
                                           "rbsp_stop_one_bit", "rbsp_alignment_zero_bit"]

    @Test("VPS, SPS, PPS and slice segment headers equal FFmpeg's trace_headers", arguments: H265ConformanceStream.names)
    func conformance(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else {
            print("H265TraceHeadersOracle: \(TestPaths.sharedMissingMessage)")
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let compared = try Self.check(stream.url)
        #expect(compared > 400, "only \(compared) elements compared")
        print("H265TraceHeadersOracle: \(name): \(compared) elements equal")
    }

    @Test("libx265 streams made at run time (sub-layers, VUI with HRD, weighted bi-prediction, Main 10) equal trace_headers",
          arguments: GeneratedStream.h265)
    func generated(_ stream: GeneratedStream) throws {
        let compared = try Self.check(try stream.url())
        #expect(compared > 400, "only \(compared) elements compared")
    }

    /// Compares every header of the stream at `url`; returns how many elements were compared.
    static func check(_ url: URL) throws -> Int {
        let oracle = try TraceHeaders.run(url).streamRecords.filter { [32, 33, 34].contains($0.nalUnitType) || (0...21).contains($0.nalUnitType) }
        let units = AnnexBScanner.nalUnits(in: Array(try Data(contentsOf: url)))
        var sets = H265ParameterSets()
        var independent: H265SliceSegmentHeader?
        var mine: [(type: Int, elements: [SyntaxElement])] = []
        for unit in units {
            let type = Int(unit.h265Header.type.rawValue)
            var r = SyntaxReader(nalUnit: unit, tracing: true)
            switch type {
            case 32: _ = try VideoParameterSet(&r)
            case 33: _ = try H265SequenceParameterSet(&r)
            case 34: _ = try H265PictureParameterSet(&r)
            case 0...21:
                var trace: [SyntaxElement]? = []
                let header = try H265SliceSegmentHeader(nalUnit: unit, parameterSets: sets, independent: independent, trace: &trace)
                if !header.dependentSliceSegmentFlag { independent = header }
                r.trace = trace
            default: continue
            }
            try sets.store(unit)
            mine.append((type, r.trace ?? []))
        }
        #expect(mine.count == oracle.count, "vtk read \(mine.count) header NAL units, FFmpeg traced \(oracle.count)")
        var compared = 0
        for (index, (record, own)) in zip(oracle, mine).enumerated() {
            let theirs = record.elements.filter { !headerNames.contains($0.name) }
            let label = "NAL unit \(index) (type \(record.nalUnitType))"
            #expect(record.nalUnitType == own.type, "\(label): vtk has type \(own.type)")
            for (a, b) in zip(theirs, own.elements) {
                let same = strip(a.name) == strip(b.name) && a.bitPosition == b.bitPosition && a.value == b.value
                #expect(same, "\(label): FFmpeg \(a), vtk \(b)")
                if !same { return compared }
                compared += 1
            }
            #expect(theirs.count == own.elements.count,
                    "\(label): FFmpeg printed \(theirs.count) elements, vtk read \(own.elements.count); next: \(theirs.dropFirst(own.elements.count).first.map { "\($0)" } ?? "-") / \(own.elements.dropFirst(theirs.count).first.map { "\($0)" } ?? "-")")
        }
        return compared
    }

    static func strip(_ name: String) -> String {
        name.split(separator: "[", maxSplits: 1).first.map(String.init) ?? name
    }
}
