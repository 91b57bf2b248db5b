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
@Suite("VA parameters: vtk against FFmpeg's VA-API hwaccel", .serialized)
struct VAParameterComparisonTests {
    /// The built vtk binary beside the test bundle.
    static let vtk: URL? = VTKSoftDriverLocation.directory.map { $0.appendingPathComponent("vtk") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }

    static func capture(_ url: URL, client: String) throws -> [[String: Any]] {
        let file = TestPaths.scratch.appendingPathComponent("capture-\(client)-\(url.lastPathComponent).jsonl")
        try? FileManager.default.removeItem(at: file)
        let status: Int32
        let stderr: String
        if client == "ffmpeg" {
            let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-hwaccel_flags", "allow_profile_mismatch",
                                                      "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi", "-hwaccel_device", "va",
                                                      "-hwaccel_output_format", "vaapi", "-i", url.path, "-vf", "hwdownload,format=nv12", "-f", "null", "-"],
                                            extraEnvironment: ["VTKSOFT_CAPTURE": file.path])
            (status, stderr) = (run.result.status, run.result.stderrText)
        } else {
            let result = try ProcessRunner.run(try #require(vtk).path, ["decode", "--device", "soft", "--quiet", url.path],
                                               environment: ["VTKSOFT_CAPTURE": file.path, "VTKSOFT_DRIVERS_PATH": try #require(VTKSoftDriverLocation.directory).path])
            (status, stderr) = (result.status, result.stderrText)
        }
        #expect(status == 0, "\(client): \(stderr.prefix(300))")
        let text = try String(contentsOf: file, encoding: .utf8)
        return try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// For each slice NAL unit in stream order, the zero bytes between its end and the next start code's
    /// 0x000001 (the zero_byte of a 4-byte start code, trailing_zero_8bits). FFmpeg counts them into
    /// some slices; B.1 makes them part of no NAL unit, and no decoder reads them.
    static func trailingZeroBytes(_ bytes: [UInt8]) -> [Int] {
        let units = AnnexBScanner.nalUnits(in: bytes)
        var gaps: [Int] = []
        for (i, unit) in units.enumerated() where unit.type.isSlice {
            let end = unit.offset + unit.bytes.count
            let next = i + 1 < units.count ? units[i + 1].offset - 3 : bytes.count
            gaps.append(max(0, next - end))
        }
        return gaps
    }

    /// Applies the comparison rules above to one client's capture.
    static func normalize(_ lines: [[String: Any]]) -> [[String: Any]] {
        var holder: [Int: Int] = [:]  // surface -> decode index of its picture
        var out: [[String: Any]] = []
        for (index, line) in lines.enumerated() {
            holder[line["render_target"] as? Int ?? -1] = index
            let buffers = (line["buffers"] as? [[String: Any]]) ?? []
            let pictureValue = buffers.first { $0["type"] as? String == "VAPictureParameterBufferType" }?["value"] as? [String: Any] ?? [:]
            let basePOC = (pictureValue["CurrPic"] as? [String: Any])?["TopFieldOrderCnt"] as? Int ?? 0
            let picFields = pictureValue["pic_fields"] as? [String: Any] ?? [:]
            func map(_ picture: Any) -> Any {
                guard var p = picture as? [String: Any] else { return picture }
                let flags = p["flags"] as? Int ?? 0
                if flags & 1 != 0 || (p["picture_id"] as? Int) == 0xFFFF_FFFF { return ["invalid": true] }
                p["picture_id"] = holder[p["picture_id"] as? Int ?? -1].map { "picture \($0)" } ?? "unknown surface"
                for key in ["TopFieldOrderCnt", "BottomFieldOrderCnt"] { p[key] = (p[key] as? Int ?? 0) - basePOC }
                return p
            }
            var normalized: [String: Any] = [:]
            for buffer in buffers {
                switch buffer["type"] as? String ?? "?" {
                case "VAPictureParameterBufferType":
                    var value = pictureValue
                    var current = map(value["CurrPic"] as Any) as? [String: Any] ?? [:]
                    current["flags"] = nil
                    value["CurrPic"] = current
                    let refs = ((value["ReferenceFrames"] as? [Any]) ?? []).map(map).filter { ($0 as? [String: Any])?["invalid"] == nil }
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
                        slice["RefPicList0"] = ((slice["RefPicList0"] as? [Any]) ?? []).map(map)
                        slice["RefPicList1"] = ((slice["RefPicList1"] as? [Any]) ?? []).map(map)
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

    static func compare(_ url: URL) throws -> [String] {
        let ours = normalize(try capture(url, client: "vtk"))
        var theirs = normalize(try capture(url, client: "ffmpeg"))
        // FFmpeg's slice_data_size may include zero bytes that follow the NAL unit; accept exactly those.
        let gaps = trailingZeroBytes([UInt8](try Data(contentsOf: url)))
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

    static var enabled: Bool { VTKSoftFFmpeg.isAvailable && vtk != nil }

    @Test("Conformance streams: every field equal",
          .enabled(if: enabled, "needs ffmpeg, Xvfb and the built vtk and vtksoft"),
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        let differences = try Self.compare(stream.url)
        #expect(differences.isEmpty, "\(differences.count) picture(s) differ; first: \(differences.prefix(3).joined(separator: " | "))")
    }

    @Test("libx264 streams: every field equal",
          .enabled(if: enabled, "needs ffmpeg, Xvfb and the built vtk and vtksoft"),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        let differences = try Self.compare(try stream.url())
        #expect(differences.isEmpty, "\(differences.count) picture(s) differ; first: \(differences.prefix(3).joined(separator: " | "))")
    }
}

extension String {
    /// "[b: 2, a: 1]" with its keys sorted, so dictionaries print the same whatever their order.
    var sortedDescription: String {
        guard hasPrefix("["), hasSuffix("]") else { return self }
        return "[" + dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.sorted().joined(separator: ", ") + "]"
    }
}
