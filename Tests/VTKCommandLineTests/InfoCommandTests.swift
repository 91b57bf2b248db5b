import Foundation
import Testing
import VTKTestSupport

/// `vtk info`'s text and JSON against what the driver reports. The oracle for the limits is the JSON
/// capability table (one VA query per profile and entrypoint) and the i965-gen9 persona's documented
/// entrypoints: EncSlice with L0 4, L1 1, and EncSliceLP with L0 1, L1 0 (../shared/personas/README.md).
@Suite("vtk info", .enabled(if: VTKBinary.available, VTKBinary.missing))
struct InfoCommandTests {
    static func info(_ arguments: [String], environment: [String: String] = [:]) throws -> (text: String, json: [String: Any]) {
        let text = try VTKBinary.run(["info"] + arguments, extraEnvironment: environment)
        #expect(text.status == 0, "\(text.stderrText)")
        let json = try VTKBinary.run(["info", "--json"] + arguments, extraEnvironment: environment)
        #expect(json.status == 0, "\(json.stderrText)")
        return (text.stdoutText, try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]))
    }

    @Test("each device is named once: no \"vtksoft: vtksoft:\", personas named by their own vendor string")
    func devicesNamedOnce() throws {
        let (text, json) = try Self.info(["--device", "soft"], environment: ["VTK_DEVICES": "soft:ihd-gen12"])
        #expect(!text.contains("vtksoft: vtksoft"), "\(text)")
        let candidates = text.split(separator: "\n").filter { $0.hasPrefix("candidate:") }
        #expect(candidates.count == 2, "\(text)")
        #expect(candidates.contains { $0.hasPrefix("candidate:  vtksoft: software VA-API driver (") && $0.hasSuffix("; can decode, encode") }, "\(text)")
        #expect(candidates.contains { $0.hasPrefix("candidate:  soft:ihd-gen12: Intel iHD driver") }, "\(text)")
        let devices = try #require(json["devices"] as? [[String: Any]])
        #expect(devices.contains { $0["device"] as? String == "vtksoft" && ($0["vendor"] as? String)?.hasPrefix("vtksoft: ") == true })
    }

    @Test("RAW_DATA: the table's packed headers are the summary's, RAW_DATA included")
    func rawDataInTable() throws {
        let (text, json) = try Self.info(["--device", "soft"], environment: ["VTKSOFT_ENCODER": "native"])
        let encode = try #require((json["encode"] as? [[String: Any]])?.first { $0["profile"] as? String == "High" })
        let summary = try #require(encode["packed_headers"] as? String)
        #expect(summary.contains("RAW_DATA"), "vtksoft's native engine takes raw data packed headers: \(summary)")
        let capabilities = try #require(json["capabilities"] as? [[String: Any]])
        let row = try #require(capabilities.first { $0["profile"] as? String == "VAProfileH264High" && $0["entrypoint"] as? String == "VAEntrypointEncSlice" })
        #expect((row["packed_headers"] as? [String])?.joined(separator: "|") == summary, "\(row)")
        let line = try #require(text.split(separator: "\n").first { $0.contains("VAProfileH264High") && $0.contains("VAEntrypointEncSlice") })
        #expect(line.contains("packed: " + summary.replacingOccurrences(of: "|", with: ",")), "\(line)")
    }

    @Test("limits per entrypoint: i965's EncSlice (L0 4, L1 1) and EncSliceLP (L0 1, L1 0) each shown with its own")
    func limitsPerEntrypoint() throws {
        let (text, json) = try Self.info(["--device", "soft:i965-gen9"])
        #expect(text.contains("encode:     H.264 High on EncSlice (default), L0 4, L1 1,"), "\(text)")
        #expect(text.contains("encode:     H.264 High on EncSliceLP (--low-power), L0 1, L1 0 (no B-frames),"), "\(text)")
        let encode = try #require((json["encode"] as? [[String: Any]])?.first { $0["profile"] as? String == "High" })
        let entrypoints = try #require(encode["entrypoints"] as? [[String: Any]])
        let capabilities = try #require(json["capabilities"] as? [[String: Any]])
        #expect(entrypoints.count == 2)
        for entry in entrypoints {
            let name = try #require(entry["entrypoint"] as? String)
            let row = try #require(capabilities.first { $0["profile"] as? String == "VAProfileH264High" && $0["entrypoint"] as? String == "VAEntrypoint" + name })
            #expect(row["max_ref_l0"] as? Int == entry["l0"] as? Int && row["max_ref_l1"] as? Int == entry["l1"] as? Int, "\(name): \(row) vs \(entry)")
            let line = try #require(text.split(separator: "\n").first { $0.contains("VAProfileH264High") && $0.contains("VAEntrypoint\(name) ") })
            #expect(line.contains("refs: L0 \(entry["l0"] as? Int ?? -1), L1 \(entry["l1"] as? Int ?? -1)"), "\(line)")
        }
        #expect(Set(entrypoints.compactMap { $0["l0"] as? Int }) == [4, 1])
    }
}
