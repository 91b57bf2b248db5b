import Foundation
import H265Bitstream
import NALStream
import Testing
import VTKTestSupport

/// vtk's H.265 encode parameters against FFmpeg's hevc_vaapi (5.1): the same input, matching settings, both
/// through vtksoft with VTKSOFT_CAPTURE; every field of every sequence, picture, slice and misc buffer
/// compared, and the packed VPS, SPS, PPS and slice headers parsed and compared element by element.
///
/// Rules of the comparison (each difference allowed here is a rule, with why it holds):
/// 1. Buffers are matched per picture, in submission order, by role: buffer type, misc parameter type and
///    packed header type, then occurrence (as for H.264, EncodeParityTests).
/// 2. Surface and buffer IDs (`picture_id`, `coded_buf`) are allocation order, not content: only "valid"
///    against VA_INVALID_SURFACE is compared; the pictures they name are compared by POC.
/// 3. FFmpeg 5.1 fills no VUI field of VAEncSequenceParameterBufferHEVC (vui_parameters_present_flag 0) while
///    its packed SPS has a VUI; vtk fills them from its SPS, for drivers that write their own.
/// 4. low_delay_seq: FFmpeg 5.1 leaves it 0; vtk sets it when no picture predicts from a later one (no
///    B-frames), the hint iHD's VDEnc reads.
/// 5. Packed SPS: vtk's POC LSBs are 8 bits, the GOP planner's (as for H.264), FFmpeg's 12; vtk describes the
///    colour (E.3.1) where FFmpeg writes the input's chroma sample location; sps_sub_layer_ordering_info_present
///    is the writer's choice (one sub-layer either way). The packed slice headers follow: the POC LSB is compared
///    modulo 2^8, and header lengths and slice data offsets are not compared.
/// 6. Rate control: vtk sets disable_frame_skip (one coded picture per frame, which its samples promise);
///    FFmpeg sets ICQ_quality_factor, which only ICQ reads (as for H.264).
/// 7. reference_frames: FFmpeg lists the references the picture uses; vtk lists every picture its RPS keeps
///    (the DPB, 8.3.2), which a driver that writes its own headers needs for the RPS. Every FFmpeg entry
///    must be among vtk's, with the same POC and flags.
/// 8. sps/vps_max_dec_pic_buffering: vtk's DPB holds the GOP planner's references (as max_num_ref_frames for
///    H.264: both anchors and a waiting B with B-frames, the pyramid's reference B pictures of two runs, --refs);
///    FFmpeg sizes it for its own, never more: vtk's is at least FFmpeg's.
/// 9. intra_idr_period in an open GOP: vtk gives the IDR period (none: the 16-bit "never"); FFmpeg repeats
///    the I period (as for H.264).
/// 10. hierachical_flag: vtk says when its B pictures form a pyramid; FFmpeg 5.1 leaves it 0.
/// 11. The short-term RPS of the slice headers: vtk keeps every reference its GOP planner holds (a sliding window,
///     as for H.264), the ones the picture does not use with used_by_curr_pic 0; FFmpeg keeps only those its
///     later pictures use. FFmpeg's entries (POC delta and used flag) must all be in vtk's set.
/// 12. `-refs 3`: FFmpeg 5.1's hevc_vaapi ignores -refs and predicts from one picture, so with --refs 3 the
///     list-0 count, its override flag and ref_pic_list0 past entry 0 are vtk's own (checked against vtk's
///     decoding process in H265ParameterTests).
/// 13. FFmpeg 5.1 flags its pyramid's reference B pictures reference_pic_flag 0 and coding_type B (3) in VA, though
///     its headers make them references (TRAIL_R); vtk flags them as references, coding_type B1 (4).
/// 14. QPs at CQP: as for H.264 (EncodeParityTests rule 13) FFmpeg is given vtk's offsets (`-i_qfactor 1 -i_qoffset -3
///     -b_qfactor 1 -b_qoffset 4`), but gives a pyramid's reference B the B QP too; vtk codes it one QP finer: its
///     slice_qp_delta is one less in the slice buffer and the packed slice header.
/// 15. collocated_from_l0_flag of an I slice, which nothing reads (7.3.6.1: inter slices with TMVP only): FFmpeg
///     carries over its previous picture's 1, vtk sends 0.
@Suite("H.265 encode parameters equal FFmpeg hevc_vaapi's, field by field", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
struct HEVCEncodeParityTests {
    struct Configuration: Sendable, CustomStringConvertible {
        let ffmpeg: [String]
        let vtk: [String]
        var description: String { vtk.joined(separator: " ") + (main10 ? " (Main 10)" : "") }
        var bFrames: Bool { vtk.contains("--bframes") }
        var main10: Bool { ffmpeg.contains("main10") }
        var refs3: Bool { vtk.contains("--refs") }
        var pyramid: Bool { vtk.contains("--b-pyramid") }
        var openGOP: Bool { vtk.contains("--open-gop") }
    }

    /// CQP/CBR/VBR, intra-only, B-frames 0/2/3 (with a pyramid), refs 1/3, Main and Main 10, closed and open GOP.
    static let configurations: [Configuration] = [
        .init(ffmpeg: ["-bf", "0", "-g", "1", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--qp", "27", "--keyint", "1"]),
        .init(ffmpeg: ["-bf", "0", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--qp", "27", "--keyint", "60"]),
        .init(ffmpeg: ["-bf", "2", "-g", "60", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "2", "--qp", "27", "--keyint", "60"]),
        .init(ffmpeg: ["-bf", "0", "-refs", "3", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "22"], vtk: ["--refs", "3", "--qp", "22", "--keyint", "60"]),
        .init(ffmpeg: ["-bf", "0", "-g", "60", "-rc_mode", "CBR", "-b:v", "400k"], vtk: ["--bitrate", "400k", "--rc", "cbr", "--keyint", "60"]),
        .init(ffmpeg: ["-bf", "2", "-g", "60", "-rc_mode", "VBR", "-b:v", "300k", "-maxrate", "600k"],
              vtk: ["--bframes", "2", "--bitrate", "300k", "--rc", "vbr", "--maxrate", "600k", "--keyint", "60"]),
        .init(ffmpeg: ["-bf", "2", "-g", "4", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "2", "--qp", "27", "--keyint", "4"]),
        .init(ffmpeg: ["-bf", "2", "-g", "4", "-idr_interval", "100", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "2", "--qp", "27", "--keyint", "4", "--open-gop"]),
        .init(ffmpeg: ["-bf", "3", "-b_depth", "2", "-g", "60", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "3", "--b-pyramid", "--qp", "27", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "main10", "-bf", "0", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--qp", "27", "--keyint", "60"]),
    ]

    static let frames = 8
    static func input(tenBit: Bool) throws -> URL {
        let url = TestPaths.scratch.appendingPathComponent("hevc-parity-testsrc2-160x96\(tenBit ? "-10bit" : "").y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30", "-frames:v", "\(frames)",
                                                     "-pix_fmt", tenBit ? "yuv420p10le" : "yuv420p", "-strict", "-1", "-y", url.path])
            guard r.status == 0 else { throw TraceHeadersError.ffmpegFailed("testsrc2", r.stderrText) }
        }
        return url
    }

    /// Whether a differing field is allowed by a rule above.
    static func allowed(_ key: String, _ path: String, _ c: Configuration) -> Bool {
        let last = path.split(separator: ".").last.map(String.init) ?? path
        if last == "picture_id" || last == "coded_buf" { return true }                                           // 2
        if key.hasPrefix("SequenceParameter") && (path.hasPrefix("vui_") || ["aspect_ratio_idc", "sar_width", "sar_height",
            "max_bytes_per_pic_denom", "max_bits_per_min_cu_denom", "min_spatial_segmentation_idc"].contains(path)) { return true } // 3
        if last == "low_delay_seq" && !c.bFrames { return true }                                                 // 4
        if key.hasPrefix("PackedHeader") { return true }                                                         // 5, parsed apart
        if key.hasPrefix("MiscParameter1") && (last == "rc_flags" || last == "ICQ_quality_factor") { return true } // 6
        if path.hasPrefix("reference_frames") { return true }                                                    // 7, checked apart
        if c.openGOP && last == "intra_idr_period" { return true }                                               // 9
        if c.pyramid && last == "hierachical_flag" { return true }                                               // 10
        if c.refs3 && (last == "num_ref_idx_l0_active_minus1" || last == "num_ref_idx_active_override_flag"
                       || (path.hasPrefix("[0].ref_pic_list0[") && !path.hasPrefix("[0].ref_pic_list0[0]"))) { return true } // 12
        if c.pyramid && key.hasPrefix("PictureParameter") && (last == "reference_pic_flag" || last == "coding_type") { return true } // 13
        if c.pyramid && last == "slice_qp_delta" && key.hasPrefix("SliceParameter") { return true }             // 14, checked apart
        return false
    }

    @Test("Every buffer field equal or justified; packed VPS, SPS, PPS and slice headers equal element by element",
          arguments: configurations)
    func parity(_ c: Configuration) throws {
        let input = try Self.input(tenBit: c.main10)
        let name = c.vtk.joined(separator: "_").replacingOccurrences(of: "-", with: "")
        let ffCapture = TestPaths.scratch.appendingPathComponent("hevc-parity-ff-\(name)-\(UUID().uuidString).jsonl")
        let vtkCapture = TestPaths.scratch.appendingPathComponent("hevc-parity-vtk-\(name)-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: ffCapture); try? FileManager.default.removeItem(at: vtkCapture) }
        let ffOut = TestPaths.scratch.appendingPathComponent("hevc-parity-ff-\(name).hevc")
        let vtkOut = TestPaths.scratch.appendingPathComponent("hevc-parity-vtk-\(name).hevc")
        let ff = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-filter_hw_device", "va",
                                                 "-i", input.path, "-vf", "format=\(c.main10 ? "p010" : "nv12"),hwupload", "-c:v", "hevc_vaapi"] + c.ffmpeg + [ffOut.path],
                                       extraEnvironment: ["VTKSOFT_CAPTURE": ffCapture.path])
        try #require(ff.result.status == 0, "\(ff.result.stderrText.prefix(600))")
        let vtk = try VTKBinary.run(["encode", input.path, "-o", vtkOut.path, "-q", "--device", "soft", "--codec", "h265"] + c.vtk,
                                    extraEnvironment: ["VTKSOFT_CAPTURE": vtkCapture.path])
        try #require(vtk.status == 0, "\(vtk.stderrText)")

        let theirs = try EncodeParityTests.pictures(ffCapture), mine = try EncodeParityTests.pictures(vtkCapture)
        #expect(theirs.count == Self.frames && mine.count == Self.frames)
        var compared = 0, justified = 0
        // Each side's parameter sets, from its last packed sequence header.
        var kept: (H265ParameterSets?, H265ParameterSets?) = (nil, nil)
        for (k, (a, b)) in zip(theirs, mine).enumerated() {
            let byKey = Dictionary(b.map { ($0.key, $0) }, uniquingKeysWith: { x, _ in x })
            for buffer in a {
                guard let other = byKey[buffer.key] else {
                    Issue.record("\(c) picture \(k): vtk sent no \(buffer.key)")
                    continue
                }
                for path in Set(buffer.fields.keys).union(other.fields.keys) {
                    compared += 1
                    var x = buffer.fields[path], y = other.fields[path]
                    if path.hasSuffix("picture_id") { x = x.map { $0 == "4294967295" ? "invalid" : "valid" }; y = y.map { $0 == "4294967295" ? "invalid" : "valid" } }
                    guard x != y else { continue }
                    let intraSlice = buffer.key.hasPrefix("SliceParameter") && buffer.fields["[0].slice_type"] == "2"
                    let ok = Self.allowed(buffer.key, path, c) || (intraSlice && path.hasSuffix("collocated_from_l0_flag"))  // 15
                    #expect(ok, "\(c) picture \(k) \(buffer.key) \(path): FFmpeg \(x ?? "-"), vtk \(y ?? "-")")
                    if ok { justified += 1 }
                }
            }
            #expect(Set(b.map(\.key)).subtracting(a.map(\.key)).isEmpty, "\(c) picture \(k): buffers only vtk sent")
            try checkReferenceFrames(a, b, c, k)
            try checkPackedHeaders(a, b, c, k, &kept)
        }
        print("hevc parity \(c): \(compared) fields compared, \(justified) differences by the rules")
    }

    /// Rule 7, checked: FFmpeg's reference_frames are among vtk's.
    func checkReferenceFrames(_ a: [EncodeParityTests.Buffer], _ b: [EncodeParityTests.Buffer], _ c: Configuration, _ k: Int) throws {
        guard let pa = a.first(where: { $0.key == "PictureParameter#0" }), let pb = b.first(where: { $0.key == "PictureParameter#0" }) else { return }
        func entries(_ f: [String: String]) -> Set<String> {
            Set((0..<15).compactMap { i -> String? in
                guard f["reference_frames[\(i)].picture_id"] != "4294967295" else { return nil }
                return ["pic_order_cnt", "flags"].map { f["reference_frames[\(i)].\($0)"] ?? "" }.joined(separator: "/")
            })
        }
        #expect(entries(pa.fields).isSubset(of: entries(pb.fields)), "\(c) picture \(k): FFmpeg's reference_frames \(entries(pa.fields)) not all in vtk's \(entries(pb.fields))")
    }

    /// Rule 5, checked: the packed VPS, SPS, PPS and slice headers parse to equal values but for the listed fields.
    func checkPackedHeaders(_ a: [EncodeParityTests.Buffer], _ b: [EncodeParityTests.Buffer], _ c: Configuration, _ k: Int,
                            _ kept: inout (H265ParameterSets?, H265ParameterSets?)) throws {
        func sets(_ buffers: [EncodeParityTests.Buffer]) throws -> H265ParameterSets? {
            guard let data = buffers.first(where: { $0.key == "PackedHeaderData1#0" })?.data else { return nil }
            var sets = H265ParameterSets()
            for unit in AnnexBScanner.nalUnits(in: data) { try sets.store(unit) }
            return sets
        }
        if let sa = try sets(a), let sb = try sets(b) {
            var vpsA = try #require(sa.vps[0])
            let vpsB = try #require(sb.vps[0])
            var spsA = try #require(sa.sps[0])
            let spsB = try #require(sb.sps[0])
            // Rule 8.
            #expect(spsB.maxDecPicBuffering >= spsA.maxDecPicBuffering, "\(c): vtk's DPB smaller than FFmpeg's")
            spsA.maxDecPicBufferingMinus1 = spsB.maxDecPicBufferingMinus1
            vpsA.maxDecPicBufferingMinus1 = vpsB.maxDecPicBufferingMinus1
            #expect(vpsA == vpsB, "\(c): packed VPS differs in \(Self.differences(vpsA, vpsB))")
            spsA.log2MaxPicOrderCntLsbMinus4 = spsB.log2MaxPicOrderCntLsbMinus4
            spsA.vui.colourDescriptionPresentFlag = spsB.vui.colourDescriptionPresentFlag
            (spsA.vui.colourPrimaries, spsA.vui.transferCharacteristics, spsA.vui.matrixCoefficients) =
                (spsB.vui.colourPrimaries, spsB.vui.transferCharacteristics, spsB.vui.matrixCoefficients)
            spsA.vui.chromaLocInfoPresentFlag = spsB.vui.chromaLocInfoPresentFlag
            (spsA.vui.chromaSampleLocTypeTopField, spsA.vui.chromaSampleLocTypeBottomField) =
                (spsB.vui.chromaSampleLocTypeTopField, spsB.vui.chromaSampleLocTypeBottomField)
            #expect(spsA == spsB, "\(c): packed SPS differs in \(Self.differences(spsA, spsB))")
            #expect(sa.pps[0] == sb.pps[0], "\(c): packed PPS differs in \(Self.differences(sa.pps[0], sb.pps[0]))")
        }
        // The slice headers, each parsed with its own side's parameter sets (the first picture's).
        let ha = try #require(a.first { $0.key == "PackedHeaderData3#0" }?.data, "\(c) picture \(k): FFmpeg's packed slice header")
        let hb = try #require(b.first { $0.key == "PackedHeaderData3#0" }?.data, "\(c) picture \(k): vtk's packed slice header")
        if let sa = try sets(a) { kept.0 = sa }
        if let sb = try sets(b) { kept.1 = sb }
        let setsA = try #require(kept.0, "\(c): FFmpeg sent no packed sequence header"), setsB = try #require(kept.1, "\(c): vtk sent none")
        var headerA = try H265SliceSegmentHeader(nalUnit: NALUnit(Array(ha.dropFirst(4)) + [0x80]), parameterSets: setsA)
        let headerB = try H265SliceSegmentHeader(nalUnit: NALUnit(Array(hb.dropFirst(4)) + [0x80]), parameterSets: setsB)
        headerA.picOrderCntLsb %= 256
        // Rule 11.
        let rpsA = headerA.shortTermRefPicSet, rpsB = headerB.shortTermRefPicSet
        func entries(_ r: ShortTermReferencePictureSet) -> Set<String> {
            Set(zip(r.deltaPocS0 + r.deltaPocS1, r.usedByCurrPicS0 + r.usedByCurrPicS1).map { "\($0.0)/\($0.1)" })
        }
        if c.refs3 {
            #expect(entries(rpsA).isSubset(of: Set(entries(rpsB).map { $0.replacingOccurrences(of: "false", with: "true") }))
                    || entries(rpsA).isSubset(of: entries(rpsB)), "\(c) picture \(k): RPS \(rpsA) vs \(rpsB)")
            headerA.numRefIdxActiveOverrideFlag = headerB.numRefIdxActiveOverrideFlag
            headerA.numRefIdxL0ActiveMinus1 = headerB.numRefIdxL0ActiveMinus1
        } else {
            #expect(entries(rpsA).isSubset(of: entries(rpsB)), "\(c) picture \(k): FFmpeg's RPS \(rpsA) not within vtk's \(rpsB)")
        }
        headerA.shortTermRefPicSet = rpsB
        if c.pyramid && headerB.sliceType == .b && headerB.nalUnitType == .trailR {  // rule 14
            #expect(headerA.qpDelta == headerB.qpDelta + 1, "\(c) picture \(k): reference B QP")
            headerA.qpDelta = headerB.qpDelta
        }
        headerA.sliceDataByteOffset = headerB.sliceDataByteOffset
        headerA.shortTermRefPicSetBits = headerB.shortTermRefPicSetBits
        #expect(headerA == headerB, "\(c) picture \(k): packed slice header differs in \(Self.differences(headerA, headerB))")
    }

    /// The fields of two values that differ, as "name: FFmpeg's vs vtk's" (one level of Mirror).
    static func differences<T>(_ a: T?, _ b: T?) -> String {
        guard let a, let b else { return "presence: \(a == nil ? "-" : "set") vs \(b == nil ? "-" : "set")" }
        let x = Mirror(reflecting: a).children, y = Array(Mirror(reflecting: b).children)
        return zip(x, y).compactMap { l, r in
            let lt = String(describing: l.value), rt = String(describing: r.value)
            return lt == rt ? nil : "\(l.label ?? "?"): \(lt.prefix(200)) vs \(rt.prefix(200))"
        }.joined(separator: "; ")
    }
}
