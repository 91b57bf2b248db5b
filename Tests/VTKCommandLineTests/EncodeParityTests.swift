import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// vtk's encode parameters against FFmpeg's h264_vaapi (5.1), a VA client that works on hardware: the same
/// input, matching settings, both through vtksoft's native engine with VTKSOFT_CAPTURE, every field of every
/// sequence, picture, slice and misc buffer compared, and the packed headers parsed and compared element by
/// element.
///
/// Rules of the comparison (each difference allowed here is a rule, with why it holds):
/// 1. Buffers are matched per picture, in submission order, by role: buffer type, misc parameter type and
///    packed header type, then occurrence.
/// 2. Surface and buffer IDs (`picture_id`, `coded_buf`) are allocation order, not content: only "valid"
///    against VA_INVALID_SURFACE is compared. The pictures they name are compared by POC and frame_idx.
/// 3. ReferenceFrames: FFmpeg lists only the references its later pictures still use and drops the others
///    with MMCO 1 in its slice headers; vtk lists the DPB as the sliding window (8.2.5.3) holds it, because a
///    driver that writes its own slice headers cannot be told about MMCOs. Every FFmpeg entry must be in
///    vtk's list; extra entries of vtk's are references a decoder also holds.
/// 4. With a B-pyramid, vtk's max_num_ref_frames has room for the previous run's reference B (no MMCO);
///    FFmpeg's does not need it.
/// 5. FFmpeg 5.1 sets reference_pic_flag = (type != B) (vaapi_encode_h264.c), so its reference B pictures are
///    flagged non-reference in VA though its headers make them references (vtksoft reports the frame_num
///    jumps as 7.4.3 violations); vtk flags them as references.
/// 6. FFmpeg leaves fixed_frame_rate_flag and motion_vectors_over_pic_boundaries_flag 0 in the VA sequence
///    buffer while its packed SPS says 1; vtk fills them from its SPS.
/// 7. idr_pic_id: vtk counts IDRs (consecutive IDRs must differ, 7.4.3); FFmpeg's VA field stays 0.
/// 8. intra_idr_period in an open GOP: vtk gives the IDR period (none: the 16-bit "never"); FFmpeg repeats
///    the I period.
/// 9. Rate control: vtk sets disable_frame_skip (one coded picture per frame, which its samples promise);
///    FFmpeg sets ICQ_quality_factor, which only ICQ reads.
/// 10. `-refs 3`: FFmpeg 5.1's h264_vaapi ignores -refs and uses one list-0 reference, so with --refs 3
///     max_num_ref_frames, num_ref_idx_l0_active_minus1, its override flag and RefPicList0 past entry 0
///     are vtk's own (checked against vtk's decoding process in GOPPlannerTests).
/// 11. Packed headers: FFmpeg's first SEI (RawData) carries its identifier string, which vtk does not write;
///     the recovery point SEIs before open-GOP I pictures must agree but for broken_link_flag, which FFmpeg sets
///     and vtk leaves 0: the stream is not spliced, so decoding from the IDR before shows no artefacts (D.2.8). In the SPS, vtk describes the colour (E.2.1) where FFmpeg copies only the input's
///     tags, FFmpeg writes the input's chroma sample location, and vtk's max_dec_frame_buffering has one
///     frame more with B pictures (a buffer for a waiting B, C.4.5.2). In slice headers, FFmpeg's MMCOs (rule 3)
///     and idr_pic_id (rule 7); the header lengths follow.
/// 12. level_idc under VBR: vtk takes the smallest level whose MaxBR (Table A-1) holds the peak rate, which its
///     HRD parameters state; FFmpeg's guess goes by the average and can name a level the HRD exceeds.
/// 13. QPs at CQP: vtk codes I pictures 3 QP finer than the asked (P) QP, a pyramid's reference B pictures 3 and other
///     B pictures 4 coarser (EncoderConfiguration.quantizerLadder), with pic_init_qp the I QP as FFmpeg sets it.
///     FFmpeg is given the same offsets (`-i_qfactor 1 -i_qoffset -3 -b_qfactor 1 -b_qoffset 4` instead of its
///     defaults, I at the P QP and B at 6/5 of it), but 5.1 gives every B picture one QP: with a B-pyramid, the
///     reference B's slice_qp_delta is one less in vtk's slice buffer and packed slice header.
@Suite("Encode parameters equal FFmpeg h264_vaapi's, field by field", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
struct EncodeParityTests {
    struct Configuration: Sendable, CustomStringConvertible {
        let ffmpeg: [String]
        let vtk: [String]
        var description: String { vtk.joined(separator: " ") }
        var refs3: Bool { vtk.contains("--refs") }
        var pyramid: Bool { vtk.contains("--b-pyramid") }
        var openGOP: Bool { vtk.contains("--open-gop") }
        var vbr: Bool { vtk.contains("vbr") }
    }

    /// -bf 0/2/3, refs 1/3, CQP/CBR/VBR, Constrained Baseline/Main/High, closed and open GOP.
    static let configurations: [Configuration] = [
        .init(ffmpeg: ["-profile:v", "high", "-bf", "0", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--qp", "27", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "high", "-bf", "2", "-g", "60", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--bframes", "2", "--qp", "27", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "main", "-bf", "0", "-refs", "3", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "22"],
              vtk: ["--profile", "main", "--refs", "3", "--qp", "22", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "constrained_baseline", "-bf", "0", "-g", "60", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "30"],
              vtk: ["--profile", "constrained-baseline", "--qp", "30", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "high", "-bf", "0", "-g", "60", "-rc_mode", "CBR", "-b:v", "400k"],
              vtk: ["--bitrate", "400k", "--rc", "cbr", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "main", "-bf", "2", "-g", "60", "-rc_mode", "VBR", "-b:v", "300k", "-maxrate", "600k"],
              vtk: ["--profile", "main", "--bframes", "2", "--bitrate", "300k", "--rc", "vbr", "--maxrate", "600k", "--keyint", "60"]),
        .init(ffmpeg: ["-profile:v", "high", "-bf", "2", "-g", "4", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "2", "--qp", "27", "--keyint", "4"]),
        .init(ffmpeg: ["-profile:v", "high", "-bf", "2", "-g", "4", "-idr_interval", "100", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "2", "--qp", "27", "--keyint", "4", "--open-gop"]),
        .init(ffmpeg: ["-profile:v", "high", "-bf", "3", "-b_depth", "2", "-g", "60", "-b_qfactor", "1", "-b_qoffset", "4", "-i_qfactor", "1", "-i_qoffset", "-3", "-rc_mode", "CQP", "-qp", "27"],
              vtk: ["--bframes", "3", "--b-pyramid", "--qp", "27", "--keyint", "60"]),
    ]

    static let frames = 12
    static let input: Result<URL, Error> = Result {
        let url = TestPaths.scratch.appendingPathComponent("parity-testsrc2-160x96.y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30", "-frames:v", "\(frames)",
                                                     "-pix_fmt", "yuv420p", "-y", url.path])
            guard r.status == 0 else { throw TraceHeadersError.ffmpegFailed("testsrc2", r.stderrText) }
        }
        return url
    }

    /// One captured buffer: its role key, its fields flattened to paths, and packed data bytes if any.
    struct Buffer {
        var key: String
        var fields: [String: String]
        var data: [UInt8]?
    }

    static func pictures(_ file: URL) throws -> [[Buffer]] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let buffers = try #require(object["buffers"] as? [[String: Any]])
            var seen: [String: Int] = [:]
            var packedType = 0
            return buffers.map { b in
                var role = (b["type"] as? String ?? "?").replacingOccurrences(of: "VAEnc", with: "").replacingOccurrences(of: "BufferType", with: "")
                let value = b["value"] as? [String: Any]
                if role == "MiscParameter" { role += "\(value?["misc_type"] as? Int ?? -1)" }
                if role == "PackedHeaderParameter" { packedType = value?["type"] as? Int ?? -1; role += "\(packedType)" }
                if role == "PackedHeaderData" { role += "\(packedType)" }
                let n = seen[role, default: 0]
                seen[role] = n + 1
                var fields: [String: String] = [:]
                flatten(b["value"] as Any, "", &fields)
                let hex = b["data"] as? String
                let data = hex.map { h in stride(from: 0, to: h.count, by: 2).compactMap {
                    UInt8(h[h.index(h.startIndex, offsetBy: $0)..<h.index(h.startIndex, offsetBy: $0 + 2)], radix: 16) } }
                return Buffer(key: "\(role)#\(n)", fields: fields, data: data)
            }
        }
    }

    static func flatten(_ value: Any, _ path: String, _ out: inout [String: String]) {
        if let dictionary = value as? [String: Any] {
            for (k, v) in dictionary { flatten(v, path.isEmpty ? k : "\(path).\(k)", &out) }
        } else if let array = value as? [Any], array.first is [String: Any] || array.first is [Any] {
            for (i, v) in array.enumerated() { flatten(v, "\(path)[\(i)]", &out) }
        } else {
            out[path] = "\(value)"
        }
    }

    /// Whether a differing field is allowed by a rule above, for this configuration.
    static func allowed(_ key: String, _ path: String, _ c: Configuration) -> Bool {
        let last = path.split(separator: ".").last.map(String.init) ?? path
        if last == "picture_id" || last == "coded_buf" { return true }                                       // 2
        if path.hasPrefix("ReferenceFrames") { return true }                                                 // 3, checked apart
        if c.pyramid && last == "max_num_ref_frames" { return true }                                         // 4
        if last == "reference_pic_flag" && key.hasPrefix("PictureParameter") { return true }                 // 5, checked apart
        if last == "fixed_frame_rate_flag" || last == "motion_vectors_over_pic_boundaries_flag" { return true } // 6
        if last == "idr_pic_id" { return true }                                                              // 7
        if c.openGOP && last == "intra_idr_period" { return true }                                           // 8
        if key.hasPrefix("MiscParameter1") && (last == "rc_flags" || last == "ICQ_quality_factor") { return true } // 9
        if c.refs3 && (last == "max_num_ref_frames" || last == "num_ref_idx_l0_active_minus1"
                       || last == "num_ref_idx_active_override_flag"
                       || (path.hasPrefix("[0].RefPicList0[") && !path.hasPrefix("[0].RefPicList0[0]"))) { return true } // 10
        if key.hasPrefix("PackedHeader") { return true }                                                    // 11, parsed apart
        if last == "level_idc" && c.vbr { return true }                                                      // 12
        if c.pyramid && last == "slice_qp_delta" && key.hasPrefix("SliceParameter") { return true }          // 13, checked apart
        return false
    }

    @Test("Every buffer field equal or justified; packed SPS, PPS and slice headers equal element by element",
          arguments: configurations)
    func parity(_ c: Configuration) throws {
        let input = try Self.input.get()
        let name = c.vtk.joined(separator: "_").replacingOccurrences(of: "-", with: "")
        let ffCapture = TestPaths.scratch.appendingPathComponent("parity-ff-\(name)-\(UUID().uuidString).jsonl")
        let vtkCapture = TestPaths.scratch.appendingPathComponent("parity-vtk-\(name)-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: ffCapture); try? FileManager.default.removeItem(at: vtkCapture) }
        let ffOut = TestPaths.scratch.appendingPathComponent("parity-ff-\(name).h264")
        let vtkOut = TestPaths.scratch.appendingPathComponent("parity-vtk-\(name).h264")
        let ff = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-filter_hw_device", "va",
                                                 "-i", input.path, "-vf", "format=nv12,hwupload", "-c:v", "h264_vaapi"] + c.ffmpeg + [ffOut.path],
                                       extraEnvironment: ["VTKSOFT_ENCODER": "native", "VTKSOFT_CAPTURE": ffCapture.path])
        try #require(ff.result.status == 0, "\(ff.result.stderrText.prefix(600))")
        let vtk = try VTKBinary.run(["encode", input.path, "-o", vtkOut.path, "-q", "--device", "soft"] + c.vtk,
                                    extraEnvironment: ["VTKSOFT_ENCODER": "native", "VTKSOFT_CAPTURE": vtkCapture.path])
        try #require(vtk.status == 0, "\(vtk.stderrText)")

        let theirs = try Self.pictures(ffCapture), mine = try Self.pictures(vtkCapture)
        #expect(theirs.count == Self.frames && mine.count == Self.frames)
        var compared = 0, justified = 0
        // vtk's SPS and PPS, from its first picture's packed sequence header, to parse both sides' slice headers.
        var sets = ParameterSets()
        for unit in AnnexBScanner.nalUnits(in: try #require(mine.first?.first { $0.key == "PackedHeaderData1#0" }?.data)) { _ = try sets.store(unit) }
        for (k, (a, b)) in zip(theirs, mine).enumerated() {
            let byKey = Dictionary(b.map { ($0.key, $0) }, uniquingKeysWith: { x, _ in x })
            for buffer in a {
                guard let other = byKey[buffer.key] else {
                    // Rule 11: FFmpeg's identifier SEI (RawData, type 4) has no counterpart.
                    #expect(buffer.key.hasPrefix("PackedHeaderParameter4") || buffer.key.hasPrefix("PackedHeaderData4"),
                            "\(c) picture \(k): vtk sent no \(buffer.key)")
                    justified += 1
                    continue
                }
                for path in Set(buffer.fields.keys).union(other.fields.keys) {
                    compared += 1
                    var x = buffer.fields[path], y = other.fields[path]
                    if path.hasSuffix("picture_id") { x = x.map { $0 == "4294967295" ? "invalid" : "valid" }; y = y.map { $0 == "4294967295" ? "invalid" : "valid" } }
                    guard x != y else { continue }
                    let ok = Self.allowed(buffer.key, path, c)
                    #expect(ok, "\(c) picture \(k) \(buffer.key) \(path): FFmpeg \(x ?? "-"), vtk \(y ?? "-")")
                    if ok { justified += 1 }
                }
            }
            #expect(Set(b.map(\.key)).subtracting(a.map(\.key)).isEmpty, "\(c) picture \(k): buffers only vtk sent")
            try checkReferenceFrames(a, b, c, k)
            try checkPackedHeaders(a, b, c, k, sets)
        }
        print("parity \(c): \(compared) fields compared, \(justified) differences by the rules")
    }

    /// Rule 3 and 5, checked: FFmpeg's references are among vtk's; reference_pic_flag differs only on B pictures.
    func checkReferenceFrames(_ a: [Buffer], _ b: [Buffer], _ c: Configuration, _ k: Int) throws {
        guard let pa = a.first(where: { $0.key == "PictureParameter#0" }), let pb = b.first(where: { $0.key == "PictureParameter#0" }) else { return }
        func entries(_ f: [String: String]) -> Set<String> {
            Set((0..<16).compactMap { i -> String? in
                guard f["ReferenceFrames[\(i)].picture_id"] != "4294967295" else { return nil }
                return ["TopFieldOrderCnt", "frame_idx", "flags"].map { f["ReferenceFrames[\(i)].\($0)"] ?? "" }.joined(separator: "/")
            })
        }
        #expect(entries(pa.fields).isSubset(of: entries(pb.fields)), "\(c) picture \(k): FFmpeg's ReferenceFrames not all in vtk's")
        if pa.fields["pic_fields.reference_pic_flag"] != pb.fields["pic_fields.reference_pic_flag"] {
            let slice = b.first { $0.key == "SliceParameter#0" }
            #expect(slice?.fields["[0].slice_type"] == "1", "\(c) picture \(k): reference_pic_flag differs on a non-B picture")
        }
    }

    /// Rule 11, checked: the packed SPS, PPS and slice headers parse to equal values but for the listed fields,
    /// and both sides' SEIs hold the same recovery point (or none).
    func checkPackedHeaders(_ a: [Buffer], _ b: [Buffer], _ c: Configuration, _ k: Int, _ sps: ParameterSets) throws {
        func recoveryPoint(_ buffers: [Buffer]) throws -> RecoveryPoint? {
            let data = buffers.filter { $0.key.hasPrefix("PackedHeaderData4") }.compactMap(\.data).joined()
            return try AnnexBScanner.nalUnits(in: Array(data)).filter { $0.type == .sei }.compactMap { try RecoveryPoint.find(in: $0) }.first
        }
        var theirs = try recoveryPoint(a)
        let ours = try recoveryPoint(b)
        if let ours { theirs?.brokenLinkFlag = ours.brokenLinkFlag }
        #expect(theirs == ours, "\(c) picture \(k): recovery point SEI")
        if let sa = a.first(where: { $0.key == "PackedHeaderData1#0" })?.data, let sb = b.first(where: { $0.key == "PackedHeaderData1#0" })?.data {
            let ua = AnnexBScanner.nalUnits(in: sa), ub = AnnexBScanner.nalUnits(in: sb)
            var spsA = try SequenceParameterSet(nalUnit: try #require(ua.first { $0.type == .sequenceParameterSet }))
            let spsB = try SequenceParameterSet(nalUnit: try #require(ub.first { $0.type == .sequenceParameterSet }))
            spsA.vui.colourDescriptionPresentFlag = spsB.vui.colourDescriptionPresentFlag
            (spsA.vui.colourPrimaries, spsA.vui.transferCharacteristics, spsA.vui.matrixCoefficients) =
                (spsB.vui.colourPrimaries, spsB.vui.transferCharacteristics, spsB.vui.matrixCoefficients)
            spsA.vui.chromaLocInfoPresentFlag = spsB.vui.chromaLocInfoPresentFlag
            (spsA.vui.chromaSampleLocTypeTopField, spsA.vui.chromaSampleLocTypeBottomField) =
                (spsB.vui.chromaSampleLocTypeTopField, spsB.vui.chromaSampleLocTypeBottomField)
            if spsB.vui.maxNumReorderFrames > 0 && spsB.vui.maxDecFrameBuffering == spsA.vui.maxDecFrameBuffering + 1 {
                spsA.vui.maxDecFrameBuffering += 1
            }
            if c.vbr { spsA.levelIdc = spsB.levelIdc }  // rule 12
            if c.pyramid || c.refs3 {
                spsA.maxNumRefFrames = spsB.maxNumRefFrames
                spsA.vui.maxDecFrameBuffering = spsB.vui.maxDecFrameBuffering
            }
            #expect(spsA == spsB, "\(c): packed SPS\n FFmpeg \(spsA)\n vtk    \(spsB)")
            let ppsA = try PictureParameterSet(nalUnit: try #require(ua.first { $0.type == .pictureParameterSet })) { _ in spsA }
            let ppsB = try PictureParameterSet(nalUnit: try #require(ub.first { $0.type == .pictureParameterSet })) { _ in spsB }
            #expect(ppsA == ppsB, "\(c): packed PPS")
        }
        let ha = try #require(a.first { $0.key == "PackedHeaderData3#0" }?.data, "\(c) picture \(k): FFmpeg's packed slice header")
        let hb = try #require(b.first { $0.key == "PackedHeaderData3#0" }?.data, "\(c) picture \(k): vtk's packed slice header")
        var headerA = try SliceHeader(nalUnit: NALUnit(Array(ha.dropFirst(4)) + [0x80]), parameterSets: sps)
        let headerB = try SliceHeader(nalUnit: NALUnit(Array(hb.dropFirst(4)) + [0x80]), parameterSets: sps)
        if headerA.decRefPicMarking?.adaptiveRefPicMarkingModeFlag == true { headerA.decRefPicMarking = headerB.decRefPicMarking }
        headerA.idrPicId = headerB.idrPicId
        headerA.headerBitLengthInRBSP = headerB.headerBitLengthInRBSP
        headerA.sliceDataPosition = headerB.sliceDataPosition
        if c.pyramid && headerB.sliceType == .b && headerB.nalRefIdc != 0 {  // rule 13
            #expect(headerA.sliceQpDelta == headerB.sliceQpDelta + 1, "\(c) picture \(k): reference B QP")
            headerA.sliceQpDelta = headerB.sliceQpDelta
        }
        if c.refs3 {
            headerA.numRefIdxActiveOverrideFlag = headerB.numRefIdxActiveOverrideFlag
            headerA.numRefIdxL0ActiveMinus1 = headerB.numRefIdxL0ActiveMinus1
        }
        #expect(headerA == headerB, "\(c) picture \(k): packed slice header\n FFmpeg \(headerA)\n vtk    \(headerB)")
    }
}
