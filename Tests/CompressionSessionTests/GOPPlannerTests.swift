@testable import CompressionSession
import CLibVA
import Foundation
import H264Bitstream
import H264Decoding
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

/// The GOP planner and the headers written from its plans, checked against vtk's H.264 decoding process
/// (itself checked against FFmpeg on the conformance streams) and FFmpeg's trace_headers:
/// - a decoder that reads vtk's SPS, PPS and packed slice headers builds exactly the reference lists
///   vtk planned (8.2.4), so list modifications, frame_num and the sliding window agree;
/// - it outputs the pictures in display order, so POCs and the reorder depth in the VUI agree;
/// - every reference a plan names is still in the decoder's DPB.
@Suite("H264GOPPlanner: picture types, coding order, frame_num, POC and reference lists")
struct GOPPlannerTests {
    typealias Plan = H264GOPPlanner.PicturePlan

    static func plans(_ c: H264GOPPlanner.Configuration, count: Int, forced: Set<Int> = [], fps: Int32 = 30) -> [Plan] {
        var planner = H264GOPPlanner(c)
        var out: [Plan] = []
        for i in 0..<count { out += planner.push(presentationTime: MediaTime(value: Int64(i), timescale: fps), forceKeyFrame: forced.contains(i)) }
        return out + planner.flush()
    }

    /// Display-order picture types as a string, e.g. "IBBPBBP".
    static func pattern(_ plans: [Plan]) -> String {
        plans.sorted { $0.displayIndex < $1.displayIndex }.map { $0.type == .idr ? "I" : $0.type.rawValue }.joined()
    }

    @Test func ipppWithOneReference() {
        let p = Self.plans(.init(maxKeyFrameInterval: 4), count: 9)
        #expect(p.map(\.isIDR) == [true, false, false, false, true, false, false, false, true])
        #expect(p.map(\.frameNum) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
        #expect(p.map(\.picOrderCnt) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
        #expect(p.map(\.idrPicId) == [0, 0, 0, 0, 1, 1, 1, 1, 2])
        for i in 1..<9 where !p[i].isIDR {
            #expect(p[i].list0.map(\.slot) == [p[i - 1].reconstructedSlot])
            #expect(!p[i].list0.contains { $0.slot == p[i].reconstructedSlot })
        }
    }

    @Test func frameNumAndPOCWrap() {
        let p = Self.plans(.init(log2MaxFrameNum: 4, log2MaxPicOrderCntLsb: 4), count: 20)
        #expect(p.map(\.frameNum) == (0..<20).map { $0 % 16 })
        #expect(p.map(\.picOrderCntLsb) == (0..<20).map { $0 % 16 })
    }

    @Test func durationLimitAndForcedKeyFrames() {
        let p = Self.plans(.init(maxKeyFrameIntervalDuration: MediaTime(value: 1, timescale: 3)), count: 30, forced: [5])
        // 1/3 s is 10 frames at 30 fps, counted from the last IDR, forced ones included.
        #expect(p.indices.filter { p[$0].isIDR } == [0, 5, 15, 25])
    }

    @Test("Two B-frames: IBBPBBP in display order, I P B B P B B in coding order")
    func twoBFrames() {
        let p = Self.plans(.init(maxKeyFrameInterval: 0, bFrames: 2), count: 7)
        #expect(Self.pattern(p) == "IBBPBBP")
        #expect(p.map(\.displayIndex) == [0, 3, 1, 2, 6, 4, 5])
        // Non-reference B pictures take frame_num of the next reference (7.4.3).
        #expect(p.map(\.frameNum) == [0, 1, 2, 2, 2, 3, 3])
        #expect(p.map(\.isReference) == [true, true, false, false, true, false, false])
        let b1 = p[2]
        #expect(b1.list0.map(\.picOrderCnt) == [0] && b1.list1.map(\.picOrderCnt) == [3])
        #expect(H264GOPPlanner.Configuration(bFrames: 2).maxNumReorderFrames == 1)
    }

    @Test("B-pyramid of three: the middle B is a reference coded before its neighbours")
    func pyramid() {
        let c = H264GOPPlanner.Configuration(bFrames: 3, bPyramid: true)
        let p = Self.plans(c, count: 9)
        #expect(p.map(\.displayIndex) == [0, 4, 2, 1, 3, 8, 6, 5, 7])
        #expect(p.map(\.isReference) == [true, true, true, false, false, true, true, false, false])
        #expect(c.maxNumReorderFrames == 2 && c.maxNumRefFrames == 4)
        let b1 = p[3]
        #expect(b1.list0.map(\.picOrderCnt) == [0] && b1.list1.map(\.picOrderCnt) == [2])
    }

    @Test("Closed GOP: the B-frames before an IDR close on a P; open GOP: an I they may reference")
    func closedAndOpenGOP() {
        let closed = Self.plans(.init(maxKeyFrameInterval: 5, bFrames: 2), count: 11)
        #expect(Self.pattern(closed) == "IBBPPIBBPPI")
        let open = Self.plans(.init(maxKeyFrameInterval: 6, bFrames: 2, openGOP: true), count: 13)
        #expect(Self.pattern(open) == "IBBPBBIBBPBBI")
        #expect(open.filter(\.isIDR).map(\.displayIndex) == [0])
        let leading = open.first { $0.displayIndex == 4 }
        #expect(leading?.list1.first?.picOrderCnt == 6)  // the I at display 6
    }

