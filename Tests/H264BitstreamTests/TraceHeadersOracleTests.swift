import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// FFmpeg's `trace_headers` bitstream filter as a third-party oracle for vtk's SPS, PPS and slice-header
/// parsers, and FFmpeg's h264 parser (one packet per access unit) as an oracle for the access-unit
/// assembler.
///
/// For every SPS, PPS and slice NAL unit of a stream, in stream order, every syntax element FFmpeg prints
/// is compared by name with the field vtk parsed, and every field vtk says was coded must have been printed
/// by FFmpeg: the comparison runs both ways, so a field vtk reads that FFmpeg does not (or the reverse)
/// fails too. Names FFmpeg prints that vtk does not model are listed in ``TraceHeadersOracleTests/ignored``.
@Suite(.enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed: the trace_headers oracle cannot run"))
struct TraceHeadersOracleTests {
    /// Names FFmpeg prints in SPS, PPS and slice NAL units that vtk does not model. Nothing else escapes.
    static let ignored: Set<String> = [
        // rbsp_trailing_bits() (7.3.2.11) after the SPS and PPS: padding, not a field.
        "rbsp_stop_one_bit", "rbsp_alignment_zero_bit",
        // slice_data() (7.3.4) starts with these when entropy_coding_mode_flag is 1: after the slice header.
        "cabac_alignment_one_bit",
    ]

    /// Stands for "no conformance streams" so the parameterized test always has an argument.
    static let noConformanceStreams = "<../shared absent>"
    static let conformanceNames: [String] = ConformanceStream.all.isEmpty ? [noConformanceStreams] : ConformanceStream.all.map(\.file)

    /// Streams made for this oracle on top of GeneratedStream.standard: an MBAFF stream (field_pic_flag,
    /// delta_pic_order_cnt_bottom, mb_adaptive_frame_field_flag) with NAL HRD parameters, a full VUI and
    /// explicit weighted P prediction, which no conformance stream in ../shared carries.
    static let extraGenerated: [GeneratedStream] = [
        GeneratedStream(name: "oracle-x264-mbaff-hrd-vui-320x240", width: 320, height: 240, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params",
                                         "nal-hrd=vbr:vbv-maxrate=800:vbv-bufsize=1000:tff=1:bframes=2:weightp=1:keyint=10:pic-struct=1:"
                                             + "overscan=show:videoformat=pal:colorprim=bt709:transfer=bt709:colormatrix=bt709:chromaloc=1"]),
    ]

    @Test("conformance streams agree with FFmpeg trace_headers", arguments: conformanceNames)
    func conformance(_ name: String) throws {
        guard let stream = ConformanceStream.all.first(where: { $0.file == name }) else {
            print("TraceHeadersOracle: \(TestPaths.sharedMissingMessage)")
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        try check(stream.url, name: name)
    }

    @Test("generated streams agree with FFmpeg trace_headers", arguments: GeneratedStream.standard + extraGenerated)
    func generated(_ stream: GeneratedStream) throws {
        try check(try stream.url(), name: stream.name)
    }

    /// Streams with emulation prevention bytes inside slice headers and with MMCO 5: FFmpeg counts bit
    /// positions in the RBSP, so the slice header's end it prints is VA's slice_data_bit_offset.
    @Test("edited streams (EPB in slice headers, MMCO 5) agree with FFmpeg trace_headers",
          arguments: EditedStream.emulationPrevention + [EditedStream.mmco5])
    func edited(_ stream: EditedStream) throws {
        try check(try stream.url(), name: stream.name)
    }

    /// A stream written here for the syntax no encoder on the machine makes: extended profile with slice
    /// groups (map types 0, 2, 3, 4, 6) and slice_group_change_cycle, picture order count type 1, field
    /// slices, redundant_pic_cnt, SP and SI slices, B-slice explicit weights (l1), every MMCO, long-term
    /// reordering, two HRDs with several SchedSelIdx; and a 4:4:4 SPS with separate colour planes, 12
    /// scaling lists (explicit, default and absent), colour_plane_id and a PPS with its own 12 lists.
    /// The slice data is a stand-in byte: trace_headers reads headers only.
    @Test("a synthetic stream with the rarer syntax agrees with FFmpeg trace_headers")
    func synthetic() throws {
        let url = TestPaths.scratch.appendingPathComponent("trace-headers-synthetic.264")
        try Data(AnnexBScanner.byteStream(Self.syntheticStream())).write(to: url)
        try check(url, name: "synthetic")
    }

    static func syntheticStream() -> [NALUnit] {
        var sps0 = SequenceParameterSet()
        sps0.profileIdc = 88; sps0.constraintSet1Flag = true; sps0.levelIdc = 30
        sps0.picOrderCntType = 1; sps0.offsetForNonRefPic = -3; sps0.offsetForTopToBottomField = 2; sps0.offsetForRefFrame = [4, -1]
        sps0.maxNumRefFrames = 4; sps0.picWidthInMbsMinus1 = 10; sps0.picHeightInMapUnitsMinus1 = 4  // 55 map units
        sps0.frameMbsOnlyFlag = false
        sps0.frameCroppingFlag = true; sps0.frameCropRightOffset = 2; sps0.frameCropBottomOffset = 1
        sps0.vuiParametersPresentFlag = true
        var vui = VUIParameters()
        vui.aspectRatioInfoPresentFlag = true; vui.aspectRatioIdc = 255; vui.sarWidth = 4; vui.sarHeight = 3
        vui.overscanInfoPresentFlag = true; vui.overscanAppropriateFlag = true
        vui.videoSignalTypePresentFlag = true; vui.videoFormat = 2; vui.videoFullRangeFlag = true
        vui.colourDescriptionPresentFlag = true; vui.colourPrimaries = 9; vui.transferCharacteristics = 16; vui.matrixCoefficients = 9
        vui.chromaLocInfoPresentFlag = true; vui.chromaSampleLocTypeTopField = 2; vui.chromaSampleLocTypeBottomField = 5
        vui.timingInfoPresentFlag = true; vui.numUnitsInTick = 1001; vui.timeScale = 60000; vui.fixedFrameRateFlag = true
        var nalHrd = HRDParameters()
        nalHrd.bitRateScale = 3; nalHrd.cpbSizeScale = 5
        var a = HRDParameters.SchedSel(); a.bitRateValueMinus1 = 1234; a.cpbSizeValueMinus1 = 99999; a.cbrFlag = true
        var b = HRDParameters.SchedSel(); b.bitRateValueMinus1 = 5678; b.cpbSizeValueMinus1 = 7
        nalHrd.schedSel = [a, b]
        nalHrd.initialCpbRemovalDelayLengthMinus1 = 17; nalHrd.cpbRemovalDelayLengthMinus1 = 9; nalHrd.dpbOutputDelayLengthMinus1 = 4; nalHrd.timeOffsetLength = 12
        var vclHrd = HRDParameters()
        vclHrd.schedSel = [b]; vclHrd.timeOffsetLength = 0
        vui.nalHrdParametersPresentFlag = true; vui.nalHrd = nalHrd
        vui.vclHrdParametersPresentFlag = true; vui.vclHrd = vclHrd
        vui.lowDelayHrdFlag = true; vui.picStructPresentFlag = true
        vui.bitstreamRestrictionFlag = true; vui.motionVectorsOverPicBoundariesFlag = false; vui.maxBytesPerPicDenom = 3
        vui.maxBitsPerMbDenom = 4; vui.log2MaxMvLengthHorizontal = 11; vui.log2MaxMvLengthVertical = 9
        vui.maxNumReorderFrames = 1; vui.maxDecFrameBuffering = 4
        sps0.vui = vui

        func fmoPPS(_ id: Int, type: Int, _ configure: (inout PictureParameterSet) -> Void) -> PictureParameterSet {
            var p = PictureParameterSet()
            p.picParameterSetId = id; p.numSliceGroupsMinus1 = 2; p.sliceGroupMapType = type
            p.bottomFieldPicOrderInFramePresentFlag = true; p.redundantPicCntPresentFlag = true
            p.weightedPredFlag = true; p.weightedBipredIdc = 1; p.deblockingFilterControlPresentFlag = true
            p.numRefIdxL0DefaultActiveMinus1 = 1
            p.picInitQpMinus26 = -2; p.picInitQsMinus26 = 3; p.chromaQpIndexOffset = -1; p.secondChromaQpIndexOffset = -1
            p.constrainedIntraPredFlag = true
            configure(&p)
            return p
        }
        // PicSizeInMapUnits 55 ÷ SliceGroupChangeRate 7 = 7.86: slice_group_change_cycle has Ceil(Log2(8.86)) = 4 bits.
        let pps0 = fmoPPS(0, type: 4) { $0.numSliceGroupsMinus1 = 1; $0.sliceGroupChangeDirectionFlag = true; $0.sliceGroupChangeRateMinus1 = 6 }
        let pps1 = fmoPPS(1, type: 0) { $0.runLengthMinus1 = [3, 10, 20] }
        let pps2 = fmoPPS(2, type: 2) { $0.topLeft = [0, 12]; $0.bottomRight = [13, 30] }
        let pps3 = fmoPPS(3, type: 6) { $0.picSizeInMapUnitsMinus1 = 54; $0.sliceGroupId = (0..<55).map { $0 % 3 } }
        let pps4 = fmoPPS(4, type: 3) { $0.sliceGroupChangeRateMinus1 = 0 }

        var sps1 = SequenceParameterSet()
        sps1.profileIdc = 244; sps1.levelIdc = 40; sps1.seqParameterSetId = 1
        sps1.chromaFormatIdc = 3; sps1.separateColourPlaneFlag = true; sps1.bitDepthLumaMinus8 = 2; sps1.bitDepthChromaMinus8 = 2
        sps1.qpprimeYZeroTransformBypassFlag = true; sps1.seqScalingMatrixPresentFlag = true
        let flat4 = CodedScalingList.explicit((0..<16).map { UInt8(16 + $0) })
        let ramp8 = CodedScalingList.explicit((0..<64).map { UInt8(8 + $0 / 2) })
        sps1.seqScalingLists = [flat4, .notPresent, .useDefault, .notPresent, .notPresent, flat4,
                                ramp8, .useDefault, .notPresent, ramp8, .useDefault, .notPresent]
        sps1.log2MaxFrameNumMinus4 = 2; sps1.picOrderCntType = 2
        sps1.picWidthInMbsMinus1 = 3; sps1.picHeightInMapUnitsMinus1 = 2
        var pps5 = PictureParameterSet()
        pps5.picParameterSetId = 5; pps5.seqParameterSetId = 1; pps5.entropyCodingModeFlag = true
        pps5.hasHighProfileTail = true; pps5.transform8x8ModeFlag = true; pps5.picScalingMatrixPresentFlag = true
        pps5.picScalingLists = [.useDefault, flat4, .notPresent, .notPresent, .notPresent, .useDefault,
                                .notPresent, ramp8, .useDefault, .notPresent, .notPresent, ramp8]
        pps5.secondChromaQpIndexOffset = 4

        /// A slice NAL unit: `header` writes slice_header(), then a stand-in for slice_data().
        func slice(_ type: NALUnitType, ref: UInt8, cabac: Bool = false, _ header: (inout BitWriter) -> Void) -> NALUnit {
            var w = BitWriter()
            header(&w)
            while !w.isByteAligned { w.flag(cabac) }  // cabac_alignment_one_bit, or the first bits of CAVLC data
            w.u(8, 0xA5)
            w.rbspTrailingBits()
            return NALUnit([NALUnitHeader(nalRefIdc: ref, nalUnitType: type).byte] + EmulationPrevention.insert(w.bytes))
        }
        // FFmpeg's demuxer learns the picture size by parsing a slice; its parser rejects FMO, so a plain
        // picture (pps6) comes first.
        var pps6 = PictureParameterSet()
        pps6.picParameterSetId = 6; pps6.bottomFieldPicOrderInFramePresentFlag = true
        let plainIDR = slice(.idrSlice, ref: 3) { w in
            w.ue(0); w.ue(7); w.ue(6); w.u(4, 0); w.flag(false); w.ue(0); w.se(0); w.se(0)
            w.flag(false); w.flag(false); w.se(0)
        }
        // Slices of pps0 (sps0): frame_num u(4), delta_pic_order_cnt[0..1], redundant_pic_cnt, cycle u(4).
        let idrI = slice(.idrSlice, ref: 3) { w in
            w.ue(0); w.ue(7); w.ue(0); w.u(4, 0); w.flag(false)  // first_mb, slice_type, pps, frame_num, field_pic_flag
            w.ue(3); w.se(-2); w.se(1); w.ue(0)  // idr_pic_id, delta_pic_order_cnt[0], [1], redundant_pic_cnt
            w.flag(true); w.flag(true)  // no_output_of_prior_pics_flag, long_term_reference_flag
            w.se(-3); w.ue(0); w.se(-2); w.se(3)  // slice_qp_delta, deblocking
            w.u(4, 5)  // slice_group_change_cycle
        }
        let fieldP = slice(.nonIDRSlice, ref: 2) { w in
            w.ue(0); w.ue(0); w.ue(0); w.u(4, 1); w.flag(true); w.flag(true)  // bottom field
            w.se(5); w.ue(0)  // delta_pic_order_cnt[0] (no [1] in a field), redundant_pic_cnt
            w.flag(true); w.ue(2)  // num_ref_idx_active_override_flag, l0 minus1
            w.flag(true); w.ue(0); w.ue(1); w.ue(2); w.ue(0); w.ue(1); w.ue(3); w.ue(3)  // modification l0
            w.ue(5); w.ue(3)  // luma/chroma log2 weight denom
            w.flag(true); w.se(20); w.se(-3); w.flag(false)
            w.flag(false); w.flag(true); w.se(4); w.se(-1); w.se(9); w.se(2)
            w.flag(false); w.flag(false)
            w.flag(true)  // adaptive_ref_pic_marking_mode_flag
            w.ue(1); w.ue(2); w.ue(2); w.ue(1); w.ue(3); w.ue(0); w.ue(1); w.ue(4); w.ue(3); w.ue(6); w.ue(2); w.ue(5); w.ue(0)
            w.se(2); w.ue(1)  // slice_qp_delta, disable_deblocking_filter_idc 1
            w.u(4, 2)
        }
        let weightedB = slice(.nonIDRSlice, ref: 0) { w in
            w.ue(0); w.ue(1); w.ue(0); w.u(4, 2); w.flag(false)
            w.se(0); w.se(-1); w.ue(0)
            w.flag(false)  // direct_spatial_mv_pred_flag
            w.flag(true); w.ue(0); w.ue(1)
            w.flag(false); w.flag(true); w.ue(1); w.ue(0); w.ue(3)  // modification l0 off, l1 on
            w.ue(2); w.ue(1)
            w.flag(true); w.se(3); w.se(4); w.flag(true); w.se(1); w.se(0); w.se(2); w.se(-5)  // l0[0]
            w.flag(false); w.flag(false)  // l1[0]
            w.flag(true); w.se(-7); w.se(127); w.flag(false)  // l1[1]
            w.se(-1); w.ue(2); w.se(6); w.se(-6)
            w.u(4, 0)
        }
        let sp = slice(.nonIDRSlice, ref: 1) { w in
            w.ue(0); w.ue(3); w.ue(0); w.u(4, 3); w.flag(false)
            w.se(1); w.se(0); w.ue(0)
            w.flag(false); w.flag(false)  // override, modification l0
            w.ue(0); w.ue(0); w.flag(false); w.flag(false); w.flag(false); w.flag(false)  // weights, 2 default entries
            w.flag(false)  // adaptive_ref_pic_marking_mode_flag
            w.se(0); w.flag(true); w.se(-4)  // slice_qp_delta, sp_for_switch_flag, slice_qs_delta
            w.ue(0); w.se(0); w.se(0)
            w.u(4, 8)
        }
        let si = slice(.nonIDRSlice, ref: 1) { w in
            w.ue(0); w.ue(4); w.ue(0); w.u(4, 4); w.flag(false)
            w.se(0); w.se(0); w.ue(0)
            w.flag(false)
            w.se(1); w.se(5); w.ue(1)
            w.u(4, 1)
        }
        let type3 = slice(.nonIDRSlice, ref: 1) { w in  // pps4: map type 3, rate 1: Ceil(Log2(56)) = 6 bits
            w.ue(0); w.ue(2); w.ue(4); w.u(4, 5); w.flag(false)
            w.se(0); w.se(0); w.ue(0)
            w.flag(false)
            w.se(0); w.ue(1)
            w.u(6, 33)
        }
        let colourPlane = slice(.nonIDRSlice, ref: 1, cabac: true) { w in  // pps5 (sps1): colour_plane_id u(2), frame_num u(6)
            w.ue(0); w.ue(5); w.ue(5); w.u(2, 2); w.u(6, 9)
            w.flag(false); w.flag(false)  // override, modification l0
            w.flag(false)  // adaptive_ref_pic_marking_mode_flag
            w.ue(2); w.se(-7)  // cabac_init_idc, slice_qp_delta
        }
        return [sps0.nalUnit(), pps6.nalUnit(sps: sps0), plainIDR, pps0.nalUnit(sps: sps0), pps1.nalUnit(sps: sps0), pps2.nalUnit(sps: sps0), pps3.nalUnit(sps: sps0),
                pps4.nalUnit(sps: sps0), idrI, fieldP, weightedB, sp, si, type3,
                sps1.nalUnit(), pps5.nalUnit(sps: sps1), colourPlane]
    }

    // MARK: The comparison

    func check(_ url: URL, name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let trace = try TraceHeaders.run(url)

        // Second oracle: FFmpeg's h264 parser cuts the byte stream into one packet per access unit.
        let accessUnits = AccessUnitAssembler.accessUnits(in: bytes)
        #expect(trace.packetCount == accessUnits.count, "\(name): FFmpeg made \(trace.packetCount) packets, vtk assembled \(accessUnits.count) access units")

        let kinds: Set<UInt8> = [1, 5, 6, 7, 8]
        let units = AnnexBScanner.nalUnits(in: bytes).filter { kinds.contains($0.type.rawValue) }
        let records = trace.streamRecords.filter { $0.nalUnitType >= 0 && kinds.contains(UInt8($0.nalUnitType)) }
        #expect(units.count == records.count, "\(name): vtk found \(units.count) SPS/PPS/SEI/slice NAL units, FFmpeg traced \(records.count)")

        var parameterSets = ParameterSets()
        var tally = Tally()
        var problems: [String] = []
        for (index, (unit, record)) in zip(units, records).enumerated() {
            let at = "\(name) NAL #\(index) (\(unit.type), byte \(unit.offset))"
            guard Int(unit.type.rawValue) == record.nalUnitType else {
                problems.append("\(at): FFmpeg traced nal_unit_type \(record.nalUnitType) here; stopping, the streams are out of step")
                break
            }
            var expected = Expected()
            expected.header(unit)
            do {
                switch unit.type {
                case .sequenceParameterSet:
                    let sps = try SequenceParameterSet(nalUnit: unit)
                    try parameterSets.store(unit)
                    expected.sps(sps)
                    tally.sps += 1
                case .pictureParameterSet:
                    try parameterSets.store(unit)
                    let table = parameterSets.sps
                    let pps = try PictureParameterSet(nalUnit: unit) { table[$0] }
                    guard let sps = table[pps.seqParameterSetId] else { throw BitstreamError.missingParameterSet(kind: "SPS", id: pps.seqParameterSetId) }
                    expected.pps(pps, sps: sps)
                    tally.pps += 1
                case .nonIDRSlice, .idrSlice:
                    let header = try SliceHeader(nalUnit: unit, parameterSets: parameterSets)
                    let pps = parameterSets.pps[header.picParameterSetId]!
                    expected.slice(header, sps: parameterSets.sps[pps.seqParameterSetId]!, pps: pps)
                    // Where the slice header ends: the slice_data_bit_offset vtk sends to VA (RBSP bits, NAL header
                    // byte included) against the end of the last element FFmpeg prints before slice_data().
                    if let last = record.elements.last(where: { !Self.ignored.contains($0.name) }) {
                        tally.compared += 1
                        if header.sliceDataPosition.vaBitOffset != last.bitPosition + last.bitLength {
                            problems.append("\(at): slice header ends at bit \(header.sliceDataPosition.vaBitOffset) in vtk, at \(last.bitPosition + last.bitLength) in FFmpeg (after \(last.name))")
                        }
                    }
                    tally.slices += 1
                default:  // SEI: only the recovery point is modelled; compare it, leave the other payloads alone.
                    tally.sei += 1
                    let point = try RecoveryPoint.find(in: unit)
                    let names = ["recovery_frame_cnt", "exact_match_flag", "broken_link_flag", "changing_slice_group_idc"]
                    let printed = record.elements.filter { names.contains($0.name) }.map(\.value)
                    let parsed: [Int64] = point.map { p -> [Int64] in
                        [Int64(p.recoveryFrameCnt), p.exactMatchFlag ? 1 : 0, p.brokenLinkFlag ? 1 : 0, Int64(p.changingSliceGroupIdc)]
                    } ?? []
                    tally.compared += printed.count
                    if printed != parsed { problems.append("\(at): recovery point \(parsed) in vtk, \(printed) in FFmpeg") }
                    continue
                }
            } catch {
                problems.append("\(at): vtk could not parse it: \(error)")
                continue
            }
            problems += Self.compare(record, with: expected, at: at, tally: &tally)
        }

        print("TraceHeadersOracle \(name): \(tally.sps) SPS, \(tally.pps) PPS, \(tally.slices) slices, \(tally.sei) SEI; "
              + "\(tally.compared) elements compared, \(tally.ignored) ignored; \(trace.packetCount) packets, \(accessUnits.count) access units; "
              + "\(problems.count) differences")
        for problem in problems.prefix(25) { Issue.record(Comment(rawValue: problem)) }
        if problems.count > 25 { Issue.record("\(name): \(problems.count - 25) more differences") }
        #expect(tally.compared > 0, "\(name): nothing compared")
        #expect(tally.sps > 0 && tally.pps > 0 && tally.slices > 0, "\(name): expected SPS, PPS and slices")
    }

    struct Tally {
        var sps = 0, pps = 0, slices = 0, sei = 0, compared = 0, ignored = 0
    }

    /// Walks FFmpeg's elements, turning delta_scale runs back into scaling lists, and matches each against
    /// vtk's fields by name and occurrence; then reports vtk fields FFmpeg never printed.
    static func compare(_ record: TraceHeaders.NALRecord, with expected: Expected, at: String, tally: inout Tally) -> [String] {
        var problems: [String] = []
        var occurrences: [String: Int] = [:]
        var consumed = Set<String>()
        func check(_ name: String, _ value: Int64) {
            let key = Expected.key(name, occurrences[name, default: 0])
            occurrences[name, default: 0] += 1
            guard let vtk = expected.values[key] else {
                problems.append("\(at): FFmpeg prints \(key) = \(value), which vtk did not parse here")
                return
            }
            consumed.insert(key)
            tally.compared += 1
            if vtk != value { problems.append("\(at): \(key) is \(vtk) in vtk, \(value) in FFmpeg") }
        }

        let elements = record.elements
        var i = 0
        while i < elements.count {
            let element = elements[i]
            i += 1
            if ignored.contains(element.name) { tally.ignored += 1; continue }
            check(element.name, element.value)
            // seq_scaling_list_present_flag[i] / pic_scaling_list_present_flag[i] = 1: scaling_list() follows.
            guard element.value == 1, element.name.hasSuffix("]"),
                  element.name.hasPrefix("seq_scaling_list_present_flag[") || element.name.hasPrefix("pic_scaling_list_present_flag["),
                  let open = element.name.firstIndex(of: "["), let index = Int(element.name[element.name.index(after: open)...].dropLast())
            else { continue }
            var deltas: [Int] = []
            while i < elements.count && elements[i].name.hasPrefix("delta_scale[") {
                deltas.append(Int(elements[i].value))
                i += 1
            }
            let prefix = String(element.name.prefix(3))  // "seq" or "pic"
            guard let list = reconstructScalingList(deltas, size: index < 6 ? 16 : 64) else {
                problems.append("\(at): FFmpeg's \(deltas.count) delta_scale values for \(element.name) do not make one scaling_list()")
                continue
            }
            for (name, value) in Expected.scalingListFields(prefix, index, list) { check(name, value) }
        }
        for key in expected.values.keys.sorted() where !consumed.contains(key) {
            problems.append("\(at): vtk parsed \(key) = \(expected.values[key]!), which FFmpeg did not print")
        }
        return problems
    }

    /// scaling_list() of 7.3.2.1.1.1 run on FFmpeg's delta_scale values; nil unless they are exactly the
    /// deltas the loop reads.
    static func reconstructScalingList(_ deltas: [Int], size: Int) -> CodedScalingList? {
        var list = [UInt8](repeating: 0, count: size)
        var lastScale = 8, nextScale = 8, k = 0
        for j in 0..<size {
            if nextScale != 0 {
                guard k < deltas.count else { return nil }
                nextScale = (lastScale + deltas[k] + 256) % 256
                k += 1
                if j == 0 && nextScale == 0 { return k == deltas.count ? .useDefault : nil }  // useDefaultScalingMatrixFlag
            }
            list[j] = UInt8(nextScale == 0 ? lastScale : nextScale)
            lastScale = Int(list[j])
        }
        return k == deltas.count ? .explicit(list) : nil
    }
}

/// vtk's parsed fields under FFmpeg's element names, for the elements that were coded (the syntax
/// conditions use vtk's own parsed values). Repeated names are told apart by occurrence: `name#k`.
struct Expected {
    var values: [String: Int64] = [:]
    private var occurrences: [String: Int] = [:]

    static func key(_ name: String, _ occurrence: Int) -> String { occurrence == 0 ? name : "\(name)#\(occurrence)" }

    mutating func add(_ name: String, _ value: Int) { add(name, Int64(value)) }
    mutating func add(_ name: String, _ value: Bool) { add(name, Int64(value ? 1 : 0)) }
    mutating func add(_ name: String, _ value: UInt8) { add(name, Int64(value)) }
    mutating func add(_ name: String, _ value: UInt32) { add(name, Int64(value)) }
    mutating func add(_ name: String, _ value: Int64) {
        let k = occurrences[name, default: 0]
        occurrences[name] = k + 1
        values[Self.key(name, k)] = value
    }

    /// A scaling list as comparable fields: whether it is "use the default", and its values.
    static func scalingListFields(_ prefix: String, _ index: Int, _ list: CodedScalingList) -> [(String, Int64)] {
        switch list {
        case .notPresent: return [("\(prefix)_scaling_list[\(index)].notPresent", 1)]
        case .useDefault: return [("\(prefix)_scaling_list[\(index)].useDefault", 1)]
        case .explicit(let values):
            return [("\(prefix)_scaling_list[\(index)].useDefault", 0)] + values.enumerated().map { ("\(prefix)_scaling_list[\(index)][\($0.offset)]", Int64($0.element)) }
        }
    }

    mutating func scalingLists(_ prefix: String, _ lists: [CodedScalingList]) {
        for (i, list) in lists.enumerated() {
            add("\(prefix)_scaling_list_present_flag[\(i)]", list != .notPresent)
            if list != .notPresent { for (name, value) in Self.scalingListFields(prefix, i, list) { add(name, value) } }
        }
    }

    /// nal_unit() header (7.3.1).
    mutating func header(_ unit: NALUnit) {
        add("forbidden_zero_bit", unit.header.forbiddenZeroBit)
        add("nal_ref_idc", unit.header.nalRefIdc)
        add("nal_unit_type", unit.header.nalUnitType.rawValue)
    }

    /// seq_parameter_set_data() (7.3.2.1.1) and vui_parameters() (E.1.1).
    mutating func sps(_ s: SequenceParameterSet) {
        add("profile_idc", s.profileIdc)
        add("constraint_set0_flag", s.constraintSet0Flag)
        add("constraint_set1_flag", s.constraintSet1Flag)
        add("constraint_set2_flag", s.constraintSet2Flag)
        add("constraint_set3_flag", s.constraintSet3Flag)
        add("constraint_set4_flag", s.constraintSet4Flag)
        add("constraint_set5_flag", s.constraintSet5Flag)
        add("reserved_zero_2bits", s.reservedZero2Bits)
        add("level_idc", s.levelIdc)
        add("seq_parameter_set_id", s.seqParameterSetId)
        if s.hasHighProfileFields {
            add("chroma_format_idc", s.chromaFormatIdc)
            if s.chromaFormatIdc == 3 { add("separate_colour_plane_flag", s.separateColourPlaneFlag) }
            add("bit_depth_luma_minus8", s.bitDepthLumaMinus8)
            add("bit_depth_chroma_minus8", s.bitDepthChromaMinus8)
            add("qpprime_y_zero_transform_bypass_flag", s.qpprimeYZeroTransformBypassFlag)
            add("seq_scaling_matrix_present_flag", s.seqScalingMatrixPresentFlag)
            if s.seqScalingMatrixPresentFlag { scalingLists("seq", s.seqScalingLists) }
        }
        add("log2_max_frame_num_minus4", s.log2MaxFrameNumMinus4)
        add("pic_order_cnt_type", s.picOrderCntType)
        if s.picOrderCntType == 0 {
            add("log2_max_pic_order_cnt_lsb_minus4", s.log2MaxPicOrderCntLsbMinus4)
        } else if s.picOrderCntType == 1 {
            add("delta_pic_order_always_zero_flag", s.deltaPicOrderAlwaysZeroFlag)
            add("offset_for_non_ref_pic", s.offsetForNonRefPic)
            add("offset_for_top_to_bottom_field", s.offsetForTopToBottomField)
            add("num_ref_frames_in_pic_order_cnt_cycle", s.offsetForRefFrame.count)
            for (i, offset) in s.offsetForRefFrame.enumerated() { add("offset_for_ref_frame[\(i)]", offset) }
        }
        add("max_num_ref_frames", s.maxNumRefFrames)
        add("gaps_in_frame_num_allowed_flag", s.gapsInFrameNumValueAllowedFlag)
        add("pic_width_in_mbs_minus1", s.picWidthInMbsMinus1)
        add("pic_height_in_map_units_minus1", s.picHeightInMapUnitsMinus1)
        add("frame_mbs_only_flag", s.frameMbsOnlyFlag)
        if !s.frameMbsOnlyFlag { add("mb_adaptive_frame_field_flag", s.mbAdaptiveFrameFieldFlag) }
        add("direct_8x8_inference_flag", s.direct8x8InferenceFlag)
        add("frame_cropping_flag", s.frameCroppingFlag)
        if s.frameCroppingFlag {
            add("frame_crop_left_offset", s.frameCropLeftOffset)
            add("frame_crop_right_offset", s.frameCropRightOffset)
            add("frame_crop_top_offset", s.frameCropTopOffset)
            add("frame_crop_bottom_offset", s.frameCropBottomOffset)
        }
        add("vui_parameters_present_flag", s.vuiParametersPresentFlag)
        guard s.vuiParametersPresentFlag else { return }
        let v = s.vui
        add("aspect_ratio_info_present_flag", v.aspectRatioInfoPresentFlag)
        if v.aspectRatioInfoPresentFlag {
            add("aspect_ratio_idc", v.aspectRatioIdc)
            if v.aspectRatioIdc == 255 { add("sar_width", v.sarWidth); add("sar_height", v.sarHeight) }
        }
        add("overscan_info_present_flag", v.overscanInfoPresentFlag)
        if v.overscanInfoPresentFlag { add("overscan_appropriate_flag", v.overscanAppropriateFlag) }
        add("video_signal_type_present_flag", v.videoSignalTypePresentFlag)
        if v.videoSignalTypePresentFlag {
            add("video_format", v.videoFormat)
            add("video_full_range_flag", v.videoFullRangeFlag)
            add("colour_description_present_flag", v.colourDescriptionPresentFlag)
            if v.colourDescriptionPresentFlag {
                add("colour_primaries", v.colourPrimaries)
                add("transfer_characteristics", v.transferCharacteristics)
                add("matrix_coefficients", v.matrixCoefficients)
            }
        }
        add("chroma_loc_info_present_flag", v.chromaLocInfoPresentFlag)
        if v.chromaLocInfoPresentFlag {
            add("chroma_sample_loc_type_top_field", v.chromaSampleLocTypeTopField)
            add("chroma_sample_loc_type_bottom_field", v.chromaSampleLocTypeBottomField)
        }
        add("timing_info_present_flag", v.timingInfoPresentFlag)
        if v.timingInfoPresentFlag {
            add("num_units_in_tick", v.numUnitsInTick)
            add("time_scale", v.timeScale)
            add("fixed_frame_rate_flag", v.fixedFrameRateFlag)
        }
        add("nal_hrd_parameters_present_flag", v.nalHrdParametersPresentFlag)
        if v.nalHrdParametersPresentFlag { hrd(v.nalHrd) }
        add("vcl_hrd_parameters_present_flag", v.vclHrdParametersPresentFlag)
        if v.vclHrdParametersPresentFlag { hrd(v.vclHrd) }
        if v.nalHrdParametersPresentFlag || v.vclHrdParametersPresentFlag { add("low_delay_hrd_flag", v.lowDelayHrdFlag) }
        add("pic_struct_present_flag", v.picStructPresentFlag)
        add("bitstream_restriction_flag", v.bitstreamRestrictionFlag)
        if v.bitstreamRestrictionFlag {
            add("motion_vectors_over_pic_boundaries_flag", v.motionVectorsOverPicBoundariesFlag)
            add("max_bytes_per_pic_denom", v.maxBytesPerPicDenom)
            add("max_bits_per_mb_denom", v.maxBitsPerMbDenom)
            add("log2_max_mv_length_horizontal", v.log2MaxMvLengthHorizontal)
            add("log2_max_mv_length_vertical", v.log2MaxMvLengthVertical)
            add("max_num_reorder_frames", v.maxNumReorderFrames)
            add("max_dec_frame_buffering", v.maxDecFrameBuffering)
        }
    }

    /// hrd_parameters() (E.1.2).
    mutating func hrd(_ h: HRDParameters) {
        add("cpb_cnt_minus1", h.cpbCntMinus1)
        add("bit_rate_scale", h.bitRateScale)
        add("cpb_size_scale", h.cpbSizeScale)
        for (i, s) in h.schedSel.enumerated() {
            add("bit_rate_value_minus1[\(i)]", s.bitRateValueMinus1)
            add("cpb_size_value_minus1[\(i)]", s.cpbSizeValueMinus1)
            add("cbr_flag[\(i)]", s.cbrFlag)
        }
        add("initial_cpb_removal_delay_length_minus1", h.initialCpbRemovalDelayLengthMinus1)
        add("cpb_removal_delay_length_minus1", h.cpbRemovalDelayLengthMinus1)
        add("dpb_output_delay_length_minus1", h.dpbOutputDelayLengthMinus1)
        add("time_offset_length", h.timeOffsetLength)
    }

    /// pic_parameter_set_rbsp() (7.3.2.2).
    mutating func pps(_ p: PictureParameterSet, sps: SequenceParameterSet) {
        add("pic_parameter_set_id", p.picParameterSetId)
        add("seq_parameter_set_id", p.seqParameterSetId)
        add("entropy_coding_mode_flag", p.entropyCodingModeFlag)
        add("bottom_field_pic_order_in_frame_present_flag", p.bottomFieldPicOrderInFramePresentFlag)
        add("num_slice_groups_minus1", p.numSliceGroupsMinus1)
        if p.numSliceGroupsMinus1 > 0 {
            add("slice_group_map_type", p.sliceGroupMapType)
            switch p.sliceGroupMapType {
            case 0: for (i, v) in p.runLengthMinus1.enumerated() { add("run_length_minus1[\(i)]", v) }
            case 2:
                for i in p.topLeft.indices { add("top_left[\(i)]", p.topLeft[i]); add("bottom_right[\(i)]", p.bottomRight[i]) }
            case 3, 4, 5:
                add("slice_group_change_direction_flag", p.sliceGroupChangeDirectionFlag)
                add("slice_group_change_rate_minus1", p.sliceGroupChangeRateMinus1)
            case 6:
                add("pic_size_in_map_units_minus1", p.picSizeInMapUnitsMinus1)
                for (i, v) in p.sliceGroupId.enumerated() { add("slice_group_id[\(i)]", v) }
            default: break
            }
        }
        add("num_ref_idx_l0_default_active_minus1", p.numRefIdxL0DefaultActiveMinus1)
        add("num_ref_idx_l1_default_active_minus1", p.numRefIdxL1DefaultActiveMinus1)
        add("weighted_pred_flag", p.weightedPredFlag)
        add("weighted_bipred_idc", p.weightedBipredIdc)
        add("pic_init_qp_minus26", p.picInitQpMinus26)
        add("pic_init_qs_minus26", p.picInitQsMinus26)
        add("chroma_qp_index_offset", p.chromaQpIndexOffset)
        add("deblocking_filter_control_present_flag", p.deblockingFilterControlPresentFlag)
        add("constrained_intra_pred_flag", p.constrainedIntraPredFlag)
        add("redundant_pic_cnt_present_flag", p.redundantPicCntPresentFlag)
        if p.hasHighProfileTail {
            add("transform_8x8_mode_flag", p.transform8x8ModeFlag)
            add("pic_scaling_matrix_present_flag", p.picScalingMatrixPresentFlag)
            if p.picScalingMatrixPresentFlag { scalingLists("pic", p.picScalingLists) }
            add("second_chroma_qp_index_offset", p.secondChromaQpIndexOffset)
        }
    }

    /// slice_header() (7.3.3) with ref_pic_list_modification() (7.3.3.1), pred_weight_table() (7.3.3.2)
    /// and dec_ref_pic_marking() (7.3.3.3).
    mutating func slice(_ h: SliceHeader, sps: SequenceParameterSet, pps: PictureParameterSet) {
        let type = h.sliceType
        add("first_mb_in_slice", h.firstMbInSlice)
        add("slice_type", h.sliceTypeRaw)
        add("pic_parameter_set_id", h.picParameterSetId)
        if sps.separateColourPlaneFlag { add("colour_plane_id", h.colourPlaneId) }
        add("frame_num", h.frameNum)
        if !sps.frameMbsOnlyFlag {
            add("field_pic_flag", h.fieldPicFlag)
            if h.fieldPicFlag { add("bottom_field_flag", h.bottomFieldFlag) }
        }
        if h.idrPicFlag { add("idr_pic_id", h.idrPicId) }
        if sps.picOrderCntType == 0 {
            add("pic_order_cnt_lsb", h.picOrderCntLsb)
            if pps.bottomFieldPicOrderInFramePresentFlag && !h.fieldPicFlag { add("delta_pic_order_cnt_bottom", h.deltaPicOrderCntBottom) }
        }
        if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            add("delta_pic_order_cnt[0]", h.deltaPicOrderCnt[0])
            if pps.bottomFieldPicOrderInFramePresentFlag && !h.fieldPicFlag { add("delta_pic_order_cnt[1]", h.deltaPicOrderCnt[1]) }
        }
        if pps.redundantPicCntPresentFlag { add("redundant_pic_cnt", h.redundantPicCnt) }
        if type == .b { add("direct_spatial_mv_pred_flag", h.directSpatialMvPredFlag) }
        if type == .p || type == .sp || type == .b {
            add("num_ref_idx_active_override_flag", h.numRefIdxActiveOverrideFlag)
            if h.numRefIdxActiveOverrideFlag {
                add("num_ref_idx_l0_active_minus1", h.numRefIdxL0ActiveMinus1)
                if type == .b { add("num_ref_idx_l1_active_minus1", h.numRefIdxL1ActiveMinus1) }
            }
        }
        if !type.isIntra {
            add("ref_pic_list_modification_flag_l0", h.refPicListModificationFlagL0)
            if h.refPicListModificationFlagL0 { modifications(h.refPicListModificationL0) }
        }
        if type == .b {
            add("ref_pic_list_modification_flag_l1", h.refPicListModificationFlagL1)
            if h.refPicListModificationFlagL1 { modifications(h.refPicListModificationL1) }
        }
        if let t = h.predWeightTable {
            add("luma_log2_weight_denom", t.lumaLog2WeightDenom)
            if sps.chromaArrayType != 0 { add("chroma_log2_weight_denom", t.chromaLog2WeightDenom) }
            weights("l0", t.l0, chroma: sps.chromaArrayType != 0)
            if type == .b { weights("l1", t.l1, chroma: sps.chromaArrayType != 0) }
        }
        if let m = h.decRefPicMarking {
            if h.idrPicFlag {
                add("no_output_of_prior_pics_flag", m.noOutputOfPriorPicsFlag)
                add("long_term_reference_flag", m.longTermReferenceFlag)
            } else {
                add("adaptive_ref_pic_marking_mode_flag", m.adaptiveRefPicMarkingModeFlag)
                if m.adaptiveRefPicMarkingModeFlag {
                    for op in m.operations {
                        add("memory_management_control_operation", op.operation)
                        if op.operation == 1 || op.operation == 3 { add("difference_of_pic_nums_minus1", op.differenceOfPicNumsMinus1) }
                        if op.operation == 2 { add("long_term_pic_num", op.longTermPicNum) }
                        if op.operation == 3 || op.operation == 6 { add("long_term_frame_idx", op.longTermFrameIdx) }
                        if op.operation == 4 { add("max_long_term_frame_idx_plus1", op.maxLongTermFrameIdxPlus1) }
                    }
                    add("memory_management_control_operation", 0)
                }
            }
        }
        if pps.entropyCodingModeFlag && !type.isIntra { add("cabac_init_idc", h.cabacInitIdc) }
        add("slice_qp_delta", h.sliceQpDelta)
        if type == .sp || type == .si {
            if type == .sp { add("sp_for_switch_flag", h.spForSwitchFlag) }
            add("slice_qs_delta", h.sliceQsDelta)
        }
        if pps.deblockingFilterControlPresentFlag {
            add("disable_deblocking_filter_idc", h.disableDeblockingFilterIdc)
            if h.disableDeblockingFilterIdc != 1 {
                add("slice_alpha_c0_offset_div2", h.sliceAlphaC0OffsetDiv2)
                add("slice_beta_offset_div2", h.sliceBetaOffsetDiv2)
            }
        }
        if pps.numSliceGroupsMinus1 > 0 && (3...5).contains(pps.sliceGroupMapType) { add("slice_group_change_cycle", h.sliceGroupChangeCycle) }
    }

    mutating func modifications(_ list: [RefPicListModification]) {
        for m in list {
            add("modification_of_pic_nums_idc", m.modificationOfPicNumsIdc)
            switch m.modificationOfPicNumsIdc {
            case 0, 1: add("abs_diff_pic_num_minus1", m.value)
            case 2: add("long_term_pic_num", m.value)
            default: add("abs_diff_view_idx_minus1", m.value)  // MVC only (G.7.3.3.1.1)
            }
        }
        add("modification_of_pic_nums_idc", 3)
    }

    /// The coded entries only: vtk fills in the 7.4.3.2 defaults where a flag is 0, FFmpeg prints nothing there.
    mutating func weights(_ list: String, _ entries: [PredWeightTable.Entry], chroma: Bool) {
        for (i, e) in entries.enumerated() {
            add("luma_weight_\(list)_flag[\(i)]", e.lumaWeightFlag)
            if e.lumaWeightFlag {
                add("luma_weight_\(list)[\(i)]", e.lumaWeight)
                add("luma_offset_\(list)[\(i)]", e.lumaOffset)
            }
            if chroma {
                add("chroma_weight_\(list)_flag[\(i)]", e.chromaWeightFlag)
                if e.chromaWeightFlag {
                    for j in 0..<2 {
                        add("chroma_weight_\(list)[\(i)][\(j)]", e.chromaWeight[j])
                        add("chroma_offset_\(list)[\(i)][\(j)]", e.chromaOffset[j])
                    }
                }
            }
        }
    }
}
