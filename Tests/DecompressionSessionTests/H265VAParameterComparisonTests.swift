import Foundation
import H264Bitstream
import H265Bitstream
import Testing
import VTKTestSupport

/// The H.265 VA parameters vtk sends (VAPictureParameterBufferHEVC, VAIQMatrixBufferHEVC,
/// VASliceParameterBufferHEVC) equal those FFmpeg's vaapi_hevc sends for the same stream, field by field,
/// as vtksoft's VTKSOFT_CAPTURE records them. vtksoft rebuilds the reference picture set from
/// ReferenceFrames but lets libavcodec build the lists, so this is what shows vtk's RefPicList would be
/// right on real hardware.
///
/// How values are compared:
/// - Surfaces by the picture they hold (the index of the picture last rendered into them).
/// - ReferenceFrames as a set: FFmpeg lists them in its DPB slot order, vtk in its DPB order; both are
///   allowed (va_dec_hevc.h gives no order).
/// - RefPicList entries as the ReferenceFrames entry they index (picture and POC), not as the index, for
///   the same reason; 0xFF (no entry) stays 0xFF.
/// - slice_data_size after removing zero bytes that follow the NAL unit (the zero_byte of the next 4-byte
///   start code), which FFmpeg may count into the slice.
/// Fields left out, each for a reason:
/// - Weight tables unless the slice uses explicit weighted prediction (8.5.3.3.4.3), and list 1 of P slices.
/// - collocated_from_l0_flag of slices that use no temporal motion vector prediction (I slices among
///   them): the flag is not in their header; vtk sends the inferred 1 (7.4.7.1), FFmpeg keeps the value
///   of the slice before; no decoder reads it there.
@Suite("H.265 VA parameters: vtk against FFmpeg's VA-API hwaccel", .serialized)
struct H265VAParameterComparisonTests {
    static func capture(_ url: URL, client: String) throws -> [[String: Any]] {
        let file = TestPaths.scratch.appendingPathComponent("hevc-capture-\(client)-\(url.lastPathComponent).jsonl")
        try? FileManager.default.removeItem(at: file)
        let status: Int32, stderr: String
        if client == "ffmpeg" {
            let run = try VTKSoftFFmpeg.run("ffmpeg", ["-nostdin", "-v", "error", "-init_hw_device", VTKSoftFFmpeg.hwDevice, "-hwaccel", "vaapi",
                                                      "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi", "-i", url.path,
                                                      "-f", "null", "-"],
                                            extraEnvironment: ["VTKSOFT_CAPTURE": file.path])
            (status, stderr) = (run.result.status, run.result.stderrText)
        } else {
            let result = try ProcessRunner.run(try #require(VAParameterComparisonTests.vtk).path, ["decode", "--device", "soft", "--quiet", url.path],
                                               environment: ["VTKSOFT_CAPTURE": file.path,
                                                             "VTKSOFT_DRIVERS_PATH": try #require(VTKSoftDriverLocation.directory).path])
            (status, stderr) = (result.status, result.stderrText)
        }
        #expect(status == 0, "\(client): \(stderr.prefix(300))")
        let text = try String(contentsOf: file, encoding: .utf8)
        return try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    static func normalize(_ lines: [[String: Any]]) -> [[String: Any]] {
        var holder: [Int: Int] = [:]
        var out: [[String: Any]] = []
        for (index, line) in lines.enumerated() {
            holder[line["render_target"] as? Int ?? -1] = index
            let buffers = (line["buffers"] as? [[String: Any]]) ?? []
            let picture = buffers.first { $0["type"] as? String == "VAPictureParameterBufferType" }?["value"] as? [String: Any] ?? [:]
            let fields = picture["pic_fields"] as? [String: Any] ?? [:]
            func map(_ value: Any?) -> String {
                guard let p = value as? [String: Any] else { return "?" }
                if (p["flags"] as? Int ?? 0) & 1 != 0 || (p["picture_id"] as? Int) == 0xFFFF_FFFF { return "invalid" }
                let name = holder[p["picture_id"] as? Int ?? -1].map { "picture \($0)" } ?? "unknown surface"
                return "\(name) POC \(p["pic_order_cnt"] ?? "?") flags \(p["flags"] ?? "?")"
            }
            let references = (picture["ReferenceFrames"] as? [Any]) ?? []
            var normalized: [String: Any] = [:]
            for buffer in buffers {
                switch buffer["type"] as? String ?? "?" {
                case "VAPictureParameterBufferType":
                    var value = picture
                    value["CurrPic"] = map(value["CurrPic"])
                    value["ReferenceFrames"] = references.map(map).filter { $0 != "invalid" }.sorted()
                    normalized["picture"] = value
                case "VAIQMatrixBufferType":
                    normalized["iq_matrix"] = buffer["value"]
                case "VASliceParameterBufferType":
                    var slices = (normalized["slices"] as? [Any]) ?? []
                    for var slice in (buffer["value"] as? [[String: Any]]) ?? [] {
                        let lists = (slice["RefPicList"] as? [Int]) ?? []
                        slice["RefPicList"] = lists.map { $0 == 0xFF ? "none" : ($0 < references.count ? map(references[$0]) : "out of range \($0)") }
                        let type = slice["LongSliceFlags"].flatMap { ($0 as? [String: Any])?["slice_type"] as? Int } ?? -1
                        let explicit = (fields["weighted_pred_flag"] as? Int == 1 && type == 1) || (fields["weighted_bipred_flag"] as? Int == 1 && type == 0)
                        for key in Array(slice.keys) where key.contains("weight") || key.contains("offset_l") || key.hasPrefix("ChromaOffset") {
                            if !explicit || (type != 0 && key.hasSuffix("1")) { slice[key] = nil }
                        }
                        if var flags = slice["LongSliceFlags"] as? [String: Any], flags["slice_temporal_mvp_enabled_flag"] as? Int != 1 || flags["slice_type"] as? Int == 2 {
                            flags["collocated_from_l0_flag"] = nil
                            slice["LongSliceFlags"] = flags
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

    static func compare(_ url: URL) throws -> [String] {
        let ours = normalize(try capture(url, client: "vtk"))
        let theirs = normalize(try capture(url, client: "ffmpeg"))
        let gaps = VAParameterComparisonTests.trailingZeroBytes([UInt8](try Data(contentsOf: url))) { $0.h265Header.type.isVCL }
        return VAParameterComparisonTests.differences(ours, theirs, gaps: gaps)
    }

    @Test("libx265 streams made at run time: every field equal",
          .enabled(if: VAParameterComparisonTests.enabled, "\(VAParameterComparisonTests.disabledReason ?? "")"),
          arguments: GeneratedStream.h265)
    func generated(_ stream: GeneratedStream) throws {
        let differences = try Self.compare(try stream.url())
        #expect(differences.isEmpty, "\(differences.count) picture(s) differ; first: \(differences.prefix(3).joined(separator: " | "))")
    }

    @Test("H.265 conformance streams: every field equal",
          .enabled(if: VAParameterComparisonTests.enabled, "\(VAParameterComparisonTests.disabledReason ?? "")"),
          arguments: H265ConformanceStream.names)
    func conformance(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let differences = try Self.compare(stream.url)
        #expect(differences.isEmpty, "\(differences.count) picture(s) differ; first: \(differences.prefix(3).joined(separator: " | "))")
    }
}
