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
@Suite("H.265 encode parameters equal FFmpeg hevc_vaapi's, field by field", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"))
struct HEVCEncodeParityTests {
    struct Configuration: Sendable, CustomStringConvertible {
        let ffmpeg: [String]
        let vtk: [String]
        var description: String { vtk.joined(separator: " ") }
        var bFrames: Bool { vtk.contains("--bframes") }
    }

    /// CQP/CBR/VBR, intra-only and with P pictures.
    static let configurations: [Configuration] = [
        .init(ffmpeg: ["-bf", "0", "-g", "1", "-rc_mode", "CQP", "-qp", "27"], vtk: ["--qp", "27", "--keyint", "1"]),
        .init(ffmpeg: ["-bf", "0", "-g", "1", "-rc_mode", "CBR", "-b:v", "400k"], vtk: ["--bitrate", "400k", "--rc", "cbr", "--keyint", "1"]),
        .init(ffmpeg: ["-bf", "0", "-g", "1", "-rc_mode", "VBR", "-b:v", "300k", "-maxrate", "600k"],
              vtk: ["--bitrate", "300k", "--rc", "vbr", "--maxrate", "600k", "--keyint", "1"]),
    ]

    static let frames = 8
    static let input: Result<URL, Error> = Result {
        let url = TestPaths.scratch.appendingPathComponent("hevc-parity-testsrc2-160x96.y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30", "-frames:v", "\(frames)",
                                                     "-pix_fmt", "yuv420p", "-y", url.path])
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
        return false
    }

    @Test("Every buffer field equal or justified; packed VPS, SPS, PPS and slice headers equal element by element",
          arguments: configurations)
    func parity(_ c: Configuration) throws {
        let input = try Self.input.get()
        let name = c.vtk.joined(separator: "_").replacingOccurrences(of: "-", with: "")
        let ffCapture = TestPaths.scratch.appendingPathComponent("hevc-parity-ff-\(name)-\(UUID().uuidString).jsonl")
        let vtkCapture = TestPaths.scratch.appendingPathComponent("hevc-parity-vtk-\(name)-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: ffCapture); try? FileManager.default.removeItem(at: vtkCapture) }
        let ffOut = TestPaths.scratch.appendingPathComponent("hevc-parity-ff-\(name).hevc")
        let vtkOut = TestPaths.scratch.appendingPathComponent("hevc-parity-vtk-\(name).hevc")
        let ff = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-y", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-filter_hw_device", "va",
                                                 "-i", input.path, "-vf", "format=nv12,hwupload", "-c:v", "hevc_vaapi"] + c.ffmpeg + [ffOut.path],
                                       extraEnvironment: ["VTKSOFT_CAPTURE": ffCapture.path])
        try #require(ff.result.status == 0, "\(ff.result.stderrText.prefix(600))")
        let vtk = try VTKBinary.run(["encode", input.path, "-o", vtkOut.path, "-q", "--device", "soft", "--codec", "h265"] + c.vtk,
                                    extraEnvironment: ["VTKSOFT_CAPTURE": vtkCapture.path])
        try #require(vtk.status == 0, "\(vtk.stderrText)")

        let theirs = try EncodeParityTests.pictures(ffCapture), mine = try EncodeParityTests.pictures(vtkCapture)
        #expect(theirs.count == Self.frames && mine.count == Self.frames)
        var compared = 0, justified = 0
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
                    let ok = Self.allowed(buffer.key, path, c)
                    #expect(ok, "\(c) picture \(k) \(buffer.key) \(path): FFmpeg \(x ?? "-"), vtk \(y ?? "-")")
                    if ok { justified += 1 }
                }
            }
            #expect(Set(b.map(\.key)).subtracting(a.map(\.key)).isEmpty, "\(c) picture \(k): buffers only vtk sent")
            try checkPackedHeaders(a, b, c, k)
        }
        print("hevc parity \(c): \(compared) fields compared, \(justified) differences by the rules")
    }

    /// Rule 5, checked: the packed VPS, SPS, PPS and slice headers parse to equal values but for the listed fields.
    func checkPackedHeaders(_ a: [EncodeParityTests.Buffer], _ b: [EncodeParityTests.Buffer], _ c: Configuration, _ k: Int) throws {
        func sets(_ buffers: [EncodeParityTests.Buffer]) throws -> H265ParameterSets? {
            guard let data = buffers.first(where: { $0.key == "PackedHeaderData1#0" })?.data else { return nil }
            var sets = H265ParameterSets()
            for unit in AnnexBScanner.nalUnits(in: data) { try sets.store(unit) }
            return sets
        }
        if let sa = try sets(a), let sb = try sets(b) {
            #expect(sa.vps[0] == sb.vps[0], "\(c): packed VPS differs in \(Self.differences(sa.vps[0], sb.vps[0]))")
            var spsA = try #require(sa.sps[0])
            let spsB = try #require(sb.sps[0])
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
        let setsA = try #require(try sets(a) ?? Self.firstSets.0), setsB = try #require(try sets(b) ?? Self.firstSets.1)
        var headerA = try H265SliceSegmentHeader(nalUnit: NALUnit(Array(ha.dropFirst(4)) + [0x80]), parameterSets: setsA)
        let headerB = try H265SliceSegmentHeader(nalUnit: NALUnit(Array(hb.dropFirst(4)) + [0x80]), parameterSets: setsB)
        headerA.picOrderCntLsb %= 256
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

    /// Parameter sets of the pictures without a packed sequence header: all configurations here send one with every IDR.
    static let firstSets: (H265ParameterSets?, H265ParameterSets?) = (nil, nil)
}
