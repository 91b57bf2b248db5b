import Foundation
import Testing
import VTKTestSupport
import H264Bitstream

/// The VA parameters vtk sends equal those FFmpeg's VA-API hwaccel sends for the same stream, field by
/// field, as vtksoft's VTKSOFT_CAPTURE records them. vtksoft decodes with libavcodec, which ignores the
/// reference lists a client sends, so this comparison is what shows vtk would be right on real hardware.
///
/// How values are compared:
/// - Surfaces by the picture they hold (the decode index of the picture last rendered into them), and
///   ReferenceFrames as a set.
/// - Picture order counts relative to the current picture's TopFieldOrderCnt: the decoding process only
///   uses POC differences (8.2.4.2.3, 8.4.1.2.3, 8.4.2.3.1), and FFmpeg offsets every POC by 2^16.
/// Fields that no decoder reads are left out, each for a reason:
/// - CurrPic.flags: drivers take the current picture's reference status from pic_fields.reference_pic_flag;
///   FFmpeg's CurrPic flags vary with its internal picture reuse (a non-reference B sometimes has
///   SHORT_TERM_REFERENCE set, a reference P sometimes not).
/// - Weight tables unless the slice uses explicit weighted prediction (8.4.2.3), and list 1 of P slices.
/// - log2_max_pic_order_cnt_lsb_minus4 when pic_order_cnt_type is not 0 (the SPS does not carry it).
/// - slice_data_size is compared after removing the zero_byte of the next 4-byte start code, which FFmpeg
///   counts as part of the slice (B.1 makes it part of the start code).
/// Interlaced streams (field pictures, PAFF, MBAFF) add these rules:
/// - Both fields of a frame render into one surface, so a surface is named by the last field rendered into it;
///   both clients render the same fields in the same order, so the names agree.
/// - The base of the relative POCs is the current picture's own count: a bottom field's BottomFieldOrderCnt.
/// - An entry with a field flag (a field of RefPicList0/1, a ReferenceFrames store with one reference field,
///   CurrPic of a field picture) is compared on that field's order count only: the other field is not part
///   of the entry, and both clients send 0 for it until it is decoded (va.h has no "unknown"), which the
///   relative rule would turn into different numbers.
/// - CurrPic's TOP_FIELD/BOTTOM_FIELD bits are compared (only its reference bits are left out, see below).
/// One rule where FFmpeg departs from the spec, and vtk keeps to it:
/// - MMCO 5 (8.2.1): after a picture with memory_management_control_operation 5 is decoded, tempPicOrderCnt
///   is its PicOrderCnt (Min(TopFieldOrderCnt, BottomFieldOrderCnt) for a frame) and both field order counts
///   drop by it, so as a reference the picture has POC 0. vtk sends those values in ReferenceFrames and
///   RefPicList0/1; FFmpeg's hwaccel keeps the values from before the reset. The comparison subtracts that
///   picture's tempPicOrderCnt (its CurrPic POC as FFmpeg sent it when decoding it, which the reset does not
///   touch) from FFmpeg's entries for it, and counts how many entries needed it.
///
/// Every slice of every picture is compared, and vtksoft checks each slice's slice_data_bit_offset against
/// the slice header it parses again from the slice data (VA convention: emulation prevention bytes not
/// counted): both clients must have 0 violations, in the capture and in VTKSOFT_VIOLATION_REPORT.
@Suite("VA parameters: vtk against FFmpeg's VA-API hwaccel", .serialized)
struct VAParameterComparisonTests {
    /// The built vtk binary beside the test bundle.
    static let vtk: URL? = VTKSoftDriverLocation.directory.map { $0.appendingPathComponent("vtk") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }

    /// What one client sent for a stream, and what vtksoft found wrong with it.
    struct Capture {
        var lines: [[String: Any]]
        /// VTKSOFT_VIOLATION_REPORT's total (nil when the driver never terminated).
        var reportedViolations: Int?
        /// The violations listed in the capture lines.
        var capturedViolations: [String]
    }