    @Test("A forced keyframe lands on the asked frame even with B-frames waiting")
    func forcedWithBFrames() {
        let p = Self.plans(.init(bFrames: 3), count: 12, forced: [6])
        #expect(p.filter(\.isIDR).map(\.displayIndex) == [0, 6])
        #expect(Self.pattern(p) == "IBBBPPIBBBPP")
    }

    @Test("End of stream: the last waiting frame becomes a P")
    func flush() {
        let p = Self.plans(.init(bFrames: 3), count: 7)
        #expect(Self.pattern(p) == "IBBBPBP")
        #expect(Set(p.map(\.displayIndex)) == Set(0..<7))
    }

    @Test("Several references: P pictures predict from the nearest ones, nearest first")
    func severalReferences() {
        let p = Self.plans(.init(referenceCount: 3), count: 6)
        #expect(p[4].list0.map(\.frameNum) == [3, 2, 1])
        #expect(Set(p[4].list0.map(\.slot)).count == 3 && !p[4].list0.map(\.slot).contains(p[4].reconstructedSlot))
    }

    @Test("Reconstructed slots: never one a reference holds or a picture in flight uses")
    func slotsStayDistinct() {
        for c in [H264GOPPlanner.Configuration(bFrames: 3, bPyramid: true, referenceCount: 2, framesInFlight: 3),
                  .init(maxKeyFrameInterval: 7, bFrames: 2, referenceCount: 3, framesInFlight: 4)] {
            let p = Self.plans(c, count: 60)
            for (k, plan) in p.enumerated() {
                #expect(!plan.referenceFrames.map(\.slot).contains(plan.reconstructedSlot))
                for earlier in p[max(0, k - c.framesInFlight)..<k] { #expect(earlier.reconstructedSlot != plan.reconstructedSlot) }
                #expect(plan.reconstructedSlot < c.reconstructedSlots)
            }
        }
    }

    // MARK: Against the decoding process and trace_headers

    static func configuration(_ p: CompressionProperties, width: Int = 320, height: Int = 192) throws -> EncoderConfiguration {
        try EncoderConfiguration(width: width, height: height, properties: p) { _ in
            VAEncodeCapabilities(profile: VAProfileH264High, rateControlModes: UInt32(VA_RC_CQP), packedHeaders: 0x1F,
                                 maxReferencesL0: 4, maxReferencesL1: 1, maxSlices: 1, maxWidth: 4096, maxHeight: 4096)
        }
    }

    /// SPS, PPS and one slice per plan (header as packed for the driver, then a stand-in byte of data).
    static func stream(_ headers: H264StreamHeaders, _ plans: [Plan]) -> [UInt8] {
        var bytes = AnnexBScanner.byteStream([headers.spsNALUnit, headers.ppsNALUnit])
        for plan in plans {
            var w = BitWriter()
            headers.sliceHeader(plan).write(&w, sps: headers.sps, pps: headers.pps)
            w.rbspTrailingBits()
            let rbsp = w.bytes
            bytes += [0, 0, 0, 1, rbsp[0]] + EmulationPrevention.insert(Array(rbsp.dropFirst()))
        }
        return bytes
    }

    static let settings: [(String, @Sendable (inout CompressionProperties) -> Void)] = [
        ("IPPP", { _ in }),
        ("refs 3", { $0.referenceFrameCount = 3 }),
        ("bf 2", { $0.allowFrameReordering = true; $0.maxConsecutiveBFrames = 2 }),
        ("bf 3 pyramid refs 2", { $0.allowFrameReordering = true; $0.maxConsecutiveBFrames = 3; $0.bPyramid = true; $0.referenceFrameCount = 2 }),
        ("bf 7 pyramid keyint 20", { $0.allowFrameReordering = true; $0.maxConsecutiveBFrames = 7; $0.bPyramid = true; $0.maxKeyFrameInterval = 20 }),
        ("bf 2 open GOP keyint 9", { $0.allowFrameReordering = true; $0.maxConsecutiveBFrames = 2; $0.allowOpenGOP = true; $0.maxKeyFrameInterval = 9 }),
    ]

    @Test("The decoding process builds the planned lists from vtk's headers and outputs in display order",
          arguments: settings.indices)
    func decoderAgrees(_ index: Int) throws {
        var p = CompressionProperties()
        p.maxKeyFrameInterval = 0
        Self.settings[index].1(&p)
        let headers = H264StreamHeaders(configuration: try Self.configuration(p))
        // 300 pictures: frame_num (8 bits) wraps, and so does the POC LSB (9 bits).
        let plans = Self.plans(headers.configuration.plannerConfiguration, count: 300, forced: [150])
        var process = H264DecodingProcess()
        var decoded: [(lists: ReferencePictureLists, poc: Int)] = []
        var output: [Int] = []
        for unit in AccessUnitAssembler.accessUnits(in: Self.stream(headers, plans)) {
            for event in process.decode(unit) {
                switch event {
                case .decode(let request): decoded.append((request.slices[0].lists, request.picture.picOrderCnt))
                case .output(let picture): output.append(picture.picOrderCnt)
                case .problem(let problem): Issue.record("\(Self.settings[index].0): \(problem)")
                default: break
                }
            }
        }
        for event in process.flush() { if case .output(let picture) = event { output.append(picture.picOrderCnt) } }
        #expect(decoded.count == plans.count)
        for (plan, got) in zip(plans, decoded) {
            #expect(got.poc == plan.picOrderCnt, "\(Self.settings[index].0) picture \(plan.codingIndex)")
            #expect(got.lists.problems.isEmpty, "\(got.lists.problems)")
            #expect(got.lists.list0.map { $0?.picOrderCnt } == plan.list0.map(\.picOrderCnt),
                    "\(Self.settings[index].0) picture \(plan.codingIndex) (\(plan.type)) list 0")
            #expect(got.lists.list1.map { $0?.picOrderCnt } == plan.list1.map(\.picOrderCnt),
                    "\(Self.settings[index].0) picture \(plan.codingIndex) (\(plan.type)) list 1")
        }
        // Output in display order: POCs increase within each IDR period.
        let displayPOCs = plans.sorted { $0.displayIndex < $1.displayIndex }.map(\.picOrderCnt)
        #expect(output == displayPOCs)
    }

    @Test("FFmpeg trace_headers reads vtk's SPS (VUI timing, colour, reorder depth) and slice headers as written",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
    func traceHeaders() throws {
        var p = CompressionProperties()
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 3
        p.bPyramid = true
        p.expectedFrameRate = 30000.0 / 1001
        let headers = H264StreamHeaders(configuration: try Self.configuration(p, width: 1280, height: 720))
        let plans = Self.plans(headers.configuration.plannerConfiguration, count: 20)
        let url = TestPaths.scratch.appendingPathComponent("gop-planner-headers.264")
        try Data(Self.stream(headers, plans)).write(to: url)
        let trace = try TraceHeaders.run(url)
        let records = trace.streamRecords
        func value(_ record: TraceHeaders.NALRecord, _ name: String) -> Int64? { record.elements.first { $0.name == name }?.value }
        let sps = try #require(records.first { $0.kind == .sps })
        #expect(value(sps, "max_num_reorder_frames") == 2)
        #expect(value(sps, "max_dec_frame_buffering") == 5)
        #expect(value(sps, "max_num_ref_frames") == 4)
        #expect(value(sps, "num_units_in_tick") == 1001 && value(sps, "time_scale") == 60000)
        #expect(value(sps, "colour_primaries") == 1 && value(sps, "matrix_coefficients") == 1)
        let slices = records.filter { $0.kind == .slice }
        #expect(slices.count == plans.count)
        for (plan, slice) in zip(plans, slices) {
            #expect(value(slice, "frame_num") == Int64(plan.frameNum))
            #expect(value(slice, "pic_order_cnt_lsb") == Int64(plan.picOrderCntLsb))
            #expect(value(slice, "slice_type").map { $0 % 5 } == Int64(plan.type.sliceType))
            #expect(value(slice, "nal_ref_idc") == Int64(plan.nalRefIdc))
        }
    }

    @Test("Packed slice header bytes: start code, escaped header, exact bit length; parsed back equal")
    func packedSliceHeader() throws {
        var p = CompressionProperties()
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 2
        p.referenceFrameCount = 2
        p.entropyMode = .cavlc  // CABAC slice data starts at the next byte, after cabac_alignment_one_bit
        let headers = H264StreamHeaders(configuration: try Self.configuration(p))
        let sets = [headers.sps.seqParameterSetId: headers.sps]
        for plan in Self.plans(headers.configuration.plannerConfiguration, count: 12) {
            let packed = headers.packedSliceHeader(plan)
            #expect(Array(packed.bytes.prefix(4)) == [0, 0, 0, 1])
            #expect(packed.bits <= packed.bytes.count * 8 && packed.bits > packed.bytes.count * 8 - 8)
            // The header followed by stand-in data parses back to the same header.
            let nal = NALUnit(Array(packed.bytes.dropFirst(4)) + [0x80])
            var parameterSets = ParameterSets()
            parameterSets.sps = sets
            parameterSets.pps = [0: headers.pps]
            let parsed = try SliceHeader(nalUnit: nal, parameterSets: parameterSets)
            var expected = headers.sliceHeader(plan)
            expected.headerBitLengthInRBSP = parsed.headerBitLengthInRBSP
            expected.sliceDataPosition = parsed.sliceDataPosition
            #expect(parsed == expected)
            // The bit length is where the driver's slice data starts: the header's end in the escaped NAL unit.
            #expect(parsed.sliceDataPosition.escapedBitOffset == packed.bits - 32)
        }
    }
}