    static func capture(_ url: URL, client: String) throws -> Capture {
        let file = TestPaths.scratch.appendingPathComponent("capture-\(client)-\(url.lastPathComponent).jsonl")
        try? FileManager.default.removeItem(at: file)
        let run: VTKSoftFFmpeg.Run
        if client == "ffmpeg" {
            run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-hwaccel_flags", "allow_profile_mismatch",
                                                  "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va",
                                                  "-hwaccel_output_format", "vaapi", "-i", url.path, "-vf", "hwdownload,format=nv12", "-f", "null", "-"],
                                        extraEnvironment: ["VTKSOFT_CAPTURE": file.path])
        } else {
            run = try VTKSoftFFmpeg.runReporting(try #require(vtk).path, ["decode", "--device", "soft", "--quiet", url.path],
                                                 environment: ["VTKSOFT_CAPTURE": file.path, "VTKSOFT_DRIVERS_PATH": try #require(VTKSoftDriverLocation.directory).path])
        }
        #expect(run.result.status == 0, "\(client): \(run.result.stderrText.prefix(300))")
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let captured = lines.flatMap { line -> [String] in
            ((line["violations"] as? [[String: Any]]) ?? []).map { "picture \(line["picture"] ?? "?"): \($0)" }
        }
        #expect(lines.allSatisfy { $0["violations"] is [Any] }, "\(client): every decode capture line lists its violations")
        return Capture(lines: lines, reportedViolations: run.violations, capturedViolations: captured)
    }

    /// For each slice NAL unit in stream order, the zero bytes between its end and the next start code's
    /// 0x000001 (the zero_byte of a 4-byte start code, trailing_zero_8bits). FFmpeg counts them into
    /// some slices; B.1 makes them part of no NAL unit, and no decoder reads them. `isSlice` tells the
    /// codec's slice NAL units.
    static func trailingZeroBytes(_ bytes: [UInt8], isSlice: (NALUnit) -> Bool = { $0.type.isSlice }) -> [Int] {
        let units = AnnexBScanner.nalUnits(in: bytes)
        var gaps: [Int] = []
        for (i, unit) in units.enumerated() where isSlice(unit) {
            let end = unit.offset + unit.bytes.count
            let next = i + 1 < units.count ? units[i + 1].offset - 3 : bytes.count
            gaps.append(max(0, next - end))
        }
        return gaps
    }

    /// Applies the comparison rules above to one client's capture. `mmco5Pictures` are the decode indices
    /// of pictures with MMCO 5, whose later POCs get the MMCO 5 rule when `keepsPOCAfterMMCO5`; `adjusted`
    /// counts the entries it changed.
    static func normalize(_ lines: [[String: Any]], mmco5Pictures: Set<Int> = [], keepsPOCAfterMMCO5: Bool = false,
                          adjusted: inout Int) -> [[String: Any]] {
        var holder: [Int: Int] = [:]  // surface -> decode index of its picture
        var tempPicOrderCnt: [Int: Int] = [:]  // decode index of an MMCO 5 picture -> its POC when decoded
        var out: [[String: Any]] = []
        for (index, line) in lines.enumerated() {
            holder[line["render_target"] as? Int ?? -1] = index
            let buffers = (line["buffers"] as? [[String: Any]]) ?? []
            let pictureValue = buffers.first { $0["type"] as? String == "VAPictureParameterBufferType" }?["value"] as? [String: Any] ?? [:]
            let currentPicture = pictureValue["CurrPic"] as? [String: Any] ?? [:]
            let currentFieldFlags = (currentPicture["flags"] as? Int ?? 0) & Self.fieldFlags
            let basePOC = currentPicture[currentFieldFlags == Self.bottomField ? "BottomFieldOrderCnt" : "TopFieldOrderCnt"] as? Int ?? 0
            if mmco5Pictures.contains(index) {
                tempPicOrderCnt[index] = min(basePOC, currentPicture["BottomFieldOrderCnt"] as? Int ?? basePOC)
            }
            let picFields = pictureValue["pic_fields"] as? [String: Any] ?? [:]
            func map(_ picture: Any, reference: Bool = true) -> Any {
                guard var p = picture as? [String: Any] else { return picture }
                let flags = p["flags"] as? Int ?? 0
                if flags & 1 != 0 || (p["picture_id"] as? Int) == 0xFFFF_FFFF { return ["invalid": true] }
                let held = holder[p["picture_id"] as? Int ?? -1]
                p["picture_id"] = held.map { "picture \($0)" } ?? "unknown surface"
                // The MMCO 5 rule: a reference decoded with MMCO 5, as FFmpeg sends it, before the 8.2.1 reset.
                let reset = reference && keepsPOCAfterMMCO5 ? held.flatMap { tempPicOrderCnt[$0] } ?? 0 : 0
                if reset != 0 { adjusted += 1 }
                for key in ["TopFieldOrderCnt", "BottomFieldOrderCnt"] { p[key] = (p[key] as? Int ?? 0) - reset - basePOC }
                // A field entry: only its own field's order count.
                switch flags & Self.fieldFlags {
                case Self.topField: p["BottomFieldOrderCnt"] = nil
                case Self.bottomField: p["TopFieldOrderCnt"] = nil
                default: break
                }
                return p
            }
            var normalized: [String: Any] = [:]
            for buffer in buffers {
                switch buffer["type"] as? String ?? "?" {
                case "VAPictureParameterBufferType":
                    var value = pictureValue
                    var current = map(value["CurrPic"] as Any, reference: false) as? [String: Any] ?? [:]
                    current["flags"] = nil
                    current["field_flags"] = currentFieldFlags
                    value["CurrPic"] = current
                    let refs = ((value["ReferenceFrames"] as? [Any]) ?? []).map { map($0) }.filter { ($0 as? [String: Any])?["invalid"] == nil }
                    value["ReferenceFrames"] = refs.map { "\($0 as? [String: Any] ?? [:])".sortedDescription }.sorted()
                    if var seq = value["seq_fields"] as? [String: Any], seq["pic_order_cnt_type"] as? Int != 0 {
                        seq["log2_max_pic_order_cnt_lsb_minus4"] = nil
                        value["seq_fields"] = seq
                    }
                    normalized["picture"] = value
                case "VAIQMatrixBufferType":
                    normalized["iq_matrix"] = buffer["value"]
                case "VASliceParameterBufferType":
                    var slices = (normalized["slices"] as? [Any]) ?? []
                    for var slice in (buffer["value"] as? [[String: Any]]) ?? [] {
                        slice["RefPicList0"] = ((slice["RefPicList0"] as? [Any]) ?? []).map { map($0) }
                        slice["RefPicList1"] = ((slice["RefPicList1"] as? [Any]) ?? []).map { map($0) }
                        let type = slice["slice_type"] as? Int ?? -1
                        let explicit = (picFields["weighted_pred_flag"] as? Int == 1 && (type == 0 || type == 3))
                            || (picFields["weighted_bipred_idc"] as? Int == 1 && type == 1)
                        for key in Array(slice.keys) where key.contains("weight") || key.contains("offset_l") {
                            if !explicit || (type != 1 && key.hasSuffix("l1")) { slice[key] = nil }
                        }
                        slices.append(slice)
                    }
                    normalized["slices"] = slices
                default:
                    break
                }
            }
            out.append(normalized)
        }
        return out
    }

    /// The first difference between two JSON values, as "path: a != b".
    static func difference(_ a: Any?, _ b: Any?, path: String) -> String? {
        switch (a, b) {
        case let (x as [String: Any], y as [String: Any]):
            for key in Set(x.keys).union(y.keys).sorted() {
                if let d = difference(x[key], y[key], path: path + "." + key) { return d }
            }
            return nil
        case let (x as [Any], y as [Any]):
            if x.count != y.count { return "\(path): \(x.count) entries != \(y.count)" }
            for i in x.indices { if let d = difference(x[i], y[i], path: "\(path)[\(i)]") { return d } }
            return nil
        default:
            let (x, y) = (a.map { "\($0)" } ?? "nil", b.map { "\($0)" } ?? "nil")
            return x == y ? nil : "\(path): vtk \(x) != ffmpeg \(y)"
        }
    }

    /// The outcome of comparing the two clients on one stream.
    struct Comparison {
        var differences: [String] = []
        /// Slice parameters each client sent, and slice NAL units in the stream.
        var vtkSlices = 0, ffmpegSlices = 0, streamSlices = 0
        /// Slices whose header holds an emulation prevention byte.
        var slicesWithEPBInHeader = 0
        /// FFmpeg reference entries the MMCO 5 rule changed.
        var mmco5Adjusted = 0
        var vtk: Capture
        var ffmpeg: Capture
    }

    static func slices(_ pictures: [[String: Any]]) -> Int { pictures.reduce(0) { $0 + (($1["slices"] as? [Any])?.count ?? 0) } }

    static func compare(_ url: URL) throws -> Comparison {
        let bytes = [UInt8](try Data(contentsOf: url))
        // Decode indices of the pictures with MMCO 5, and the slices with an EPB in their header.
        var mmco5Pictures: Set<Int> = []
        var sets = ParameterSets()
        var streamSlices = 0, withEPB = 0, picture = 0
        for unit in AccessUnitAssembler.accessUnits(in: bytes).flatMap(\.nalUnits) {
            if try sets.store(unit) { continue }
            guard unit.type.isSlice else { continue }
            let header = try SliceHeader(nalUnit: unit, parameterSets: sets)
            if header.firstMbInSlice == 0 && streamSlices > 0 { picture += 1 }
            streamSlices += 1
            if header.sliceDataPosition.emulationPreventionBytesInHeader > 0 { withEPB += 1 }
            if header.decRefPicMarking?.operations.contains(where: { $0.operation == 5 }) == true { mmco5Pictures.insert(picture) }
        }
        let vtkCapture = try capture(url, client: "vtk"), ffmpegCapture = try capture(url, client: "ffmpeg")
        var adjusted = 0, unused = 0
        let ours = normalize(vtkCapture.lines, adjusted: &unused)
        let theirs = normalize(ffmpegCapture.lines, mmco5Pictures: mmco5Pictures, keepsPOCAfterMMCO5: true, adjusted: &adjusted)
        var result = Comparison(streamSlices: streamSlices, slicesWithEPBInHeader: withEPB, mmco5Adjusted: adjusted, vtk: vtkCapture, ffmpeg: ffmpegCapture)
        result.vtkSlices = slices(ours)
        result.ffmpegSlices = slices(theirs)
        result.differences = differences(ours, theirs, gaps: trailingZeroBytes(bytes))
        return result
    }

    /// The pictures' differences between two normalized captures of one stream (either codec). FFmpeg's
    /// slice_data_size may include the zero bytes after the NAL unit (`gaps`, per slice); exactly those are accepted.
    static func differences(_ ours: [[String: Any]], _ ffmpeg: [[String: Any]], gaps: [Int]) -> [String] {
        var theirs = ffmpeg
        var sliceIndex = 0
        for i in 0..<min(ours.count, theirs.count) {
            guard var slices = theirs[i]["slices"] as? [[String: Any]], let mine = ours[i]["slices"] as? [[String: Any]] else { continue }
            for j in 0..<min(slices.count, mine.count) {
                if let size = slices[j]["slice_data_size"] as? Int, let own = mine[j]["slice_data_size"] as? Int,
                   sliceIndex < gaps.count, size > own, size - own <= gaps[sliceIndex] {
                    slices[j]["slice_data_size"] = own
                }
                sliceIndex += 1
            }
            theirs[i]["slices"] = slices
        }
        var differences: [String] = []
        if ours.count != theirs.count { differences.append("pictures: vtk \(ours.count) != ffmpeg \(theirs.count)") }
        for i in 0..<min(ours.count, theirs.count) {
            if let d = difference(ours[i], theirs[i], path: "picture \(i)") { differences.append(d) }
        }
        return differences
    }

    /// 0 differences, every slice of every picture compared, and 0 slice_data_bit_offset violations from
    /// either client.
    static func expectAgreement(_ url: URL, name: String) throws -> Comparison {
        let c = try compare(url)
        #expect(c.differences.isEmpty, "\(name): \(c.differences.count) picture(s) differ; first: \(c.differences.prefix(3).joined(separator: " | "))")
        #expect(c.vtkSlices == c.streamSlices && c.ffmpegSlices == c.streamSlices,
                "\(name): slices compared vtk \(c.vtkSlices), ffmpeg \(c.ffmpegSlices), in the stream \(c.streamSlices)")
        for (client, capture) in [("vtk", c.vtk), ("ffmpeg", c.ffmpeg)] {
            #expect(capture.reportedViolations == 0, "\(name): \(client): VTKSOFT_VIOLATION_REPORT \(capture.reportedViolations.map(String.init) ?? "missing")")
            #expect(capture.capturedViolations.isEmpty, "\(name): \(client): \(capture.capturedViolations.prefix(2))")
        }
        print("VAParameterComparison \(name): \(c.vtk.lines.count) pictures, \(c.streamSlices) slices (\(c.slicesWithEPBInHeader) with an EPB in the header), "
              + "\(c.differences.count) differences, violations vtk \(c.vtk.reportedViolations ?? -1) ffmpeg \(c.ffmpeg.reportedViolations ?? -1), "
              + "MMCO 5 entries adjusted \(c.mmco5Adjusted)")
        return c
    }

    static var enabled: Bool { disabledReason == nil }
    /// Why the comparison cannot run here, or nil when it can.
    static var disabledReason: String? {
        if let reason = VTKSoftFFmpeg.unavailableReason { return reason }
        return vtk == nil ? "the vtk binary was not found beside the test bundle: build the package first" : nil
    }
    /// VA_PICTURE_H264_TOP_FIELD, VA_PICTURE_H264_BOTTOM_FIELD (va.h).
    static let topField = 0x02, bottomField = 0x04, fieldFlags = 0x06

    @Test("Interlaced conformance streams (field pictures, PAFF, MBAFF, 4:0:0): every field equal",
          .enabled(if: enabled, "\(disabledReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.interlaced)
    func interlaced(stream: ConformanceStream) throws {
        _ = try Self.expectAgreement(stream.url, name: stream.file)
    }

    @Test("Conformance streams: every field equal",
          .enabled(if: enabled, "\(disabledReason ?? "")"),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        _ = try Self.expectAgreement(stream.url, name: stream.file)
    }

    @Test("libx264 streams: every field equal",
          .enabled(if: enabled, "\(disabledReason ?? "")"),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        _ = try Self.expectAgreement(try stream.url(), name: stream.name)
    }

    @Test("libx264 MBAFF streams: every field equal",
          .enabled(if: enabled, "\(disabledReason ?? "")"),
          arguments: GeneratedStream.mbaff)
    func mbaff(stream: GeneratedStream) throws {
        _ = try Self.expectAgreement(try stream.url(), name: stream.name)
    }

    /// libx264 P slices with 16 references and weighted prediction carry a pred_weight_table of mostly zero
    /// flags, and so emulation prevention bytes; the edited streams carry one in every IDR slice header.
    @Test("Streams with emulation prevention bytes in slice headers: every field equal, slice_data_bit_offset included",
          .enabled(if: enabled, "\(disabledReason ?? "")"),
          arguments: GeneratedStream.emulationPreventionInSliceHeaders.map(\.name) + EditedStream.emulationPrevention.map(\.name))
    func emulationPrevention(name: String) throws {
        let url = try GeneratedStream.emulationPreventionInSliceHeaders.first { $0.name == name }?.url()
            ?? EditedStream.emulationPrevention.first { $0.name == name }?.url()
        let c = try Self.expectAgreement(try #require(url), name: name)
        #expect(c.slicesWithEPBInHeader >= 4, "\(name): only \(c.slicesWithEPBInHeader) slices have an EPB in the header")
    }

    @Test("MMCO 5: every field equal, with FFmpeg's pre-reset POCs mapped by the 8.2.1 rule",
          .enabled(if: enabled, "\(disabledReason ?? "")"))
    func mmco5() throws {
        let c = try Self.expectAgreement(try EditedStream.mmco5.url(), name: EditedStream.mmco5.name)
        // Each MMCO 5 picture is the only reference of the next picture: in ReferenceFrames and RefPicList0
        // of its 2 slices.
        #expect(c.mmco5Adjusted >= 3 * 3, "the rule changed \(c.mmco5Adjusted) entries: FFmpeg no longer departs from 8.2.1 here?")
    }
}

extension String {
    /// "[b: 2, a: 1]" with its keys sorted, so dictionaries print the same whatever their order.
    var sortedDescription: String {
        guard hasPrefix("["), hasSuffix("]") else { return self }
        return "[" + dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.sorted().joined(separator: ", ") + "]"
    }
}
